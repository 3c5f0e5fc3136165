import Foundation
import Testing
@testable import QuireCrypto
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

@Suite struct PruneTests {
    func edit(_ store: Store, _ rounds: Int, _ tag: String) throws {
        for i in 0..<rounds { try store.add(NewEntry(title: "\(tag) \(i)", body: String(repeating: "text ", count: i))) }
    }

    @Test func newDevicesStartFromTheSnapshotAfterAPrune() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        let e = try a.add(NewEntry(title: "with photo"))
        try a.attach(to: e.id, NewAttachment(path: world.file("p.png", pseudoRandomBytes(70_000)), transcript: "a photo"))
        for round in 0..<3 { try edit(a, 5, "a\(round)"); try world.sync(a); try world.sync(b) }
        try edit(b, 3, "b"); try world.sync(b); try world.sync(a)
        let report = try world.syncer(a).prune()
        #expect(report.segmentsDeleted > 0)
        let remaining = try world.backend.list("log/" + a.deviceID).map(\.name)
        #expect(!remaining.contains(String(format: "%012d", 1)))
        // A new device and a restore start from the snapshot.
        let fresh = try world.makeDevice("fresh")
        let restore = try world.syncer(fresh).restore()
        #expect(restore.segmentsPulled < 5)
        #expect(try world.dump(fresh) == world.dump(a))
        #expect(try fresh.search("photo").count == 1)
        // Later edits flow on top of the snapshot.
        try edit(b, 2, "later"); try world.sync(b); try world.sync(fresh); try world.sync(a)
        #expect(try world.dump(fresh) == world.dump(b) && world.dump(a) == world.dump(b))
        let verify = try world.syncer(fresh).verify(readData: true)
        #expect(verify.problems.isEmpty, "\(verify.problems)")
    }

    /// Heads are empty now: a prune learns how far B merged A's log from B's newest segment,
    /// and keeps each device's newest segment for the next prune to read. A head an older
    /// Quire sealed (with the positions inside) is still read; a segment from before the
    /// positions, under an empty head, stops the prune.
    @Test func aPruneReadsWhatEachDeviceMergedFromItsNewestSegment() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        let segments = { (store: Store) in try world.backend.list("log/" + store.deviceID).compactMap { Int($0.name) }.sorted() }
        for round in 0..<3 { try edit(a, 2, "a\(round)"); try world.sync(a) }
        try world.sync(b); try edit(b, 1, "b"); try world.sync(b)   // B's segment 1: merged A's 3
        try edit(a, 1, "a-late"); try world.sync(a)                  // A's 4, which B has not merged
        try world.sync(a)
        let heads = try world.backend.list("heads")
        #expect(!heads.isEmpty && heads.allSatisfy { $0.size == 0 }, "\(heads)")
        let first = try world.syncer(a).prune()
        #expect(try segments(a) == [4] && segments(b) == [1], "A's 1–3, which B merged, go; each newest stays")
        #expect(first.segmentsDeleted == 3)

        // B's newest segment gone: nothing says how far B merged, so nothing more goes.
        try edit(a, 1, "a-more"); try world.sync(a); try world.sync(b); try edit(b, 1, "b2"); try world.sync(b)
        let bNewest = try #require(try segments(b).last)
        let path = LogSegment.path(device: b.deviceID, seq: bNewest)
        let sealed = try world.backend.getData(path)
        let repository = try Repository.open(backend: world.backend, passphrase: try secret("pw"), expectedID: world.repositoryID)
        var old = try LogSegment.decode(try repository.box.open(sealed, path: path), path: path)
        old.merged = nil
        try world.backend.putData(path, try repository.box.seal(old.encoded(), path: path))
        #expect(try world.syncer(a).prune().segmentsDeleted == 0)

        // A head as an older Quire sealed it says B merged A's log up to 5: A's 4 goes, 5 stays.
        let head = Heads.folder + "/" + Head(device: b.deviceID, seq: bNewest).name
        let body = WireFormat.head.encode(["device": .string(b.deviceID), "seq": .number(Double(bNewest)), "hash": .string(""),
                                           "merged": .object([a.deviceID: .number(5)])])
        try world.backend.putData(head, try repository.box.seal(body, path: head))
        _ = try world.syncer(a).prune()
        #expect(try segments(a) == [5])
        try world.sync(a)
        #expect(try world.dump(a) == world.dump(b))
    }

    @Test func aDeviceOfflineAcrossAPruneLosesNothing() throws {
        let world = try SyncWorld(devices: 3)
        let (a, b, c) = (world.stores[0], world.stores[1], world.stores[2])
        try edit(a, 3, "a"); try world.sync(a)
        try edit(c, 2, "c"); try world.sync(c)   // C has a head saying how far it got
        try world.sync(b)
        // C goes offline. A and B keep writing, syncing, and A prunes.
        for round in 0..<3 { try edit(a, 2, "a\(round)"); try world.sync(a); try edit(b, 2, "b\(round)"); try world.sync(b) }
        try world.sync(a)
        _ = try world.syncer(a).prune()
        // C comes back with edits of its own.
        try edit(c, 2, "c-offline")
        try world.sync(c); try world.sync(a); try world.sync(b); try world.sync(c)
        #expect(try world.dump(c) == world.dump(a) && world.dump(b) == world.dump(a))
        #expect(try c.entries().count == 3 + 2 + 12 + 2)
    }

    @Test func aSecondPruneAfterOnlyOtherDevicesWroteCoversTheirSegments() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        try edit(a, 2, "a"); try world.sync(a); try edit(b, 2, "b"); try world.sync(b); try world.sync(a)
        let first = try world.syncer(a).prune()
        // Only B writes; A merges without pushing, so its own position stays where it was.
        for round in 0..<2 { try edit(b, 2, "b\(round)"); try world.sync(b) }
        try world.sync(a)
        let second = try world.syncer(a).prune()
        #expect(second.snapshot != first.snapshot && second.segmentsDeleted > 0)
        #expect(try Snapshot.list(world.backend).count == 1)
        let fresh = try world.makeDevice("fresh")
        _ = try world.syncer(fresh).restore()
        #expect(try world.dump(fresh) == world.dump(a))
        #expect(try fresh.entries().count == 2 + 2 + 4)
    }

    @Test func aDeviceWithoutAHeadFallsBackToTheSnapshot() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        try edit(a, 3, "first"); try world.sync(a); try world.sync(b)   // B only reads: no head
        for round in 0..<3 { try edit(a, 2, "r\(round)"); try world.sync(a) }
        // Pretend B's position is unknown to prune by A (no head): A prunes everything it covers.
        _ = try world.syncer(a).prune()
        try world.sync(b)
        #expect(try world.dump(b) == world.dump(a))
    }
}

@Suite struct BlobCollectionTests {
    @Test func orphanedUploadsAreCollectedAfterTheGracePeriodAndNothingNamedIs() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        let e = try a.add(NewEntry(title: "photo"))
        let kept = try a.attach(to: e.id, NewAttachment(path: world.file("kept.png", pseudoRandomBytes(5000, seed: 1))))
        try world.sync(a)
        // An upload whose push never published its segment.
        let syncer = try world.syncer(a)
        let orphan = try syncer.repository.uploadBlob(fileAt: world.file("orphan", pseudoRandomBytes(3000, seed: 2)))
        let first = try syncer.prune()
        #expect(first.blobsDeleted == 0 && first.blobsMarked == 1)
        #expect(try world.backend.getData(Repository.blobPath(orphan)).count > 0)
        syncer.context.options.collectionGrace = 0
        let second = try syncer.prune()
        #expect(second.blobsDeleted == 1)
        #expect(throws: RemoteError.self) { _ = try world.backend.getData(Repository.blobPath(orphan)) }
        let keptObject = try #require(try world.objects(of: kept.blobID, in: a).first)
        #expect(try world.backend.getData(keptObject).count > 0)
        try world.sync(b)
        #expect(try world.dump(b) == world.dump(a))
        #expect(try world.syncer(b).verify(readData: true).problems.isEmpty)
    }

    @Test func anUnconfirmedUploadCollectedMeanwhileIsUploadedAgain() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        let e = try a.add(NewEntry(title: "photo"))
        let media = try a.attach(to: e.id, NewAttachment(path: world.file("p.png", pseudoRandomBytes(4000, seed: 3))))
        // A push that uploaded the blob and died; then a prune collected it.
        let syncer = try world.syncer(a)
        let remote = try syncer.repository.uploadBlob(fileAt: a.blobs.path(for: media.blobID))
        try a.setRemoteBlobs([(media.blobID, remote, nil)], confirmed: false)
        try world.backend.delete(Repository.blobPath(remote))
        try world.sync(a)
        try world.sync(b)
        #expect(try world.dump(b) == world.dump(a))
        #expect(try a.remoteBlobRecord(media.blobID)?.confirmed == true)
    }
}
