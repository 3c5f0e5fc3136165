import Foundation
import Testing
@testable import QuireCrypto
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

/// A server that acknowledges and then forgets (a power cut before it flushed, a disk back
/// from an older backup): the device that published what was lost puts it back from its
/// store, the same bytes under the same names, and every other device then gets everything.
@Suite struct ForgetfulServerTests {
    /// What a's last push left on the server, as (newest head, newest segment, a pack of it).
    func newestObjects(of a: Store, in world: SyncWorld, photo: Media) throws -> [String] {
        let seq = try #require(try a.syncLog(a.deviceID)?.seq)
        return ["heads/" + Head(device: a.deviceID, seq: seq).name, LogSegment.path(device: a.deviceID, seq: seq)]
            + (try world.objects(of: photo.blobID, in: a))
    }

    /// Device a's newest head, segment and pack are gone after it synced; its next sync puts
    /// them back (the very same segment bytes), and device b, which never saw them, gets all.
    @Test(arguments: Backends.syncNames)
    func aSyncPutsBackWhatTheServerLost(backend name: String) throws {
        let (backend, keep) = try Backends.make(name)
        defer { _ = keep }
        let world = try SyncWorld(devices: 2, backend: backend)
        let (a, b) = (world.stores[0], world.stores[1])
        try a.add(NewEntry(title: "первая", body: "kept from the start"))
        try world.sync(a); try world.sync(b)
        let entry = try a.add(NewEntry(title: "のち", body: "acknowledged, then lost"))
        let photo = try a.attach(to: entry.id, NewAttachment(path: world.file("p.jpg", pseudoRandomBytes(300_000, seed: 5))))
        try world.sync(a)
        let lost = try newestObjects(of: a, in: world, photo: photo)
        let segmentBytes = try backend.getData(lost[1])
        for object in lost { try backend.delete(object) }

        let repaired = try world.sync(a)
        #expect(repaired.objectsRepaired >= 3, "\(repaired)")
        #expect(try backend.getData(lost[1]) == segmentBytes, "the same bytes under the same name")
        #expect(try world.syncer(a).verify(readData: true).problems.isEmpty)
        try world.sync(b)
        #expect(try world.dump(b) == world.dump(a))
        #expect(b.hasBlob(photo.blobID))
        // A device restored afterwards gets everything too.
        let c = try world.makeDevice("c")
        _ = try world.syncer(c).restore()
        #expect(try world.dump(c) == world.dump(a))
        // And nothing more to put back.
        #expect(try world.sync(a).objectsRepaired == 0)
    }

    /// A device that had already merged what was lost sees a rolled-back log until its
    /// writer puts it back, and nothing of its store changes meanwhile; then it goes on.
    @Test func aDeviceThatMergedWhatWasLostWaitsForItsWriter() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        let entry = try a.add(NewEntry(title: "x", body: "one"))
        try world.sync(a)
        try a.edit(entryID: entry.id, EntryEdit(body: "two"))
        try world.sync(a); try world.sync(b)
        let seq = try #require(try a.syncLog(a.deviceID)?.seq)
        try world.backend.delete("heads/" + Head(device: a.deviceID, seq: seq).name)
        try world.backend.delete(LogSegment.path(device: a.deviceID, seq: seq))
        let before = try world.dump(b)
        #expect { try world.sync(b) } throws: { ($0 as? SyncError)?.kind == .rolledBack || ($0 as? SyncError)?.kind == .missing }
        #expect(try world.dump(b) == before)
        try world.sync(a)
        try b.edit(entryID: entry.id, EntryEdit(body: "three"))
        try world.sync(b); try world.sync(a)
        #expect(try a.entry(id: entry.id)?.body == "three" && world.dump(a) == world.dump(b))
    }

    /// A lost segment this device kept no copy of (pushed by a Quire before copies were
    /// kept) cannot come back as it was: a snapshot covering it is written, so a device that
    /// was behind, and a new one, start from there.
    @Test func aLostSegmentWithoutACopyIsCoveredByASnapshot() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        try a.add(NewEntry(title: "first"))
        try world.sync(a); try world.sync(b)
        try a.add(NewEntry(title: "second"))
        try world.sync(a)
        let seq = try #require(try a.syncLog(a.deviceID)?.seq)
        try a.forgetSentSegments(try a.sentSegmentNumbers())
        try world.backend.delete("heads/" + Head(device: a.deviceID, seq: seq).name)
        try world.backend.delete(LogSegment.path(device: a.deviceID, seq: seq))
        #expect(try world.sync(a).objectsRepaired >= 2)
        #expect(try !Snapshot.list(world.backend).isEmpty)
        try world.sync(b)
        #expect(try world.dump(b) == world.dump(a))
        let c = try world.makeDevice("c")
        _ = try world.syncer(c).restore()
        #expect(try world.dump(c) == world.dump(a))
    }

    /// A segment lost in the middle while the head stayed is not seen by the free check; the
    /// daily look (two listings) finds it, and a no-op sync meanwhile stays one request.
    @Test func theDailyLookFindsALossTheHeadDoesNotShow() throws {
        let world = try SyncWorld(devices: 1)
        let a = world.stores[0]
        try a.add(NewEntry(title: "one"))
        try world.sync(a)
        try a.add(NewEntry(title: "two"))
        try world.sync(a)
        try world.backend.delete(LogSegment.path(device: a.deviceID, seq: 1))
        let counting = CountingBackend(world.backend)
        let quiet = try Syncer(store: a, repository: Repository.open(backend: counting, passphrase: secret("pw"), expectedID: world.repositoryID))
        let before = counting.requests
        #expect(try quiet.sync().objectsRepaired == 0)
        #expect(counting.requests - before == 1)
        try a.recordSelfCheck(at: Date(timeIntervalSinceNow: -Store.selfCheckInterval - 60))
        #expect(try world.sync(a).objectsRepaired == 1)
        #expect(try world.syncer(a).verify(readData: true).problems.isEmpty)
    }

    /// Copies of this device's own segments go once its prune deletes them from the server.
    @Test func aPruneForgetsTheCopiesOfWhatItDeleted() throws {
        let world = try SyncWorld(devices: 1)
        let a = world.stores[0]
        for i in 0..<3 {
            try a.add(NewEntry(title: "e\(i)"))
            try world.sync(a)
        }
        #expect(try a.sentSegmentNumbers() == [1, 2, 3])
        _ = try world.syncer(a).prune()
        #expect(try a.sentSegmentNumbers() == [3], "the newest segment stays on the server, and so does its copy")
    }

    /// `verify` names what is gone; `verify --repair` on a device that holds it puts it back:
    /// its own segment, and a pack another device wrote (a large attachment in several parts
    /// over several packs, beside small ones, one of them deleted since), made again under its
    /// own name with every piece where it was, so no location changes.
    @Test func verifyRepairPutsBackWhatThisDeviceHolds() throws {
        let server = TempDir()
        let world = try SyncWorld(devices: 0, backend: LimitedBackend(LocalBackend(root: server.path + "/repo"), limit: 300_000))
        let a = try world.makeDevice("a"), b = try world.makeDevice("b")
        let entry = try a.add(NewEntry(title: "album"))
        let large = try a.attach(to: entry.id, NewAttachment(path: world.file("l.ogg", pseudoRandomBytes(700_000, seed: 11)), kind: .voice))
        var small: [Media] = []
        for i in 0..<4 { small.append(try a.attach(to: entry.id, NewAttachment(path: world.file("s\(i).jpg", pseudoRandomBytes(20_000, seed: UInt64(20 + i)))))) }
        try world.sync(a)
        try a.remove(mediaID: small[1].id)
        try world.sync(a); try world.sync(b)
        #expect(try world.objects(of: large.blobID, in: a).count >= 3)
        let lost = Set(try ([large] + small).flatMap { try world.objects(of: $0.blobID, in: a) }) .sorted()
        let locations = try ([large] + small).map { try world.remote(of: $0.blobID, in: a) }
        for pack in lost { try world.backend.delete(pack) }
        try world.backend.delete(LogSegment.path(device: a.deviceID, seq: 1))

        let found = try world.syncer(b).verify(readData: false)
        #expect(Set(found.problems.map(\.object)).isSuperset(of: lost + [LogSegment.path(device: a.deviceID, seq: 1)]), "\(found.problems)")
        // b holds every live attachment but not a's log: it puts back the packs.
        let byB = try world.syncer(b).verify(readData: true, repair: true)
        #expect(byB.repaired == lost.count)
        #expect(byB.problems.map(\.object) == [LogSegment.path(device: a.deviceID, seq: 1)], "\(byB.problems)")
        #expect(try ([large] + small).map { try world.remote(of: $0.blobID, in: a) } == locations, "no location moved")
        let byA = try world.syncer(a).verify(readData: true, repair: true)
        #expect(byA.repaired == 1 && byA.problems.isEmpty, "\(byA)")
        let c = try world.makeDevice("c")
        _ = try world.syncer(c).restore()
        #expect(try world.dump(c) == world.dump(a))
        #expect(!c.hasBlob(small[1].blobID) && c.hasBlob(large.blobID))
    }
}
