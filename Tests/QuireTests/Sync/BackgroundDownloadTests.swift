import Foundation
import Testing
@testable import QuireCrypto
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

/// Pulls with worker connections: attachments download in the background while segments
/// merge, and a scout reads segments ahead. The result must be what the serial path gives,
/// and a failure must stop at the segment that needs what failed.
@Suite struct BackgroundDownloadTests {
    /// One device with `entries` entries, each with its own attachment, pushed as many small
    /// segments. Every third attachment is too large to travel inside its segment, so it is
    /// downloaded (in the background); the others are carried inline.
    func world(entries: Int) throws -> SyncWorld {
        let world = try SyncWorld(devices: 1)
        let a = world.stores[0]
        for i in 0..<entries {
            let entry = try a.add(NewEntry(title: "entry \(i)", body: String(repeating: "текст ", count: i)))
            let size = i % 3 == 0 ? Int(Segment.inlineLimit) + 1000 + i * 37 : 1000 + i * 37
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }
            _ = try a.attach(to: entry.id, NewAttachment(path: world.file("f\(i).bin", bytes), filename: "f\(i).bin"))
        }
        let syncer = try world.syncer(a)
        syncer.changesPerSegment = 7
        _ = try syncer.sync()
        return world
    }

    func restorer(_ world: SyncWorld, _ store: Store, workers: Int = 5) throws -> Syncer {
        let syncer = try world.syncer(store)
        syncer.workerBackends = (0..<workers).map { _ in LocalBackend(root: world.dir.path + "/repo") }
        return syncer
    }

    @Test(arguments: [2, 5])
    func restoreWithWorkersEqualsTheSource(workers: Int) throws {
        let world = try world(entries: 40)
        let fresh = try world.makeDevice("fresh")
        let report = try restorer(world, fresh, workers: workers).restore()
        #expect(report.blobsDownloaded == 40)
        #expect(report.segmentsPulled > 10)
        #expect(try world.dump(fresh) == world.dump(world.stores[0]))
        #expect(try fresh.integrityCheck() == "ok")
        let verified = try world.syncer(fresh).verify(readData: true)
        #expect(verified.problems.isEmpty && verified.blobsRead == 40)
        // Nothing is left behind in the store's temporary folder.
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: fresh.blobs.root + "/tmp")) ?? []
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test func aMissingAttachmentStopsAtTheSegmentThatNeedsItAndAResumeFinishes() throws {
        let world = try world(entries: 30)
        let source = world.stores[0]
        // Remove from the server an attachment named by the last segment that names any.
        let device = source.deviceID
        let repository = try Repository.open(backend: world.backend, passphrase: try secret("pw"), expectedID: world.repositoryID)
        var found: (seq: Int, local: String, remote: String)?
        var seq = try #require(source.syncLogs()[device]?.seq)
        while found == nil && seq > 0 {
            let path = Segment.path(device: device, seq: seq)
            let segment = try Segment.decode(try repository.box.open(try world.backend.getData(path), path: path), path: path)
            if let first = segment.changes.first(where: { $0.record == .media && $0.field == "blob"
                                                           && segment.inline[$0.value.string ?? ""] == nil })?.value.string,
               let remote = segment.blobs[first] {
                found = (seq, first, remote)
            }
            seq -= 1
        }
        let missing = try #require(found)
        let remote = missing.remote
        let object = world.dir.path + "/repo/" + Repository.blobPath(remote)
        let saved = try Data(contentsOf: URL(fileURLWithPath: object))
        try FileManager.default.removeItem(atPath: object)

        let fresh = try world.makeDevice("fresh")
        #expect {
            _ = try restorer(world, fresh).restore()
        } throws: { error in
            (error as? SyncError)?.kind == .missing && (error as? SyncError)?.object == Repository.blobPath(remote)
        }
        // Every segment before the one that names it is merged; the attachment is not there.
        #expect(try fresh.syncLogs()[device]?.seq == missing.seq - 1)
        #expect(!fresh.hasBlob(missing.local))
        #expect(try fresh.integrityCheck() == "ok")
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: fresh.blobs.root + "/tmp")) ?? []
        #expect(leftovers.isEmpty, "\(leftovers)")

        // Once the server has it again, pulling again finishes the restore.
        try saved.write(to: URL(fileURLWithPath: object))
        var report = SyncReport()
        try restorer(world, fresh).pullForRestore(into: &report)
        #expect(try world.dump(fresh) == world.dump(source))
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
        let media = try #require(source.entries().flatMap(\.media).first { $0.size > Segment.inlineLimit })
        let remote = try #require(try source.remoteBlob(media.blobID)?.id)
        try FileManager.default.removeItem(atPath: world.dir.path + "/repo/" + Repository.blobPath(remote))
        let other = try world.makeDevice("other")
        #expect {
            _ = try restorer(world, other).restore()
        } throws: { error in
            (error as? SyncError)?.kind == .missing && (error as? SyncError)?.object == Repository.blobPath(remote)
        }
        let left = (try? FileManager.default.contentsOfDirectory(atPath: other.blobs.root + "/tmp")) ?? []
        #expect(left.isEmpty, "\(left)")
    }

    @Test func damagedSegmentsAheadAreLeftToTheMergingThreadToName() throws {
        let world = try world(entries: 20)
        let device = world.stores[0].deviceID
        let damaged = world.dir.path + "/repo/" + Segment.path(device: device, seq: 5)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: damaged))
        bytes[bytes.count / 2] ^= 0x55
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let fresh = try world.makeDevice("fresh")
        #expect {
            _ = try restorer(world, fresh).restore()
        } throws: { error in
            (error as? SyncError)?.kind == .damaged && (error as? SyncError)?.object == Segment.path(device: device, seq: 5)
        }
        #expect(try fresh.syncLogs()[device]?.seq == 4, "segments before the damaged one are merged")
    }

    @Test func thePrefetcherHandsOutFilesOnceAndCleansUp() throws {
        let world = try world(entries: 6)
        let source = world.stores[0]
        let repository = try Repository.open(backend: world.backend, passphrase: try secret("pw"), expectedID: world.repositoryID)
        let target = try world.makeDevice("target")
        let prefetcher = BlobPrefetcher(workers: [repository]) { try target.blobs.temporaryPath() }
        let media = try source.entries().flatMap(\.media)
        for item in media {
            let remote = try #require(try source.remoteBlob(item.blobID)?.id)
            prefetcher.request(local: item.blobID, remote: remote)
            prefetcher.request(local: item.blobID, remote: remote)  // asked twice: fetched once
        }
        prefetcher.request(local: String(repeating: "0", count: 64), remote: String(repeating: "f", count: 64))
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
    @Test func theBlobMapIsReadWithoutTheChanges() throws {
        let segment = Segment(device: "d", seq: 3, previous: "p",
                              changes: [SyncChange(record: .entry, recordID: "e", field: "title", value: .string("x"), hlc: HLC(rawValue: 5),
                                                   device: "d", previousHLC: HLC(rawValue: 0), previousDevice: "")],
                              blobs: ["aa": "11", "bb": "22"])
        let data = segment.encoded()
        #expect(Segment.blobMap(data) == ["aa": "11", "bb": "22"])
        #expect(try Segment.decode(data, path: "p").blobs == ["aa": "11", "bb": "22"])
        #expect(Segment.blobMap(Data("{\"changes\": []}".utf8)) == nil)
        #expect(Segment.blobMap(Data("not json".utf8)) == nil)
        let member = Array("{\"a\": [1, 2], \"b\": garbage".utf8).withUnsafeBufferPointer { try? JSONValue.firstMember($0) }
        #expect(member?.key == "a" && member?.value == .array([.number(1), .number(2)]))
        let two = Array("{\"a\": 1 , \"b\": \"x\", \"c\": garbage".utf8).withUnsafeBufferPointer { try? JSONValue.leadingMembers($0, count: 2) }
        #expect(two?.map(\.key) == ["a", "b"] && two?.last?.value == .string("x"))
    }

    @Test func inlineAttachmentsAreLeftOutOfTheMapToDownloadAndChecked() throws {
        var segment = Segment(device: "d", seq: 1, previous: "", changes: [], blobs: ["aa": "11", "bb": "22"])
        segment.inline = ["aa": Data([0, 1, 2, 255])]
        let data = segment.encoded()
        #expect(Segment.blobMap(data) == ["bb": "22"], "the scout does not ask for what the segment carries")
        #expect(try Segment.decode(data, path: "p").inline == ["aa": Data([0, 1, 2, 255])])
        // A segment without inline attachments is encoded exactly as before they existed.
        let plain = String(decoding: Segment(device: "d", seq: 1, previous: "", changes: [], blobs: ["aa": "11"]).encoded(), as: UTF8.self)
        #expect(!plain.contains("inline"))
        // Inline bytes for a blob the map does not name, or that are not base64: damaged.
        for bad in [#"{"blobs": {}, "blobs_inline": {"aa": "AAEC"}, "changes": [], "device": "d", "format": 1, "previous": "", "seq": 1}"#,
                    #"{"blobs": {"aa": "11"}, "blobs_inline": {"aa": "!!"}, "changes": [], "device": "d", "format": 1, "previous": "", "seq": 1}"#] {
            #expect { try Segment.decode(Data(bad.utf8), path: "p") } throws: { ($0 as? SyncError)?.kind == .damaged }
        }
    }
}

/// Small attachments travel inside the segment (and the snapshot) that first names them, so
/// pulling them costs no request each; the blob objects stay what the repository keeps.
@Suite struct InlineAttachmentTests {
    let helper = BackgroundDownloadTests()

    /// Removes from the server every blob object the segments carry inline; returns their paths.
    func removeCarriedBlobObjects(_ world: SyncWorld) throws -> [String] {
        let repository = try Repository.open(backend: world.backend, passphrase: try secret("pw"), expectedID: world.repositoryID)
        let device = world.stores[0].deviceID
        var removed: [String] = []
        for seq in 1...(try #require(world.stores[0].syncLogs()[device]?.seq)) {
            let path = Segment.path(device: device, seq: seq)
            guard let sealed = try? world.backend.getData(path) else { continue }
            let segment = try Segment.decode(try repository.box.open(sealed, path: path), path: path)
            for local in segment.inline.keys {
                let object = Repository.blobPath(try #require(segment.blobs[local]))
                try world.backend.delete(object)
                removed.append(object)
            }
        }
        return removed
    }

    @Test(arguments: [0, 5])
    func aRestoreTakesSmallAttachmentsFromTheSegments(workers: Int) throws {
        let world = try helper.world(entries: 30)
        let removed = try removeCarriedBlobObjects(world)
        #expect(removed.count == 20, "every attachment under the limit was carried")
        let fresh = try world.makeDevice("fresh")
        let counting = CountingBackend(world.backend)
        let syncer = try world.syncer(fresh, backend: counting)
        syncer.workerBackends = (0..<workers).map { _ in LocalBackend(root: world.dir.path + "/repo") }
        let report = try syncer.restore()
        #expect(report.blobsDownloaded == 30)
        #expect(try world.dump(fresh) == world.dump(world.stores[0]))
        #expect(try fresh.integrityCheck() == "ok")
        // Besides the segments, one request per large attachment and a few to start.
        if workers == 0 { #expect(counting.requests <= report.segmentsPulled + 10 + 5) }
        // The blob objects are the repository's: verify names the ones that went.
        let problems = try world.syncer(fresh).verify(readData: false).problems.map(\.object)
        #expect(Set(problems) == Set(removed))
    }

    @Test func aSnapshotCarriesSmallAttachmentsToo() throws {
        let world = try helper.world(entries: 30)
        let source = world.stores[0]
        #expect(try world.syncer(source).prune().segmentsDeleted > 0)
        // Remove every small blob object: a restore from the snapshot needs none of them.
        var removed = 0
        for media in try source.entries().flatMap(\.media) where media.size <= Segment.inlineLimit {
            try world.backend.delete(Repository.blobPath(try #require(try source.remoteBlobID(media.blobID))))
            removed += 1
        }
        #expect(removed == 20)
        for workers in [0, 5] {
            let fresh = try world.makeDevice("fresh\(workers)")
            let syncer = try helper.restorer(world, fresh, workers: workers)
            _ = try syncer.restore()
            #expect(try world.dump(fresh) == world.dump(source))
            #expect(try fresh.entries().flatMap(\.media).allSatisfy { fresh.hasBlob($0.blobID) })
            let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: fresh.blobs.root + "/tmp")) ?? []
            #expect(leftovers.isEmpty, "\(leftovers)")
        }
    }

    @Test func onlyAttachmentsNamedAnewTravelInline() throws {
        let world = try SyncWorld(devices: 1)
        let a = world.stores[0]
        let e = try a.add(NewEntry(title: "voice"))
        let voice = try a.attach(to: e.id, NewAttachment(path: world.file("v.ogg", pseudoRandomBytes(3000)), kind: .voice, transcript: "one"))
        let syncer = try world.syncer(a)
        _ = try syncer.sync()
        try a.setTranscript(mediaID: voice.id, text: "two")
        let report = try syncer.sync()
        #expect(report.segmentsPushed == 1)
        let path = Segment.path(device: a.deviceID, seq: try #require(a.syncLogs()[a.deviceID]?.seq))
        let segment = try Segment.decode(try syncer.repository.box.open(try world.backend.getData(path), path: path), path: path)
        #expect(segment.blobs[voice.blobID] != nil && segment.inline.isEmpty, "a transcript edit does not send the recording again")
    }
}
