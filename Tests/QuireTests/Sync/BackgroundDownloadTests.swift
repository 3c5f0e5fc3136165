import Foundation
import Synchronization
import Testing
@testable import QuireCrypto
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync
import QuireSupport

/// Pulls with worker connections: attachments download in the background while segments
/// merge, and a scout reads segments ahead. The result must be what the serial path gives;
/// a sync stops at the segment that needs what failed, a restore names it once every
/// segment is merged.
@Suite struct BackgroundDownloadTests {
    /// One device with `entries` entries, each with its own attachment, pushed as many small
    /// segments. Every third attachment is too large to travel inside its segment, so it is
    /// downloaded (in the background); the others are carried inline.
    func world(entries: Int) throws -> SyncWorld {
        let world = try SyncWorld(devices: 1)
        let a = world.stores[0]
        for i in 0..<entries {
            let entry = try a.add(NewEntry(title: "entry \(i)", body: String(repeating: "текст ", count: i)))
            let size = i % 3 == 0 ? Int(PackPlan.smallSize) + 1000 + i * 37 : 1000 + i * 37
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }
            _ = try a.attach(to: entry.id, NewAttachment(path: world.file("f\(i).bin", bytes), filename: "f\(i).bin"))
        }
        let syncer = try world.syncer(a)
        syncer.context.options.changesPerSegment = 7
        _ = try syncer.sync()
        return world
    }

    func restorer(_ world: SyncWorld, _ store: Store, workers: Int = 8) throws -> Syncer {
        let syncer = try world.syncer(store)
        syncer.context.workerBackends = (0..<workers).map { _ in LocalBackend(root: world.dir.path + "/repo") }
        return syncer
    }

    /// Two workers: one scout, one download connection; five: one scout; eight (the default):
    /// two scouts reading segments at once, handed over in order all the same.
    @Test(arguments: [2, 5, 8])
    func restoreWithWorkersEqualsTheSource(workers: Int) throws {
        let world = try world(entries: 40)
        let fresh = try world.makeDevice("fresh")
        let counting = CountingBackend(world.backend)
        let syncer = try world.syncer(fresh, backend: counting)
        syncer.context.workerBackends = (0..<workers).map { _ in LocalBackend(root: world.dir.path + "/repo") }
        let report = try syncer.restore()
        #expect(report.blobsDownloaded == 40)
        #expect(report.segmentsPulled > 10)
        // The segments the scout reads ahead are handed over (waited for when the scout is
        // still on its way), never fetched again: the merging connection only opens the
        // repository (3 requests) and lists heads and snapshots.
        if workers > 2 { #expect(counting.requests <= 5, "\(counting.requests) requests on the merging connection") }
        #expect(try world.dump(fresh) == world.dump(world.stores[0]))
        #expect(try world.searchRows(fresh) == world.searchRows(world.stores[0]))
        #expect(try fresh.integrityCheck() == "ok")
        let verified = try world.syncer(fresh).verify(readData: true)
        #expect(verified.problems.isEmpty && verified.blobsRead == 40)
        // Nothing is left behind in the store's temporary folder.
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: fresh.blobs.root + "/tmp")) ?? []
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// A restore's merges commit under the rollback journal when the store is its alone
    /// (`Store.mergingUnderRollbackJournal`), and the store is in its log again afterwards;
    /// with another connection open, they stay in the log, which lets that one read.
    @Test(arguments: [false, true])
    func aRestoreMergesUnderTheRollbackJournalWhenTheStoreIsItsAlone(anotherConnection: Bool) throws {
        let world = try world(entries: 12)
        let fresh = try world.makeDevice("fresh")
        let other = anotherConnection ? try Store(folder: fresh.folder) : nil
        let syncer = try restorer(world, fresh, workers: 2)
        let modes = Shared<[String]>([])
        syncer.context.checkpoint = { point in
            if point == .mergeBeforeCommit, let mode = try? fresh.database.journalMode { modes.withLock { $0.append(mode) } }
        }
        _ = try syncer.restore()
        let seen = modes.withLock { $0 }
        #expect(!seen.isEmpty)
        #expect(Set(seen) == [anotherConnection ? "wal" : "delete"], "\(seen)")
        #expect(try fresh.database.journalMode == "wal")
        #expect(try world.dump(fresh) == world.dump(world.stores[0]))
        if let other { #expect(try other.entryCount() == 12) }
    }

    /// A restore commits `changesPerRestoreMerge` changes at a time, not the `changesPerMerge`
    /// of a sync: one commit for the whole log when that is larger, one a segment when it is 1.
    @Test(arguments: [1, 1_000_000])
    func aRestoreMergesAsManyChangesPerCommitAsItsOwnLimit(perRestoreMerge: Int) throws {
        let world = try world(entries: 40)
        let fresh = try world.makeDevice("fresh")
        let syncer = try restorer(world, fresh)
        syncer.context.options.changesPerMerge = perRestoreMerge == 1 ? 1_000_000 : 1
        syncer.context.options.changesPerRestoreMerge = perRestoreMerge
        let commits = Shared(0)
        syncer.context.checkpoint = { point in
            if point == .mergeBeforeCommit { commits.withLock { $0 += 1 } }
        }
        let report = try syncer.restore()
        #expect(report.segmentsPulled > 10)
        #expect(commits.withLock { $0 } == (perRestoreMerge == 1 ? report.segmentsPulled : 1))
        #expect(try world.dump(fresh) == world.dump(world.stores[0]))
    }

    /// A restore that merges its whole log in one transaction sends each segment's search
    /// rows to the index's thread as that segment is merged, not at the commit, so the thread
    /// keeps pace; entries edited in a later segment of the same transaction (their rows sent
    /// already) end with their last text all the same.
    @Test func aRestoresIndexIsFedSegmentBySegmentWithinOneCommit() throws {
        let world = try world(entries: 40)
        let source = world.stores[0]
        let edited = Array(try source.entries().prefix(3))
        for entry in edited { _ = try source.edit(entryID: entry.id, EntryEdit(body: "переписано позже \(entry.title)")) }
        _ = try world.syncer(source).sync()
        let fresh = try world.makeDevice("fresh")
        let syncer = try restorer(world, fresh)
        syncer.context.options.changesPerRestoreMerge = 1_000_000
        let sentBeforeCommit = Shared<Int64>(-1)
        syncer.context.checkpoint = { point in
            if point == .mergeBeforeCommit { sentBeforeCommit.withLock { $0 = fresh.restoreIndex?.sentThrough ?? -1 } }
        }
        let report = try syncer.restore()
        #expect(report.segmentsPulled > 10)
        #expect(sentBeforeCommit.withLock { $0 } > 0, "rows went to the index's thread before the one commit")
        #expect(try world.dump(fresh) == world.dump(source))
        #expect(try world.searchRows(fresh) == world.searchRows(source))
        for entry in edited { #expect(try fresh.search("позже").map(\.id).contains(entry.id)) }
    }

    /// Segments read ahead beyond the limit hold the scout's readers until the merging takes
    /// one: the restore is whole all the same, and a segment the scout could not hold is
    /// fetched by the merging thread itself.
    @Test func aFullReadAheadHoldsTheReadersAndTheRestoreIsStillWhole() throws {
        let world = try world(entries: 40)
        let fresh = try world.makeDevice("fresh")
        let syncer = try restorer(world, fresh)
        syncer.context.options.readAheadLimit = 1  // full after any one segment
        let report = try syncer.restore()
        #expect(report.blobsDownloaded == 40)
        #expect(report.segmentsPulled > 10)
        #expect(try world.dump(fresh) == world.dump(world.stores[0]))
        #expect(try world.searchRows(fresh) == world.searchRows(world.stores[0]))
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: fresh.blobs.root + "/tmp")) ?? []
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// While the key derivation runs, segments after this store's positions, up to each
    /// head, are fetched (as sealed bytes, each handed out once) within the limit; a new
    /// device facing a snapshot fetches none, since it starts from the snapshot.
    @Test func segmentsFetchedDuringTheKeyDerivationAreThoseThePullNeeds() throws {
        let world = try world(entries: 40)
        let device = world.stores[0].deviceID
        let head = try #require(try Heads(context: world.syncer(world.stores[0]).context).read()[device]?.max())
        #expect(head > 5)
        func path(_ seq: Int) -> String { LogSegment.path(device: device, seq: seq) }

        let one = EarlySegments(limit: 1)  // full after one segment
        one.start(over: world.backend, after: [:])
        one.awaitEnd()
        #expect(one.take(path(1)) == (try world.backend.getData(path(1))))
        #expect(one.take(path(1)) == nil)
        #expect(one.take(path(2)) == nil)

        let after = EarlySegments()
        after.start(over: world.backend, after: [device: 3])
        after.awaitEnd()
        #expect(after.take(path(3)) == nil)
        for seq in 4...head { #expect(after.take(path(seq)) == (try world.backend.getData(path(seq)))) }
        #expect(after.take(path(head + 1)) == nil)

        // Over three connections: each segment fetched, once, whichever connection took it.
        let three = EarlySegments()
        three.start(over: (0..<3).map { _ in LocalBackend(root: world.dir.path + "/repo") }, after: [device: 3])
        three.awaitEnd()
        #expect(three.take(path(3)) == nil)
        for seq in 4...head { #expect(three.take(path(seq)) == (try world.backend.getData(path(seq)))) }
        #expect(three.take(path(head + 1)) == nil)

        _ = try world.syncer(world.stores[0]).prune()
        let facingSnapshot = EarlySegments()
        facingSnapshot.start(over: world.backend, after: [:])
        facingSnapshot.awaitEnd()
        #expect((1...head).allSatisfy { facingSnapshot.take(path($0)) == nil })
    }

    /// While the key derivation runs, a device that has merged nothing reads whole packs
    /// (each from its start, in ranged reads) within the limit; a restore then takes its
    /// attachments from them without asking the server, and is the source's journal.
    @Test func packsFetchedDuringTheKeyDerivationServeTheRestore() throws {
        let world = try world(entries: 40)
        let packs = try world.backend.list(Pack.folder).flatMap { device in
            try world.backend.list(Pack.folder + "/" + device.name).map { Pack.folder + "/" + device.name + "/" + $0.name }
        }
        #expect(!packs.isEmpty)
        let total = try packs.reduce(0) { $0 + (try world.backend.getData($1).count) }

        let some = EarlyPacks(limit: 1000, chunk: 300)
        some.start(over: [world.backend, LocalBackend(root: world.dir.path + "/repo")])
        some.awaitEnd()
        #expect(some.bytesHeld >= 1000 && some.bytesHeld < 1000 + 2 * 300, "stops at its limit, a chunk past it at most per connection")

        let all = EarlyPacks(chunk: 64 << 10)
        all.start(over: [world.backend, LocalBackend(root: world.dir.path + "/repo")])
        all.awaitEnd()
        #expect(all.bytesHeld == total)
        for pack in packs {
            let held = try #require(all.window(pack))
            #expect(try held.read(held.start..<held.end) == (try world.backend.getData(pack)) && held.start == 0)
        }

        let fresh = try world.makeDevice("fresh")
        let reads = SmallAttachmentTests.PackReads(world.backend)
        let syncer = try world.syncer(fresh, backend: reads)
        let workers = (0..<4).map { _ in SmallAttachmentTests.PackReads(LocalBackend(root: world.dir.path + "/repo")) }
        syncer.context.workerBackends = workers
        syncer.context.earlyPacks = all
        let report = try syncer.restore()
        #expect(report.blobsDownloaded == 40)
        #expect(reads.packReads.isEmpty && workers.allSatisfy { $0.packReads.isEmpty }, "every attachment came from the held packs")
        #expect(try world.dump(fresh) == world.dump(world.stores[0]))
        #expect(all.bytesHeld == 0 && syncer.context.earlyPacks == nil, "let go once the restore is whole")
    }

    /// The key ready, the packs stop without waiting for the chunk on its way: `stopFetching`
    /// returns while it is held up at the server. The chunk is kept all the same (its bytes
    /// were on the wire), and what reads the held bytes or reuses the connection waits until
    /// it is in: a held pack is never read while it is written, nor a connection used twice.
    @Test func stoppingThePacksDoesNotWaitForTheChunkOnItsWay() throws {
        let world = try world(entries: 40)
        let slow = StalledPackRead(LocalBackend(root: world.dir.path + "/repo"))
        let early = EarlyPacks(chunk: 4096)
        early.start(over: [slow])
        slow.entered.wait()  // the second chunk is on its way, and stays there

        let ended = DispatchSemaphore(value: 0), stopped = DispatchSemaphore(value: 0)
        let total = Mutex(0)
        Thread {
            early.stopFetching()
            early.whenEnded { held in
                total.withLock { $0 = held }
                ended.signal()
            }
            stopped.signal()
        }.start()
        #expect(stopped.wait(timeout: .now() + Hang.limit) == .success, "stopFetching returned while a chunk was under way")

        // The connection, handed on, waits for the chunk before its first request.
        let gated = Owned(early.gated(slow))  // used by that thread alone
        let reused = DispatchSemaphore(value: 0), asking = DispatchSemaphore(value: 0)
        Thread {
            asking.signal()
            _ = try? gated.value.list(Pack.folder)
            reused.signal()
        }.start()
        asking.wait()
        slow.release()
        #expect(reused.wait(timeout: .now() + Hang.limit) == .success)
        #expect(ended.wait(timeout: .now() + Hang.limit) == .success)
        #expect(!slow.usedWhileStalled, "the connection was used while its chunk was still coming")
        #expect(total.withLock { $0 } == 2 * 4096 && early.bytesHeld == 2 * 4096, "the chunk on its way is kept, and no other is asked for")
        let held = try #require(early.window(slow.stalledPack))
        #expect(try held.read(0..<held.end) == (try world.backend.getData(slow.stalledPack)).prefix(2 * 4096))
    }

    /// Holds up the second ranged read of a pack until `release`; notes a request made meanwhile.
    final class StalledPackRead: Backend, @unchecked Sendable {
        let inner: Backend
        let entered = DispatchSemaphore(value: 0)
        private let released = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var packReads = 0, stalled = false, _usedWhileStalled = false, _stalledPack = ""
        var usedWhileStalled: Bool { lock.withLock { _usedWhileStalled } }
        var stalledPack: String { lock.withLock { _stalledPack } }
        init(_ inner: Backend) { self.inner = inner }
        func release() { released.signal() }
        private func note() { lock.withLock { if stalled { _usedWhileStalled = true } } }
        var location: String { inner.location }
        func put(_ path: String, from source: ByteSource) throws { note(); try inner.put(path, from: source) }
        func publish(_ path: String, from source: ByteSource) throws { note(); try inner.publish(path, from: source) }
        func get(_ path: String, range: Range<Int64>?, into sink: ByteSink) throws {
            let stall = lock.withLock { () -> Bool in
                guard path.hasPrefix(Pack.folder + "/"), range != nil else { return false }
                packReads += 1
                guard packReads == 2 else { return false }
                (stalled, _stalledPack) = (true, path)
                return true
            }
            if !stall { note() }
            if stall {
                entered.signal()
                released.wait()
            }
            try inner.get(path, range: range, into: sink)
            if stall { lock.withLock { stalled = false } }
        }
        func list(_ folder: String) throws -> [RemoteEntry] { note(); return try inner.list(folder) }
        func delete(_ path: String) throws { note(); try inner.delete(path) }
        func move(_ from: String, to: String, overwrite: Bool) throws { note(); try inner.move(from, to: to, overwrite: overwrite) }
        func makeFolder(_ path: String) throws { note(); try inner.makeFolder(path) }
    }

    /// Packs read early only in part: an attachment that begins in the held bytes takes
    /// them and asks the server for the rest alone, and a request for the rest begun again
    /// (a retry after a dropped connection) starts the attachment again from the held part.
    @Test func aPackHeldInPartServesThePartAndTheServerTheRest() throws {
        let world = try world(entries: 40)
        let early = EarlyPacks(limit: 150_000, chunk: 7_777)
        early.start(over: [world.backend])
        early.awaitEnd()
        #expect(early.bytesHeld >= 150_000)
        let packs = try world.backend.list(Pack.folder).flatMap { device in
            try world.backend.list(Pack.folder + "/" + device.name).map { Pack.folder + "/" + device.name + "/" + $0.name }
        }
        let heldEnds = Set(packs.compactMap { pack in early.window(pack).map { "\(pack)@\($0.end)" } })
        let fresh = try world.makeDevice("fresh")
        let main = RetriedPackReads(world.backend)
        let syncer = try world.syncer(fresh, backend: main)
        let workers = (0..<4).map { _ in RetriedPackReads(LocalBackend(root: world.dir.path + "/repo")) }
        syncer.context.workerBackends = workers
        syncer.context.earlyPacks = early
        #expect(try syncer.restore().blobsDownloaded == 40)
        #expect(try world.dump(fresh) == world.dump(world.stores[0]))
        // Some attachment began in the held bytes and had only its rest read from the server.
        let reads = ([main] + workers).flatMap(\.reads)
        #expect(reads.contains { heldEnds.contains($0) }, "\(heldEnds) \(reads)")
    }

    /// Every ranged read of a pack sends half its bytes, begins again, then sends them all,
    /// as a request retried after a dropped connection does.
    final class RetriedPackReads: Backend, @unchecked Sendable {
        let inner: Backend
        private let lock = NSLock()
        private var _reads: [String] = []
        /// `pack@start` of each ranged read.
        var reads: [String] { lock.withLock { _reads } }
        init(_ inner: Backend) { self.inner = inner }
        var location: String { inner.location }
        func put(_ path: String, from source: ByteSource) throws { try inner.put(path, from: source) }
        func publish(_ path: String, from source: ByteSource) throws { try inner.publish(path, from: source) }
        func get(_ path: String, range: Range<Int64>?, into sink: ByteSink) throws {
            guard path.hasPrefix(Pack.folder + "/"), let range else { return try inner.get(path, range: range, into: sink) }
            lock.withLock { _reads.append("\(path)@\(range.lowerBound)") }
            let whole = DataSink()
            try inner.get(path, range: range, into: whole)
            try whole.data.prefix(whole.data.count / 2).withUnsafeBytes { try sink.write($0) }
            try sink.reset()
            try whole.data.withUnsafeBytes { try sink.write($0) }
        }
        func list(_ folder: String) throws -> [RemoteEntry] { try inner.list(folder) }
        func delete(_ path: String) throws { try inner.delete(path) }
        func move(_ from: String, to: String, overwrite: Bool) throws { try inner.move(from, to: to, overwrite: overwrite) }
        func makeFolder(_ path: String) throws { try inner.makeFolder(path) }
    }

    /// A restore opened with the passphrase, as on a fresh machine, with the segments
    /// fetched during the key derivation: the same journal as the source.
    @Test func aRestoreUnlockedByPassphraseEqualsTheSource() throws {
        let world = try world(entries: 40)
        let fresh = try world.makeDevice("fresh")
        try fresh.forgetRepository()
        try fresh.setRemote(url: "file://" + world.dir.path + "/repo", user: nil, passwordFile: nil)
        let listings = Listings()
        let syncer = try Syncer.open(store: fresh, connect: { Listings.Recording(LocalBackend(root: world.dir.path + "/repo"), into: listings) },
                                     unlock: .cachedKeyOr(passphrase: { try secret("pw") }))
        let report = try syncer.restore()
        #expect(report.blobsDownloaded == 40)
        #expect(try world.dump(fresh) == world.dump(world.stores[0]))
        #expect(try world.searchRows(fresh) == world.searchRows(world.stores[0]))
        // What was listed while the key was derived is not listed again after it.
        #expect(listings.count(Heads.folder) == 1 && listings.count(Snapshot.folder) == 1, "\(listings.folders)")

        // From a snapshot: `snapshots/` is listed once, early; `heads/` once, by the pull.
        _ = try world.syncer(world.stores[0]).prune()
        let second = try world.makeDevice("second")
        try second.forgetRepository()
        try second.setRemote(url: "file://" + world.dir.path + "/repo", user: nil, passwordFile: nil)
        let fromSnapshot = Listings()
        _ = try Syncer.open(store: second, connect: { Listings.Recording(LocalBackend(root: world.dir.path + "/repo"), into: fromSnapshot) },
                            unlock: .cachedKeyOr(passphrase: { try secret("pw") })).restore()
        #expect(try world.dump(second) == world.dump(world.stores[0]))
        #expect(fromSnapshot.count(Heads.folder) == 1 && fromSnapshot.count(Snapshot.folder) == 1, "\(fromSnapshot.folders)")
    }

    /// The folders listed through any of a syncer's connections.
    final class Listings: @unchecked Sendable {
        private let lock = NSLock()
        private var listed: [String] = []
        var folders: [String] { lock.withLock { listed } }
        func count(_ folder: String) -> Int { folders.filter { $0 == folder }.count }
        fileprivate func add(_ folder: String) { lock.withLock { listed.append(folder) } }

        final class Recording: Backend, @unchecked Sendable {
            let inner: Backend
            let listings: Listings
            init(_ inner: Backend, into listings: Listings) { self.inner = inner; self.listings = listings }
            var location: String { inner.location }
            func put(_ path: String, from source: ByteSource) throws { try inner.put(path, from: source) }
            func publish(_ path: String, from source: ByteSource) throws { try inner.publish(path, from: source) }
            func get(_ path: String, range: Range<Int64>?, into sink: ByteSink) throws { try inner.get(path, range: range, into: sink) }
            func list(_ folder: String) throws -> [RemoteEntry] {
                listings.add(folder)
                return try inner.list(folder)
            }
            func delete(_ path: String) throws { try inner.delete(path) }
            func move(_ from: String, to: String, overwrite: Bool) throws { try inner.move(from, to: to, overwrite: overwrite) }
            func makeFolder(_ path: String) throws { try inner.makeFolder(path) }
        }
    }

    /// A restore merges every segment without waiting for the attachments they name; an
    /// attachment missing on the server is named once they are merged, and everything else
    /// (the text, its index, the other attachments) is in by then.
    @Test func aMissingAttachmentIsNamedOnceEverySegmentIsMergedAndAResumeFinishes() throws {
        let world = try world(entries: 30)
        let source = world.stores[0]
        // Remove from the server the pack of the last attachment the segments name.
        let device = source.deviceID
        let head = try #require(source.syncLogs()[device]?.seq)
        let repository = try Repository.open(backend: world.backend, passphrase: try secret("pw"), expectedID: world.repositoryID)
        var downloaded: [(local: String, pack: String)] = []
        for seq in 1...head {
            let path = LogSegment.path(device: device, seq: seq)
            let segment = try LogSegment.decode(try repository.box.open(try world.backend.getData(path), path: path), path: path)
            for change in segment.changes where change.record == .media && change.field == "blob" {
                guard let local = change.value.string, segment.inline[local] == nil, let blob = segment.remote(local) else { continue }
                downloaded.append((local, blob.object))
            }
        }
        let pack = try #require(downloaded.last?.pack)
        let lost = downloaded.filter { $0.pack == pack }.map(\.local)
        #expect(pack.hasPrefix("packs/") && !lost.isEmpty)
        let object = world.dir.path + "/repo/" + pack
        let saved = try Data(contentsOf: URL(fileURLWithPath: object))
        try FileManager.default.removeItem(atPath: object)

        let fresh = try world.makeDevice("fresh")
        #expect {
            _ = try restorer(world, fresh).restore()
        } throws: { error in
            (error as? SyncError)?.kind == .missing && (error as? SyncError)?.object == pack
        }
        // Every segment is merged and the text is searchable; only what the pack held is lacking.
        #expect(try fresh.syncLogs()[device]?.seq == head)
        #expect(try Set(fresh.lackingRemoteBlobs().map(\.local)) == Set(lost))
        #expect(try fresh.integrityCheck() == "ok")
        #expect(try world.searchRows(fresh) == world.searchRows(source))
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: fresh.blobs.root + "/tmp")) ?? []
        #expect(leftovers.isEmpty, "\(leftovers)")

        // Once the server has it again, the same restore called again finishes the job (the
        // library's own resumable restore, which `quire restore` calls).
        try saved.write(to: URL(fileURLWithPath: object))
        #expect(try fresh.restoringFrom() != nil)
        _ = try restorer(world, fresh).restore()
        #expect(try world.dump(fresh) == world.dump(source))
        #expect(try fresh.lackingRemoteBlobs().isEmpty)
        #expect(try fresh.restoringFrom() == nil && fresh.lastSync() != nil)
        #expect(try world.searchRows(fresh) == world.searchRows(source))
        #expect(try fresh.search("entry").count == 30)
    }

    /// A damaged segment stops the restore there: what came before it is merged (the
    /// full-text index not built yet: it is built once, when the merges are done), and a
    /// resume once the server is mended finishes with an index equal to the source's.
    @Test func aDamagedSegmentStopsTheMergeThereAndAResumeBuildsTheWholeIndex() throws {
        let world = try world(entries: 30)
        let source = world.stores[0]
        let device = source.deviceID
        let head = try #require(source.syncLogs()[device]?.seq)
        let damagedSeq = head / 2
        let path = LogSegment.path(device: device, seq: damagedSeq)
        let object = world.dir.path + "/repo/" + path
        let saved = try Data(contentsOf: URL(fileURLWithPath: object))
        var bytes = saved
        bytes[bytes.count / 2] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: object))

        let fresh = try world.makeDevice("fresh")
        #expect {
            _ = try restorer(world, fresh).restore()
        } throws: { error in
            (error as? SyncError)?.kind == .damaged && (error as? SyncError)?.object == path
        }
        #expect(try fresh.syncLogs()[device]?.seq == damagedSeq - 1)
        #expect(try fresh.entryCount() > 0)
        #expect(try world.searchRows(fresh).isEmpty)
        #expect(try fresh.integrityCheck() == "ok")
        // The indexes a restore makes at its end are away meanwhile, their definitions kept.
        func indexes(_ store: Store) throws -> [String] {
            try store.database.prepare("SELECT name || ': ' || sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
                .rows { $0.text(0) }
        }
        let whole = try indexes(source)
        #expect(Store.indexesMadeAfterFirstImport.allSatisfy { name in whole.contains { $0.hasPrefix(name + ": ") } })
        #expect(try indexes(fresh) == whole.filter { line in !Store.indexesMadeAfterFirstImport.contains { line.hasPrefix($0 + ": ") } })

        // Resumed by a store opened anew, as another process would.
        try saved.write(to: URL(fileURLWithPath: object))
        let reopened = try Store(folder: fresh.folder, options: Store.Options())
        _ = try restorer(world, reopened).restore()
        #expect(try world.dump(reopened) == world.dump(source))
        #expect(try world.searchRows(reopened) == world.searchRows(source))
        #expect(try reopened.search("текст").count == source.search("текст").count)
        #expect(try indexes(reopened) == whole)
        #expect(try reopened.integrityCheck() == "ok")
        #expect(try reopened.meta("restoring_indexes") == nil)
        let left = try FileManager.default.contentsOfDirectory(atPath: reopened.folder).filter { $0.hasPrefix(ScratchIndexFile.prefix) }
        #expect(left.isEmpty, "the first run's index file is gone: \(left)")
        // Dates find what they find in the source (through entries by date).
        let dates = try source.entries().map(\.created).sorted()
        let since = EntryFilter(from: dates[dates.count / 2])
        #expect(try reopened.entries(matching: since).map(\.id) == source.entries(matching: since).map(\.id))
    }

    @Test func aRestoreFromASnapshotDownloadsWhileItMerges() throws {
        let world = try world(entries: 30)
        let source = world.stores[0]
        let pruned = try world.syncer(source).prune()
        #expect(pruned.segmentsDeleted > 0)
        try source.add(NewEntry(title: "after the snapshot"))
        _ = try world.sync(source)
        let fresh = try world.makeDevice("fresh")
        let report = try restorer(world, fresh).restore()
        #expect(try world.dump(fresh) == world.dump(source))
        #expect(try fresh.integrityCheck() == "ok")
        #expect(report.segmentsPulled == 1, "the snapshot covers everything but the last segment")
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: fresh.blobs.root + "/tmp")) ?? []
        #expect(leftovers.isEmpty, "\(leftovers)")

        // An attachment the snapshot names but the server lost: a named error, nothing left behind.
        let media = try #require(source.entries().flatMap(\.media).first { $0.size > PackPlan.smallSize })
        let object = try #require(try world.objects(of: media.blobID, in: source).first)
        try FileManager.default.removeItem(atPath: world.dir.path + "/repo/" + object)
        let other = try world.makeDevice("other")
        #expect {
            _ = try restorer(world, other).restore()
        } throws: { error in
            (error as? SyncError)?.kind == .missing && (error as? SyncError)?.object == object
        }
        let left = (try? FileManager.default.contentsOfDirectory(atPath: other.blobs.root + "/tmp")) ?? []
        #expect(left.isEmpty, "\(left)")
    }

    @Test func damagedSegmentsAheadAreLeftToTheMergingThreadToName() throws {
        let world = try world(entries: 20)
        let device = world.stores[0].deviceID
        let damaged = world.dir.path + "/repo/" + LogSegment.path(device: device, seq: 5)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: damaged))
        bytes[bytes.count / 2] ^= 0x55
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let fresh = try world.makeDevice("fresh")
        #expect {
            _ = try restorer(world, fresh).restore()
        } throws: { error in
            (error as? SyncError)?.kind == .damaged && (error as? SyncError)?.object == LogSegment.path(device: device, seq: 5)
        }
        #expect(try fresh.syncLogs()[device]?.seq == 4, "segments before the damaged one are merged")
    }

    @Test func thePrefetcherHandsOutFilesOnceAndCleansUp() throws {
        let world = try world(entries: 6)
        let source = world.stores[0]
        let repository = try Repository.open(backend: world.backend, passphrase: try secret("pw"), expectedID: world.repositoryID)
        let target = try world.makeDevice("target")
        let blobs = target.blobs
        let prefetcher = BlobPrefetcher(pool: WorkerPool([repository])) { try blobs.temporaryPath() }
        let media = try source.entries().flatMap(\.media)
        for item in media {
            let record = try #require(try source.remoteBlobRecord(item.blobID))
            let remote = RemoteBlob(id: record.id, location: BlobLocation(text: record.location))
            prefetcher.request(local: item.blobID, remote: remote)
            prefetcher.request(local: item.blobID, remote: remote)  // asked twice: fetched once
        }
        prefetcher.request(local: String(repeating: "0", count: 64), remote: RemoteBlob(id: String(repeating: "f", count: 64)))
        let first = try #require(media.first)
        guard case .success(let path) = prefetcher.take(first.blobID) else { Issue.record("not downloaded"); return }
        #expect(try SHA256.hex(of: Data(contentsOf: URL(fileURLWithPath: path))) == first.blobID)
        if case .success = prefetcher.take(first.blobID) { Issue.record("handed out twice") }
        guard case .failure(let error) = prefetcher.take(String(repeating: "0", count: 64)) else { Issue.record("no error"); return }
        #expect((error as? SyncError)?.kind == .missing)
        unlink(path)
        prefetcher.close()
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: target.blobs.root + "/tmp")) ?? []
        #expect(leftovers.isEmpty, "files nobody took are removed on close: \(leftovers)")
    }
}

@Suite struct SegmentMapTests {
    @Test func theBlobMapRoundTrips() throws {
        let segment = LogSegment(device: "d", seq: 3, previous: "p",
                              changes: [SyncChange(record: .entry, recordID: "e", field: "title", value: .string("x"), hlc: HLC(rawValue: 5),
                                                   device: "d", previousHLC: HLC(rawValue: 0), previousDevice: "")],
                              blobs: ["aa": "11", "bb": "22"])
        let decoded = try LogSegment.decode(segment.encoded(), path: "p")
        #expect(decoded.blobs == ["aa": "11", "bb": "22"])
        #expect(decoded.toDownload == ["aa": RemoteBlob(id: "11"), "bb": RemoteBlob(id: "22")])
    }

    @Test func inlineAttachmentsAreLeftOutOfTheMapToDownloadAndChecked() throws {
        var segment = LogSegment(device: "d", seq: 1, previous: "", changes: [], blobs: ["aa": "11", "bb": "22"])
        segment.inline = ["aa": Data([0, 1, 2, 255])]
        let data = segment.encoded()
        let decoded = try LogSegment.decode(data, path: "p")
        #expect(decoded.toDownload == ["bb": RemoteBlob(id: "22")], "the scout does not ask for what the segment carries")
        #expect(decoded.inline == ["aa": Data([0, 1, 2, 255])])
        // A segment without inline attachments is encoded exactly as before they existed.
        let plain = String(decoding: LogSegment(device: "d", seq: 1, previous: "", changes: [], blobs: ["aa": "11"]).encoded(), as: UTF8.self)
        #expect(!plain.contains("inline"))
        // Inline bytes for a blob the map does not name, or that are not base64: damaged.
        for bad in [#"{"blobs": {}, "blobs_inline": {"aa": "AAEC"}, "changes": [], "device": "d", "format": 1, "previous": "", "seq": 1}"#,
                    #"{"blobs": {"aa": "11"}, "blobs_inline": {"aa": "!!"}, "changes": [], "device": "d", "format": 1, "previous": "", "seq": 1}"#] {
            #expect { try LogSegment.decode(Data(bad.utf8), path: "p") } throws: { ($0 as? SyncError)?.kind == .damaged }
        }
    }

    @Test func packedLocationsLeadAndAreChecked() throws {
        let id = String(repeating: "ab", count: 32)
        let pack = "packs/" + UUID().uuidString.lowercased() + "/" + String(repeating: "c", count: 32)
        var segment = LogSegment(device: "d", seq: 1, previous: "", changes: [], blobs: ["aa": id])
        let location = BlobLocation(extents: [.init(pack: pack, offset: 0, length: 100), .init(pack: pack, offset: 100, length: 7)])
        segment.packed = [id: location]
        let data = segment.encoded()
        let decoded = try LogSegment.decode(data, path: "p")
        #expect(decoded.toDownload == ["aa": RemoteBlob(id: id, location: location)])
        #expect(decoded.packed == [id: location])
        // A location that is not a pack, or has impossible numbers: damaged.
        for bad in ["[[\"../keys/x\", 0, 1]]", "[[\"\(pack)\", -1, 1]]", "[[\"\(pack)\", 0, 1e300]]", "[]"] {
            let text = #"{"blobs": {"aa": "\#(id)"}, "blobs_packed": {"\#(id)": \#(bad)}, "changes": [], "device": "d", "format": 1, "previous": "", "seq": 1}"#
            #expect { try LogSegment.decode(Data(text.utf8), path: "p") } throws: { ($0 as? SyncError)?.kind == .damaged }
        }
    }
}

/// Each byte once: small attachments travel in their pack alone, never also inside the
/// segment or snapshot that names them (Quires before this one carried copies; those are
/// still read: the frozen format-2 repository has them). A restore reads small attachments
/// a stretch of a pack at a time, so they cost a few requests, not one each.
@Suite struct SmallAttachmentTests {
    let helper = BackgroundDownloadTests()

    /// Records the ranged and whole GETs of pack objects made through it.
    final class PackReads: Backend, @unchecked Sendable {
        let inner: Backend
        private let lock = NSLock()
        private var reads: [String] = []
        /// Hears each pack read too, for a test that waits on one.
        private let observed: ObservedReads?
        init(_ inner: Backend, observed: ObservedReads? = nil) { self.inner = inner; self.observed = observed }
        var packReads: [String] { lock.withLock { reads } }
        var location: String { inner.location }
        func put(_ path: String, from source: ByteSource) throws { try inner.put(path, from: source) }
        func publish(_ path: String, from source: ByteSource) throws { try inner.publish(path, from: source) }
        func get(_ path: String, range: Range<Int64>?, into sink: ByteSink) throws {
            guard path.hasPrefix(Pack.folder + "/") else { return try inner.get(path, range: range, into: sink) }
            lock.withLock { reads.append(path) }
            observed?.record(range.map { Int($0.count) } ?? -1)
            try inner.get(path, range: range, into: sink)
        }
        func list(_ folder: String) throws -> [RemoteEntry] { try inner.list(folder) }
        func delete(_ path: String) throws { try inner.delete(path) }
        func move(_ from: String, to: String, overwrite: Bool) throws { try inner.move(from, to: to, overwrite: overwrite) }
        func makeFolder(_ path: String) throws { try inner.makeFolder(path) }
    }

    func segments(_ world: SyncWorld) throws -> [LogSegment] {
        let repository = try Repository.open(backend: world.backend, passphrase: try secret("pw"), expectedID: world.repositoryID)
        let device = world.stores[0].deviceID
        return try (1...(try #require(world.stores[0].syncLogs()[device]?.seq))).map { seq in
            let path = LogSegment.path(device: device, seq: seq)
            return try LogSegment.decode(try repository.box.open(try world.backend.getData(path), path: path), path: path)
        }
    }

    @Test func noSegmentCarriesACopyOfAnAttachment() throws {
        let world = try helper.world(entries: 30)
        let segments = try segments(world)
        #expect(segments.count >= 4)
        #expect(segments.allSatisfy { $0.inline.isEmpty })
        #expect(segments.reduce(0) { $0 + $1.blobs.count } == 30, "each names its attachments")
    }

    /// Thirty attachments (twenty small, ten past 64 KiB, 0.7 MiB in one pack) come in one
    /// pack read over the worker connections, not thirty; without workers, one read each.
    /// Their ids, random under the repository's key, order the queue differently each run:
    /// a window grown in queue order took three to seven reads.
    @Test(arguments: [0, 5])
    func aRestoreReadsSmallAttachmentsAStretchOfAPackAtATime(workers: Int) throws {
        let world = try helper.world(entries: 30)
        let fresh = try world.makeDevice("fresh")
        let own = PackReads(world.backend)
        let syncer = try world.syncer(fresh, backend: own)
        let connections = (0..<workers).map { _ in PackReads(LocalBackend(root: world.dir.path + "/repo")) }
        syncer.context.workerBackends = connections
        let report = try syncer.restore()
        #expect(report.blobsDownloaded == 30)
        #expect(try world.dump(fresh) == world.dump(world.stores[0]))
        #expect(try fresh.integrityCheck() == "ok")
        let reads = own.packReads.count + connections.reduce(0) { $0 + $1.packReads.count }
        if workers == 0 {
            #expect(reads == 30, "\(reads)")
        } else {
            #expect(reads == 1, "\(reads) pack reads for 30 attachments")
        }
        #expect(try world.syncer(fresh).verify(readData: true).problems.isEmpty)
    }

    /// A restore asks for the small attachments it leaves to its end before it builds the
    /// search index, so they download while the index is built: when the index step begins,
    /// a worker reads their pack (waited for; without the overlap, nothing reads it then and
    /// the wait fails at its limit).
    @Test func smallAttachmentsDownloadWhileTheIndexIsBuilt() throws {
        let world = try SyncWorld(devices: 1)
        let source = world.stores[0]
        for i in 0..<12 {
            let entry = try source.add(NewEntry(title: "день \(i)", body: String(repeating: "слово ", count: 50 + i)))
            let bytes = (0..<(2000 + i * 100)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) }
            _ = try source.attach(to: entry.id, NewAttachment(path: world.file("s\(i).bin", bytes), filename: "s\(i).bin"))
        }
        _ = try world.syncer(source).sync()
        let fresh = try world.makeDevice("fresh")
        let observed = ObservedReads()
        let syncer = try world.syncer(fresh)
        syncer.context.workerBackends = (0..<3).map { _ in PackReads(LocalBackend(root: world.dir.path + "/repo"), observed: observed) }
        var readWhenIndexing: Int?
        let report = try syncer.restore { line in
            guard line == "building the search index", readWhenIndexing == nil else { return }
            observed.waitFor(reads: 1)
            readWhenIndexing = observed.count
        }
        #expect(try #require(readWhenIndexing) >= 1, "no pack was read when the index began")
        #expect(report.blobsDownloaded == 12)
        #expect(try world.dump(fresh) == world.dump(source))
        #expect(try world.searchRows(fresh) == world.searchRows(source))
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: fresh.blobs.root + "/tmp")) ?? []
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// A snapshot names small attachments with their places and carries none of them: a
    /// restore from it reads them from their packs, and a restore with the packs gone names
    /// the pack that is missing.
    @Test func aSnapshotNamesSmallAttachmentsAndTheirPacksHoldThem() throws {
        let world = try helper.world(entries: 30)
        let source = world.stores[0]
        #expect(try world.syncer(source).prune().segmentsDeleted > 0)
        for workers in [0, 5] {
            let fresh = try world.makeDevice("fresh\(workers)")
            _ = try helper.restorer(world, fresh, workers: workers).restore()
            #expect(try world.dump(fresh) == world.dump(source))
            let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: fresh.blobs.root + "/tmp")) ?? []
            #expect(leftovers.isEmpty, "\(leftovers)")
        }
        // The small ones' pack gone: the restore names it; back again, the restore finishes.
        let small = try #require(try source.entries().flatMap(\.media).first { $0.size <= PackPlan.smallSize })
        let pack = try #require(try world.objects(of: small.blobID, in: source).first)
        let object = world.dir.path + "/repo/" + pack
        let saved = try Data(contentsOf: URL(fileURLWithPath: object))
        try world.backend.delete(pack)
        let fresh = try world.makeDevice("without")
        #expect {
            _ = try helper.restorer(world, fresh, workers: 5).restore()
        } throws: { ($0 as? SyncError)?.kind == .missing && ($0 as? SyncError)?.object == pack }
        try saved.write(to: URL(fileURLWithPath: object))
        _ = try helper.restorer(world, fresh, workers: 5).restore()
        #expect(try world.dump(fresh) == world.dump(source))
        #expect(try fresh.lackingRemoteBlobs().isEmpty)
    }

    @Test func aTranscriptEditDoesNotSendTheRecordingAgain() throws {
        let world = try SyncWorld(devices: 1)
        let a = world.stores[0]
        let e = try a.add(NewEntry(title: "voice"))
        let voice = try a.attach(to: e.id, NewAttachment(path: world.file("v.ogg", pseudoRandomBytes(3000)), kind: .voice, transcript: "one"))
        let syncer = try world.syncer(a)
        _ = try syncer.sync()
        try a.setTranscript(mediaID: voice.id, text: "two")
        let report = try syncer.sync()
        #expect(report.segmentsPushed == 1)
        let path = LogSegment.path(device: a.deviceID, seq: try #require(a.syncLogs()[a.deviceID]?.seq))
        let segment = try LogSegment.decode(try syncer.repository.box.open(try world.backend.getData(path), path: path), path: path)
        #expect(segment.blobs[voice.blobID] != nil && segment.inline.isEmpty, "a transcript edit does not send the recording again")
    }
}
