import Foundation
import Testing
@testable import QuireCrypto
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

/// Two devices syncing through each real server (Apache in ./scripts/test; nginx and rclone
/// in ./scripts/interop), not only through a folder.
@Suite struct ServerSyncTests {
    @Test(arguments: Backends.names)
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
        #expect(try Syncer(store: a, repository: repository).sync() == SyncReport())
        #expect(counting.requests - before == 1)
        let restored = try world.makeDevice("restored")
        _ = try world.syncer(restored).restore()
        #expect(try world.dump(restored) == world.dump(a))
        #expect(try world.syncer(restored).verify(readData: true).problems.isEmpty)
    }
}
