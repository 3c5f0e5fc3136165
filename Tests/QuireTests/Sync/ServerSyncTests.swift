import Foundation
import Testing
@testable import QuireCrypto
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

/// Two devices syncing through each real server (Apache in ./scripts/test; nginx and rclone
/// in ./scripts/interop), not only through a folder.
@Suite struct ServerSyncTests {
    /// Through a real server with nginx's default 1 MiB body limit: a 3 MiB voice note and a
    /// crowd of photos sync and restore with nothing configured; the limit is learned from
    /// the 413 and every later push fits at once.
    @Test(.enabled(if: !Backends.limitedServers.isEmpty || ProcessInfo.processInfo.environment["QUIRE_REQUIRE_TOOLS"] != nil),
          arguments: Backends.limitedServers.isEmpty ? ["(missing)"] : Backends.limitedServers.map(\.name))
    func aBodyLimitedServerIsLearnedAndFitted(backend name: String) throws {
        try #require(name != "(missing)", "scripts/test starts a server with a 1 MiB body limit: QUIRE_TEST_LIMITED_WEBDAV_URLS")
        let (backend, keep) = try Backends.make(name)
        defer { _ = keep }
        let world = try SyncWorld(devices: 2, backend: backend)
        let (a, b) = (world.stores[0], world.stores[1])
        let e = try a.add(NewEntry(title: "голосовая заметка"))
        try a.attach(to: e.id, NewAttachment(path: world.file("v.ogg", pseudoRandomBytes(3 << 20, seed: 31)), kind: .voice, transcript: "три мегабайта"))
        for i in 0..<30 {
            let s = try a.add(NewEntry(title: "photo \(i)"))
            try a.attach(to: s.id, NewAttachment(path: world.file("p\(i).jpg", pseudoRandomBytes(50_000, seed: UInt64(40 + i)))))
        }
        let syncer = try world.syncer(a)
        syncer.context.workerBackends = try (0..<5).map { _ in try Backends.twin(of: backend) }
        _ = try syncer.sync()
        let learned = try #require(try a.remoteSettings()?.maxObjectSize)
        #expect(learned <= 1 << 20)
        try world.sync(b)
        #expect(try world.dump(b) == world.dump(a))
        #expect(try world.syncer(b).verify(readData: true).problems.isEmpty)
        try b.attach(to: e.id, NewAttachment(path: world.file("v2.ogg", pseudoRandomBytes(2 << 20, seed: 32))))
        try world.sync(b)
        try world.sync(a)
        #expect(try world.dump(b) == world.dump(a))
    }

    @Test(arguments: Backends.syncNames)
    func twoDevicesConvergeThroughTheServer(backend name: String) throws {
        let (backend, keep) = try Backends.make(name)
        defer { _ = keep }
        let world = try SyncWorld(devices: 2, backend: backend)
        let (a, b) = (world.stores[0], world.stores[1])
        try a.importJSONLines(at: InterchangeTests.sampleFile(in: world.dir))
        try world.sync(a)
        try world.sync(b)
        let first = try #require(try b.entries().first)
        try b.edit(entryID: first.id, EntryEdit(title: "edited on B", addTags: ["b"]))
        try a.edit(entryID: first.id, EntryEdit(body: "edited on A"))
        try world.sync(b); try world.sync(a); try world.sync(b)
        #expect(try world.dump(a) == world.dump(b))
        let merged = try #require(try a.entry(id: first.id))
        #expect(merged.title == "edited on B" && merged.body == "edited on A")
        let counting = CountingBackend(backend)
        let repository = try Repository.open(backend: counting, passphrase: try secret("pw"), expectedID: world.repositoryID)
        let before = counting.requests
        #expect(String(describing: try Syncer(store: a, repository: repository).sync()) == String(describing: SyncReport()))
        #expect(counting.requests - before == 1)
        // Editing one entry costs 3 requests (heads, segment, head), and uploads at most
        // twice the entry plus 1 KiB.
        try a.edit(entryID: first.id, EntryEdit(title: "one more edit"))
        let wire = CountingBackend(backend)
        let keys = try #require(try? Repository.open(backend: backend, passphrase: try secret("pw"), expectedID: world.repositoryID).keys)
        let quick = Repository(backend: wire, id: world.repositoryID, keys: keys, keyName: "")
        let (wireBefore, countedBefore) = ((backend as? WebDAVBackend)?.requestCount, wire.requests)
        _ = try Syncer(store: a, repository: quick).sync()
        let sent = wireBefore.map { ((backend as? WebDAVBackend)?.requestCount ?? 0) - $0 } ?? wire.requests - countedBefore
        #expect(sent == 3, "\(sent) requests")
        let entrySize = a.json(of: try #require(try a.entry(id: first.id))).utf8.count
        #expect(wire.bytesUp <= Int64(2 * entrySize + 1024), "\(wire.bytesUp) bytes for a \(entrySize)-byte entry")
        let restored = try world.makeDevice("restored")
        _ = try world.syncer(restored).restore()
        #expect(try world.dump(restored) == world.dump(a))
        #expect(try world.syncer(restored).verify(readData: true).problems.isEmpty)
        // And with background downloads over five more connections, as `quire restore` does.
        let parallel = try world.makeDevice("restored-in-parallel")
        let syncer = try world.syncer(parallel)
        syncer.context.workerBackends = try (0..<5).map { _ in try Backends.twin(of: backend) }
        let report = try syncer.restore()
        #expect(report.blobsDownloaded == 2)
        #expect(try world.dump(parallel) == world.dump(a))
    }

    @Test(arguments: Backends.syncNames)
    func deletedAttachmentsAreCollectedAndAddedAgain(backend name: String) throws {
        let (backend, keep) = try Backends.make(name)
        defer { _ = keep }
        let world = try SyncWorld(devices: 2, backend: backend)
        let (a, b) = (world.stores[0], world.stores[1])
        let big = pseudoRandomBytes(Int(PackPlan.smallSize) * 2, seed: 21)
        let e1 = try a.add(NewEntry(title: "goes")), e2 = try a.add(NewEntry(title: "stays"))
        let gone = try a.attach(to: e1.id, NewAttachment(path: world.file("big.jpg", big)))
        try world.sync(a)  // a pack of its own: collected whole once it is garbage
        let small = try a.attach(to: e2.id, NewAttachment(path: world.file("s.m4a", pseudoRandomBytes(2000, seed: 22)), transcript: "short"))
        try world.sync(a)
        let pulled = try world.sync(b)
        #expect(pulled.blobsDownloaded == 2 && b.hasBlob(small.blobID) && b.hasBlob(gone.blobID))
        try a.remove(entryID: e1.id)
        try world.sync(a); try b.add(NewEntry(title: "b")); try world.sync(b); try world.sync(a)
        let syncer = try world.syncer(a)
        syncer.context.options.collectionGrace = 0
        #expect(try syncer.prune().blobsDeleted == 1)
        let remote = try #require(try world.remote(of: gone.blobID, in: a))
        #expect(remote.location != nil, "attachments are packed")
        #expect(try !syncer.repository.has(remote))   // a ranged GET answered 404
        #expect(try syncer.repository.has(try #require(try world.remote(of: small.blobID, in: a))))
        // The same bytes attached again on B go up again; a restore equals the source.
        try b.attach(to: try b.add(NewEntry(title: "again")).id, NewAttachment(path: world.file("again.jpg", big)))
        #expect(try world.sync(b).blobsUploaded == 1)
        try world.sync(a)
        let restored = try world.makeDevice("restored")
        let restorer = try world.syncer(restored)
        restorer.context.workerBackends = try (0..<5).map { _ in try Backends.twin(of: backend) }
        _ = try restorer.restore()
        #expect(try world.dump(restored) == world.dump(a) && world.dump(a) == world.dump(b))
        #expect(try world.syncer(restored).verify(readData: true).problems.isEmpty)
    }
}
