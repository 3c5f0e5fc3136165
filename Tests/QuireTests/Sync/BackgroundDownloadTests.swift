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
    /// One device with `entries` entries, each with its own attachment, pushed as many small segments.
    func world(entries: Int) throws -> SyncWorld {
        let world = try SyncWorld(devices: 1)
        let a = world.stores[0]
        for i in 0..<entries {
            let entry = try a.add(NewEntry(title: "entry \(i)", body: String(repeating: "текст ", count: i)))
            let bytes = (0..<(1000 + i * 37)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }
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
            if let first = segment.changes.first(where: { $0.record == .media && $0.field == "blob" })?.value.string,
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
        let media = try #require(source.entries().first?.media.first)
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
    }
}
