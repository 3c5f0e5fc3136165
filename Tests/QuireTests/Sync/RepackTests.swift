import Foundation
import Testing
@testable import QuireCrypto
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

/// `prune` repacks packs that are mostly garbage: the live attachments move to new packs,
/// every device learns the new locations, and the old pack is collected only once none can
/// still point at it.
@Suite struct RepackTests {
    /// Ten 4,000-byte attachments of ten entries on device 0, synced everywhere (one pack);
    /// then seven of the entries deleted and that synced too. Returns the live blob ids and
    /// the pack.
    func mostlyGarbagePack(_ world: SyncWorld) throws -> (live: [String], pack: String) {
        let a = world.stores[0]
        var entries: [String] = [], blobs: [String] = []
        for i in 0..<10 {
            let e = try a.add(NewEntry(title: "фото \(i)"))
            entries.append(e.id)
            blobs.append(try a.attach(to: e.id, NewAttachment(path: world.file("p\(i)", pseudoRandomBytes(4000, seed: UInt64(100 + i))))).blobID)
        }
        try world.sync(a)
        let packs = try Set(blobs.flatMap { try world.objects(of: $0, in: a) })
        #expect(packs.count == 1)
        for store in world.stores.dropFirst() { try world.sync(store) }
        for id in entries.prefix(7) { try a.remove(entryID: id) }
        // Every device has a head (a device without one falls back to the snapshot instead).
        try everyoneSyncs(world, note: "heads")
        return (Array(blobs.suffix(3)), try #require(packs.first))
    }

    /// Each device pushes something, so its head says how far it merged (prune reads that).
    func everyoneSyncs(_ world: SyncWorld, note: String) throws {
        for store in world.stores { try world.sync(store) }
        for (i, store) in world.stores.enumerated() { try store.add(NewEntry(title: "\(note) \(i)")); try world.sync(store) }
        for store in world.stores { try world.sync(store) }
    }

    func generation(_ world: SyncWorld, _ blob: String, in store: Store) throws -> Int? {
        try world.remote(of: blob, in: store)?.location?.generation
    }

    @Test func aPackMostlyGarbageIsRepackedAndCollectedWithoutLoss() throws {
        let world = try SyncWorld(devices: 3)
        let (a, b) = (world.stores[0], world.stores[1])
        let (live, old) = try mostlyGarbagePack(world)
        let syncer = try world.syncer(a)
        syncer.context.options.collectionGrace = 0
        let first = try syncer.prune()
        #expect(first.packsRepacked == 1)
        // Moved: a new pack of this device, a generation up; the old pack waits.
        for blob in live {
            #expect(try world.objects(of: blob, in: a) != [old])
            #expect(try generation(world, blob, in: a) == 1)
        }
        #expect(try world.backend.getData(old).count > 0)
        // Every device takes the new locations from the announcement.
        try everyoneSyncs(world, note: "after repack")
        for store in world.stores.dropFirst() {
            for blob in live { #expect(try world.remote(of: blob, in: store) == world.remote(of: blob, in: a)) }
        }
        let second = try syncer.prune()
        #expect(second.packsRepacked == 0 && second.blobsDeleted >= 1)
        #expect(throws: RemoteError.self) { _ = try world.backend.getData(old) }
        // Nothing lost: a new device restores everything, byte for byte, and verify agrees.
        let fresh = try world.makeDevice("fresh")
        _ = try world.syncer(fresh).restore()
        #expect(try world.dump(fresh) == world.dump(a) && world.dump(b) == world.dump(a))
        for blob in live { #expect(fresh.hasBlob(blob)) }
        let verify = try world.syncer(fresh).verify(readData: true)
        #expect(verify.problems.isEmpty, "\(verify.problems)")
    }

    /// A device offline across the repack still points at the old pack: it is not collected
    /// until that device has merged the announcement, and then the device finds its
    /// attachments at the new place.
    @Test func theOldPackStaysUntilEveryDeviceHeardOfTheMove() throws {
        let world = try SyncWorld(devices: 3)
        let (a, c) = (world.stores[0], world.stores[2])
        let (live, old) = try mostlyGarbagePack(world)
        let syncer = try world.syncer(a)
        syncer.context.options.collectionGrace = 0
        #expect(try syncer.prune().packsRepacked == 1)
        // C stays away while A and B sync, write and prune again.
        for round in 0..<2 {
            for store in world.stores.prefix(2) { try store.add(NewEntry(title: "r\(round)")); try world.sync(store) }
            try world.sync(a)
            _ = try syncer.prune()
        }
        #expect(try world.backend.getData(old).count > 0, "collected while C still pointed at it")
        #expect(try world.objects(of: live[0], in: c) == [old])
        // C comes back: it takes the new locations, and then the old pack can go.
        try world.sync(c)
        for blob in live { #expect(try generation(world, blob, in: c) == 1) }
        try everyoneSyncs(world, note: "c is back")
        _ = try syncer.prune()
        #expect(throws: RemoteError.self) { _ = try world.backend.getData(old) }
        #expect(try world.syncer(c).verify(readData: true).problems.isEmpty)
    }

    /// Two devices repack the same pack before hearing of each other's repack: every device
    /// keeps the same copy in the end, and the other becomes garbage like any.
    @Test func twoDevicesRepackingOnePackKeepTheSameCopy() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        let (live, old) = try mostlyGarbagePack(world)
        let (pa, pb) = (try world.syncer(a), try world.syncer(b))
        pa.context.options.collectionGrace = 0
        pb.context.options.collectionGrace = 0
        #expect(try pa.prune().packsRepacked == 1)
        #expect(try pb.prune().packsRepacked == 1)  // b has not pulled a's announcement
        let copies = try Set(world.objects(of: live[0], in: a) + world.objects(of: live[0], in: b))
        #expect(copies.count == 2 && !copies.contains(old))
        try everyoneSyncs(world, note: "converge")
        for blob in live { #expect(try world.remote(of: blob, in: a) == world.remote(of: blob, in: b)) }
        let kept = try Set(world.objects(of: live[0], in: a))
        _ = try pa.prune()
        _ = try pa.prune()
        for pack in copies.union([old]).subtracting(kept) {
            #expect(throws: RemoteError.self, "\(pack)") { _ = try world.backend.getData(pack) }
        }
        let fresh = try world.makeDevice("fresh")
        _ = try world.syncer(fresh).restore()
        #expect(try world.dump(fresh) == world.dump(a))
        #expect(try world.syncer(fresh).verify(readData: true).problems.isEmpty)
    }

    /// Interrupted after uploading the new pack but before announcing it: nothing moved here,
    /// the new pack is unnamed garbage, and the next prune repacks.
    @Test func aRepackInterruptedBeforeItsAnnouncementMovesNothing() throws {
        let world = try SyncWorld(devices: 2)
        let a = world.stores[0]
        let (live, old) = try mostlyGarbagePack(world)
        let failing = try world.syncer(a, backend: FailingBackend(world.backend) { $0.hasPrefix("log/") })
        #expect(throws: RemoteError.self) { _ = try failing.prune() }
        for blob in live { #expect(try world.objects(of: blob, in: a) == [old] && generation(world, blob, in: a) == 0) }
        let packs = try world.backend.list(Pack.folder + "/" + a.deviceID).filter { !$0.isFolder }
        #expect(packs.count == 2)  // the old pack and the unnamed new one
        let syncer = try world.syncer(a)
        #expect(try syncer.prune().packsRepacked == 1)
        try everyoneSyncs(world, note: "after")
        syncer.context.options.collectionGrace = 0
        _ = try syncer.prune()
        _ = try syncer.prune()
        let left = try world.backend.list(Pack.folder + "/" + a.deviceID).filter { !$0.isFolder }.map { Pack.folder + "/" + a.deviceID + "/" + $0.name }
        let named = try Set(live.flatMap { try world.objects(of: $0, in: a) })
        #expect(Set(left) == named)
        #expect(try world.syncer(world.stores[1]).verify(readData: true).problems.isEmpty)
    }

    /// Locations converge whatever order a device hears of them in; a later generation wins
    /// over a stale one, and equal generations are decided the same way everywhere.
    @Test func locationsConvergeInAnyOrder() throws {
        let dir = TempDir()
        let blob = String(repeating: "ab", count: 32)
        let pack = { (c: Character) in "packs/" + "00000000-0000-4000-8000-000000000000/" + String(repeating: c, count: 32) }
        let l0 = BlobLocation(extents: [.init(pack: pack("1"), offset: 0, length: 10)])
        let l1a = BlobLocation(extents: [.init(pack: pack("2"), offset: 0, length: 10)], generation: 1)
        let l1b = BlobLocation(extents: [.init(pack: pack("3"), offset: 0, length: 10)], generation: 1)
        let orders = [[l0, l1a, l1b], [l1b, l0, l1a], [l1a, l1b, l0], [l1b, l1a, l0]]
        var results = Set<String>()
        for (n, order) in orders.enumerated() {
            let store = try makeStore(dir, name: "s\(n)")
            for location in order { try store.setRemoteBlobs([(blob, "r", location.text)], confirmed: true) }
            results.insert(try #require(try store.remoteBlobRecord(blob)?.location))
            #expect(try store.remoteBlobGeneration(blob) == 1)
        }
        #expect(results == [max(l1a.text, l1b.text)])
        #expect(BlobLocation(text: l1a.text) == l1a && BlobLocation(text: l0.text) == l0)
        #expect(BlobLocation(json: .object(["g": .number(0), "e": l0.json])) == nil)  // generation 0 has one form only
    }
}

/// A backend that refuses the writes `fails` picks, as a server that went away would.
final class FailingBackend: Backend, @unchecked Sendable {
    let inner: Backend
    let fails: @Sendable (String) -> Bool
    init(_ inner: Backend, fails: @escaping @Sendable (String) -> Bool) { self.inner = inner; self.fails = fails }
    var location: String { inner.location }
    private func check(_ path: String) throws {
        if fails(path) { throw RemoteError(.unreachable, path: path, detail: "the server went away") }
    }
    func put(_ path: String, from source: ByteSource) throws { try check(path); try inner.put(path, from: source) }
    func publish(_ path: String, from source: ByteSource) throws { try check(path); try inner.publish(path, from: source) }
    func get(_ path: String, range: Range<Int64>?, into sink: ByteSink) throws { try inner.get(path, range: range, into: sink) }
    func list(_ folder: String) throws -> [RemoteEntry] { try inner.list(folder) }
    func delete(_ path: String) throws { try inner.delete(path) }
    func move(_ from: String, to: String, overwrite: Bool) throws { try inner.move(from, to: to, overwrite: overwrite) }
    func makeFolder(_ path: String) throws { try inner.makeFolder(path) }
}
