import Foundation
import Testing
@testable import QuireCrypto
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

/// Attachments in packs and parts, padded objects, server body limits.
@Suite struct TransferTests {
    @Test func bucketsCostUnderOneSixtyFourthAndAreFew() {
        #expect(Padding.size(0) == 0 && Padding.size(1) == 512 && Padding.size(512) == 512 && Padding.size(513) == 1024)
        #expect(Padding.size(16 << 20) == 16 << 20 && Padding.size((16 << 20) + 1) == (16 << 20) + (256 << 10))
        var sizes = Set<Int64>()
        var length: Int64 = 1
        while length < 1 << 34 {
            let padded = Padding.size(length)
            #expect(padded >= length && padded - length < max(512, length / 64 + 1), "\(length) → \(padded)")
            #expect(Padding.size(padded) == padded && Padding.room(padded) == padded)
            #expect(Padding.size(Padding.room(length)) <= length && Padding.room(length) > length - max(512, length / 64 + 1))
            if length < 1 << 20 { sizes.insert(padded) }
            length += 1 + length / 997
        }
        #expect(sizes.count < 900, "a mebibyte of lengths falls into few sizes (\(sizes.count))")
    }

    @Test func theFewestPlaintextBytesFillASealedSize() throws {
        for sealed: Int64 in [46, 1000, 65_536 + 45, 65_536 + 46, 65_536 + 47, 16 << 20, 20_000_000] {
            let fits = try #require(BlobCipher.plaintextSize(fitting: sealed))
            #expect(BlobCipher.sealedSize(plaintextSize: fits) <= sealed && BlobCipher.sealedSize(plaintextSize: fits + 1) > sealed, "\(sealed)")
        }
        #expect(BlobCipher.plaintextSize(fitting: 45) == nil && BlobCipher.plaintextSize(fitting: 46) == 1, "one byte seals to 46")
    }

    func pieces(of blob: (local: String, remote: String, size: Int64), in plan: PackPlan) -> [PackPlan.Piece] {
        plan.packs.flatMap(\.pieces).filter { $0.local == blob.local }.sorted { $0.part < $1.part }
    }

    @Test func plansFillEveryPackButTheLastAndCutLargeAttachmentsByTheirSizeAlone() throws {
        let small = (0..<300).map { (local: "s\($0)", remote: "r\($0)", size: Int64(1000 + $0 * 97)) }
        let photos = (0..<30).map { (local: "p\($0)", remote: "rp\($0)", size: Int64(5 << 20)) }
        let large = [(local: "big", remote: "rbig", size: Int64(50 << 20)), (local: "mid", remote: "rmid", size: Int64(200_000)),
                     (local: "empty", remote: "rempty", size: Int64(0))]
        for limit in [Int64.max, 1 << 20, 128 << 10, 10_000_000] {
            let blobs = large + photos + small
            let plan = try #require(PackPlan(blobs, limit: limit))
            let capacity = min(limit, PackPlan.target)
            for pack in plan.packs { #expect(pack.padded <= capacity && !pack.pieces.isEmpty) }
            // Every attachment is covered exactly once, its parts in order.
            for blob in blobs {
                let pieces = pieces(of: blob, in: plan)
                #expect(pieces.first?.range.lowerBound == 0 && pieces.last?.range.upperBound == blob.size, "\(blob.local)")
                for (a, b) in zip(pieces, pieces.dropFirst()) { #expect(a.range.upperBound == b.range.lowerBound) }
                #expect(pieces.map(\.part) == Array(0..<pieces.count) && pieces.allSatisfy { $0.parts == pieces.count })
                // One too large for a pack is cut at `partSize`, whatever else is planned.
                if blob.size > plan.partSize {
                    #expect(pieces.allSatisfy(\.resumable) && pieces.dropLast().allSatisfy { Int64($0.range.count) == plan.partSize })
                    #expect(pieces.count == Int((blob.size + plan.partSize - 1) / plan.partSize))
                    let alone = try #require(PackPlan([blob], limit: limit))
                    #expect(alone.packs.flatMap(\.pieces) == pieces, "cut the same alone")
                } else {
                    #expect(pieces.allSatisfy { !$0.resumable })
                }
            }
            // What the packs hold, bar the last few, fills them: padding costs little.
            let payload = plan.packs.reduce(0) { $0 + $1.sealed }, stored = plan.packs.reduce(0) { $0 + $1.padded }
            #expect(Double(stored - payload) <= Double(payload) * 0.005 + Double(capacity) / 64 + 8192, "\(limit): \(stored) for \(payload)")
            let gaps = plan.packs.filter { Padding.room(capacity) - $0.sealed > PackPlan.smallestCut * 2 }
            #expect(gaps.count <= 2, "\(limit): \(gaps.count) packs left room")
        }
        let unlimited = try #require(PackPlan(small, limit: .max))
        #expect(unlimited.packs.count == 1, "300 small attachments are one pack")
        #expect(PackPlan(small, limit: 60 << 10) == nil, "not even one chunk fits")
    }

    /// The one 5 MiB photo a day adds goes up in one pack within 2 % of its size.
    @Test func aLonePhotoCostsUnderTwoPercent() throws {
        let plan = try #require(PackPlan([(local: "p", remote: "r", size: 5 << 20)], limit: .max))
        #expect(plan.packs.count == 1)
        #expect(try #require(plan.packs.first).padded <= (5 << 20) + (5 << 20) / 50)
    }

    /// Every object a sync leaves on the server has a bucket's size: the server learns neither
    /// how many attachments there are nor how big each is.
    @Test func everyObjectIsPadded() throws {
        let world = try SyncWorld(devices: 1)
        let a = world.stores[0]
        for i in 0..<12 {
            let e = try a.add(NewEntry(title: "e\(i)", body: String(repeating: "ж", count: i * 300)))
            try a.attach(to: e.id, NewAttachment(path: world.file("a\(i)", pseudoRandomBytes(1000 + i * 9_000, seed: UInt64(i)))))
        }
        try world.sync(a)
        // A sync of text alone: its segment names no attachment, and takes finer steps.
        try a.edit(entryID: try #require(try a.entries().first).id, EntryEdit(body: "a short edit"))
        try world.sync(a)
        _ = try world.syncer(a).prune()
        let root = world.dir.path + "/repo"
        let log = "log/" + a.deviceID + "/"
        var checked = 0
        for path in try FileManager.default.subpathsOfDirectory(atPath: root) {
            guard let size = (try FileManager.default.attributesOfItem(atPath: root + "/" + path))[.size] as? Int64,
                  !path.hasPrefix("keys"), path != "quire-repo.json", !path.hasPrefix("gc"),
                  (try FileManager.default.attributesOfItem(atPath: root + "/" + path))[.type] as? FileAttributeType == .typeRegular else { continue }
            if path.hasPrefix("snapshots/") {
                #expect(Padding.size(size) - size < 17, "\(path): \(size)")  // a stream's chunk tags make a few sizes unreachable
            } else if path.hasPrefix("heads/") {
                #expect(size == 0, "a head is a name: \(path) holds \(size) bytes")
            } else if path == log + String(format: "%012d", 2) {
                #expect(Padding.size(size, floor: Padding.textStep) == size && size < 512, "\(path): \(size)")
            } else {
                #expect(Padding.size(size) == size, "\(path): \(size)")
            }
            checked += 1
        }
        #expect(checked >= 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/packs/" + a.deviceID).count == 1, "12 attachments, one pack")
    }

    /// A server with a body limit (nginx's 1 MiB): Quire learns it from the 413 and fits
    /// every object to it, with nothing to configure.
    @Test func aServersBodyLimitIsLearnedAndFitted() throws {
        let dir = TempDir()
        let limited = LimitedBackend(LocalBackend(root: dir.path + "/repo"), limit: 1 << 20)
        let world = try SyncWorld(devices: 2, backend: limited)
        let (a, b) = (world.stores[0], world.stores[1])
        let e = try a.add(NewEntry(title: "голос", body: String(repeating: "a long entry ", count: 20_000)))
        try a.attach(to: e.id, NewAttachment(path: world.file("v.ogg", pseudoRandomBytes(3 << 20, seed: 7)), kind: .voice, transcript: "длинная запись"))
        for i in 0..<40 {
            let s = try a.add(NewEntry(title: "s\(i)"))
            try a.attach(to: s.id, NewAttachment(path: world.file("p\(i)", pseudoRandomBytes(30_000, seed: UInt64(100 + i)))))
        }
        try world.sync(a)
        let learned = try #require(try a.remoteSettings()?.maxObjectSize)
        #expect(learned <= 1 << 20 && learned >= BlobUploads.smallestObjectLimit)
        #expect(limited.largestStored <= 1 << 20)
        try world.sync(b)
        #expect(try world.dump(b) == world.dump(a))
        let fresh = try world.makeDevice("fresh")
        _ = try world.syncer(fresh).restore()
        #expect(try world.dump(fresh) == world.dump(a))
        #expect(try world.syncer(fresh).verify(readData: true).problems.isEmpty)
        // Learned once: the next push fits at once (no 413 at all).
        let refusals = limited.refusals
        try a.attach(to: e.id, NewAttachment(path: world.file("v2.ogg", pseudoRandomBytes(2 << 20, seed: 8))))
        try world.sync(a)
        #expect(limited.refusals == refusals)
    }

    /// A first sync that died after its packs went up: the next one checks each pack once,
    /// not each of the attachments in it, and uploads nothing again.
    @Test func unconfirmedUploadsAreCheckedOncePerPack() throws {
        let world = try SyncWorld(devices: 1)
        let a = world.stores[0]
        let blobs = try thirtySmallAttachments(in: world)
        let (map, uploaded) = try BlobUploads(context: world.syncer(a).context).upload(blobs.sorted(), known: [:], progress: nil)
        #expect(uploaded == 30 && Set(map.values.compactMap { $0.location?.extents.first?.pack }).count == 1)
        let counting = CountingBackend(world.backend)
        let again = try world.syncer(a, backend: counting)
        let opened = counting.requests
        let (second, secondUploaded) = try BlobUploads(context: again.context).upload(blobs.sorted(), known: [:], progress: nil)
        #expect(secondUploaded == 0 && second == map)
        #expect(counting.requests - opened == 1, "\(counting.requests - opened) requests")
    }

    /// `verify --read-data` downloads a pack of many attachments once, not once per
    /// attachment, and still names the one attachment a damaged byte belongs to.
    @Test func verifyReadsEachPackOnceAndNamesTheDamagedAttachment() throws {
        let world = try SyncWorld(devices: 1)
        let a = world.stores[0]
        let blobs = try thirtySmallAttachments(in: world)
        try world.sync(a)
        let counting = CountingBackend(world.backend)
        let syncer = try world.syncer(a, backend: counting)
        let before = counting.requests
        let clean = try syncer.verify(readData: true)
        #expect(clean.problems.isEmpty && clean.blobsRead == 30)
        let gets = counting.requests - before
        #expect(gets < 10, "\(gets) requests to read 30 attachments in one pack")

        // One byte of one attachment's stretch of the pack flipped: that attachment, and only it.
        let record = try #require(try a.remoteBlobRecord(blobs[7]))
        let remote = record.id
        let extent = try #require(BlobLocation(text: record.location)?.extents.first)
        var pack = try world.backend.getData(extent.pack)
        pack[Int(extent.offset + extent.length / 2)] ^= 1
        try world.backend.putData(extent.pack, pack)
        let damaged = try syncer.verify(readData: true)
        #expect(damaged.problems.count == 1 && damaged.blobsRead == 29)
        #expect(damaged.problems.first?.object == extent.pack)
        #expect(damaged.problems.first?.detail.contains("attachment \(remote.prefix(16)) is damaged") == true)
    }

    /// A cancel (an app's button, the service's SIGTERM) stops a long sync at its next step
    /// with `.cancelled`, and the next sync finishes the job.
    @Test func aCancelledSyncStopsAtTheNextStepAndTheNextSyncFinishes() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        _ = try thirtySmallAttachments(in: world)
        for i in 0..<40 { try a.add(NewEntry(title: "e\(i)", body: String(repeating: "слово ", count: 50))) }
        let counting = CountingBackend(world.backend)
        let syncer = try world.syncer(a, backend: counting)
        syncer.context.options.changesPerSegment = 20
        let asked = Counter()
        syncer.isCancelled = { asked.next() >= 2 }  // the first two steps go, then stop
        #expect { _ = try syncer.sync() } throws: { ($0 as? SyncError)?.kind == .cancelled }
        #expect(try a.hasPendingChanges())
        syncer.isCancelled = { false }
        _ = try syncer.sync()
        #expect(try !a.hasPendingChanges())
        try world.sync(b)
        #expect(try world.dump(b) == world.dump(a))
    }

    /// Segments are made and sent while the packs they name upload (the packs are named
    /// first), but the head that makes them part of the log waits for every pack: a device
    /// syncing while the packs are held back sees nothing of the push, and one syncing after
    /// it gets every attachment.
    @Test func segmentsGoUpWhilePacksUploadButTheHeadWaitsForThem() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        let (syncer, gate) = try gatedPush(in: world, words: "слово ")
        var storedAtFirstSegment: Int?, storedAtHead: Int?, seenMeanwhile: Int?
        syncer.context.checkpoint = { point in
            if point == .segmentPublished && storedAtFirstSegment == nil {
                storedAtFirstSegment = gate.stored
                seenMeanwhile = (try? world.sync(b)).flatMap { _ in try? b.entryCount() }
                gate.open()
            }
            if point == .headPublished { storedAtHead = gate.stored }
        }
        _ = try syncer.sync()
        #expect(!gate.timedOut, "no segment went up while the packs were held back")
        #expect(storedAtFirstSegment == 0)
        #expect(seenMeanwhile == 0, "a device syncing meanwhile sees nothing of the push, and no error")
        #expect(gate.started > 0 && storedAtHead == gate.started, "the head waits for every pack")
        try world.sync(b)
        #expect(try world.dump(b) == world.dump(a))
        let verified = try world.syncer(b).verify(readData: true)
        #expect(verified.problems.isEmpty && verified.blobsRead == 30)
    }

    /// While packs upload, the terminal shows their line (objects, bytes, rate, time left),
    /// not the names of the segments made meanwhile.
    @Test func whilePacksUploadTheirProgressIsTheLineShown() throws {
        let world = try SyncWorld(devices: 1)
        let (syncer, gate) = try gatedPush(in: world, words: "mot ")
        syncer.context.checkpoint = { point in if point == .segmentPublished { gate.open() } }
        var lines: [String] = []
        _ = try syncer.sync { lines.append($0) }
        let packsDone = try #require(lines.lastIndex { $0.hasPrefix("uploading 1/1 objects") }, "\(lines)")
        #expect(!lines[..<packsDone].contains { $0.hasPrefix("pushing") }, "\(lines)")
    }

    /// A push whose packs never arrive after its segments went up (the server refused them,
    /// the client died): those segments name packs that are not there, but no head names
    /// them, so a device syncing meanwhile reads none and fails on nothing, and the next push
    /// overwrites them with segments naming packs that are stored.
    @Test func segmentsWhosePacksNeverArrivedAreNeverReadAndAreOverwritten() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        let (syncer, gate) = try gatedPush(in: world, words: "palabra ")
        // Every segment is made and handed to its upload while the pack is held; then the
        // server refuses the pack. A failed push still waits for the segment uploads under way.
        var made = 0
        syncer.context.checkpoint = { point in
            if point == .segmentsMade { gate.refuse() }
            if point == .segmentPublishStart { made += 1 }
        }
        #expect(throws: PackGate.Refused.self) { try syncer.sync() }
        #expect(gate.stored == 0, "no pack went up")
        let logged = try FileManager.default.contentsOfDirectory(atPath: world.dir.path + "/repo/log/" + a.deviceID)
        #expect(made >= 3 && logged.count == made, "every segment made went up: \(logged.count) of \(made)")
        try world.sync(b)
        #expect(try b.entryCount() == 0)
        try world.sync(a)
        try world.sync(b)
        #expect(try world.dump(b) == world.dump(a))
        let verified = try world.syncer(b).verify(readData: true)
        #expect(verified.problems.isEmpty && verified.blobsRead == 30)
    }

    @Test func aRecordLargerThanAnyObjectTheServerTakesIsOneClearError() throws {
        let dir = TempDir()
        let limited = LimitedBackend(LocalBackend(root: dir.path + "/repo"), limit: 100 << 10)
        let world = try SyncWorld(devices: 1, backend: limited)
        let a = world.stores[0]
        // Letters at random: compressed, still four times what the server takes.
        let letters = Array("abcdefghijklmnopqrstuvwxyzабвгдежзийклмнопрстуфхцчшщэюя")
        try a.add(NewEntry(title: "huge", body: String(pseudoRandomBytes(400_000, seed: 7).map { letters[Int($0) % letters.count] })))
        #expect {
            try world.sync(a)
        } throws: { ($0 as? SyncError)?.kind == .tooLarge && "\($0)".contains("413") }
        #expect(try a.pendingCount() > 0, "nothing is marked pushed")
    }

    /// Repositories written before packs still restore, byte for byte, and the first push of
    /// this Quire moves them to its format without moving their blob objects.
    @Test func aFormat1RepositoryRestoresAndMovesToPacks() throws {
        let repo = try FixtureRepository("repository-format1")
        let (dir, backend) = (repo.dir, repo.backend)
        let id = try Repository.readID(backend)
        let restored = try repo.restore("restored")
        #expect(try repo.differencesFromExpected(restored) == [])
        // A push with an attachment moves the repository to this Quire's format (packs, then
        // compressed segments); the old objects stay.
        let repository = try Repository.open(backend: backend, passphrase: try secret("fixture"), expectedID: id)
        let syncer = Syncer(store: restored, repository: repository)
        let e = try restored.add(NewEntry(title: "after the upgrade"))
        try restored.attach(to: e.id, NewAttachment(path: dir.file("new.bin", "новые байты")))
        _ = try syncer.sync()
        #expect(dir.read("repo/quire-repo.json").contains("\"format\":\(Repository.format)"))
        #expect(try backend.list("blobs").count == 3 && !(try backend.list("packs/" + restored.deviceID)).isEmpty)
        let again = try repo.restore("again")
        #expect(try world(dump: again, dir) == world(dump: restored, dir))
        #expect(try Syncer(store: again, repository: repository).verify(readData: true).problems.isEmpty)
    }

    private func world(dump store: Store, _ dir: TempDir) throws -> String {
        let out = dir.path + "/d-" + UUID().uuidString
        try store.exportJSON(to: out)
        return (try? String(contentsOfFile: out + "/entries.jsonl", encoding: .utf8)) ?? ""
    }
}

/// The first device's syncer over eight worker connections whose pack uploads pass a gate,
/// about to push thirty small attachments (one pack) and forty entries in segments of 20
/// changes.
private func gatedPush(in world: SyncWorld, words: String) throws -> (Syncer, PackGate) {
    let a = world.stores[0]
    _ = try thirtySmallAttachments(in: world)
    for i in 0..<40 { try a.add(NewEntry(title: "e\(i)", body: String(repeating: words, count: 50))) }
    let gate = PackGate()
    let syncer = try world.syncer(a)
    syncer.context.options.changesPerSegment = 20
    syncer.context.workerBackends = (0..<8).map { _ in GatedBackend(LocalBackend(root: world.dir.path + "/repo"), gate: gate) }
    return (syncer, gate)
}

/// Thirty entries with a 4,000-byte attachment each (all of them fit one pack); their blob ids.
private func thirtySmallAttachments(in world: SyncWorld) throws -> [String] {
    let a = world.stores[0]
    return try (0..<30).map { i in
        let e = try a.add(NewEntry(title: "p\(i)"))
        return try a.attach(to: e.id, NewAttachment(path: world.file("p\(i)", pseudoRandomBytes(4000, seed: UInt64(i))))).blobID
    }
}

