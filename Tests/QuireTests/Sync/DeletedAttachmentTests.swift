import Foundation
import Testing
@testable import QuireCrypto
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

/// Attachments of deleted entries and attachments are collected: their files leave every
/// store, their blobs leave the server once every device has merged the deletion, and
/// nothing a live record needs ever goes — even when the same bytes are attached again.
@Suite struct DeletedAttachmentTests {
    /// Does the server hold blob `local` (by this store's repository id for it)?
    func onServer(_ world: SyncWorld, _ store: Store, _ local: String) throws -> Bool {
        guard let remote = try world.remote(of: local, in: store) else { return false }
        return try world.syncer(store).repository.has(remote)
    }

    @Test func deletingAnEntryOrAnAttachmentFreesItsFileButNotSharedBytes() throws {
        let world = try SyncWorld(devices: 1)
        let a = world.stores[0]
        let shared = world.file("shared.jpg", pseudoRandomBytes(6000, seed: 1))
        let e1 = try a.add(NewEntry(title: "one")), e2 = try a.add(NewEntry(title: "two"))
        let photo = try a.attach(to: e1.id, NewAttachment(path: shared))
        let sameBytes = try a.attach(to: e2.id, NewAttachment(path: shared))
        let voice = try a.attach(to: e2.id, NewAttachment(path: world.file("v.m4a", pseudoRandomBytes(9000, seed: 2)), transcript: "hello"))
        #expect(photo.blobID == sameBytes.blobID)
        try a.remove(entryID: e1.id)
        #expect(a.hasBlob(photo.blobID), "entry two still shows the same bytes")
        try a.remove(mediaID: voice.id)
        #expect(!a.hasBlob(voice.blobID))
        try a.remove(entryID: e2.id)
        #expect(!a.hasBlob(photo.blobID))
        #expect(try a.integrityCheck() == "ok")
        // A file left behind (a crash between commit and removal) goes with the next sweep.
        let stray = try a.attach(to: try a.add(NewEntry(title: "three")).id, NewAttachment(path: world.file("s", pseudoRandomBytes(100, seed: 3))))
        try a.database.execute("UPDATE media SET deleted = 1 WHERE id = '\(stray.id)'")
        #expect(a.hasBlob(stray.blobID))
        // So do temporary files a crash left, once they are a day old (younger ones may
        // belong to a download or attachment still running).
        let old = try a.blobs.temporaryPath(), young = try a.blobs.temporaryPath()
        for path in [old, young] { #expect(FileManager.default.createFile(atPath: path, contents: Data([1]))) }
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-2 * 86400)], ofItemAtPath: old)
        #expect(try a.collectUnneededBlobFiles() == 1)
        #expect(!a.hasBlob(stray.blobID))
        #expect(!FileManager.default.fileExists(atPath: old) && FileManager.default.fileExists(atPath: young))
    }

    @Test func aFailedWriteKeepsTheFilesItWouldHaveFreed() throws {
        let world = try SyncWorld(devices: 1)
        let a = world.stores[0]
        let e = try a.add(NewEntry(title: "one"))
        let photo = try a.attach(to: e.id, NewAttachment(path: world.file("p", pseudoRandomBytes(500, seed: 4))))
        // An import that deletes the attachment (the line lists none) and then fails.
        let file = world.file("bad.jsonl", Array("""
            {"id": "\(e.id)", "created": "2026-01-01T00:00:00Z", "title": "one", "body": "", "media": []}
            {"not": "an entry"}

            """.utf8))
        #expect(throws: StoreError.self) { try a.importJSONLines(at: file) }
        #expect(a.hasBlob(photo.blobID))
        #expect(try a.entry(id: e.id)?.media.count == 1)
    }

    @Test func pruneCollectsTheBlobsOfDeletedRecordsOnceEveryDeviceMergedTheDeletion() throws {
        let world = try SyncWorld(devices: 3)
        let (a, b, c) = (world.stores[0], world.stores[1], world.stores[2])
        let e1 = try a.add(NewEntry(title: "gone with its photo")), e2 = try a.add(NewEntry(title: "stays"))
        // Each pushed on its own, so each is a pack of its own (a pack goes only when all of
        // it is unneeded).
        let photo = try a.attach(to: e1.id, NewAttachment(path: world.file("p.jpg", pseudoRandomBytes(7000, seed: 5))))
        try world.sync(a)
        let voice = try a.attach(to: e2.id, NewAttachment(path: world.file("v.ogg", pseudoRandomBytes(8000, seed: 6)), transcript: "привет"))
        try world.sync(a)
        let kept = try a.attach(to: e2.id, NewAttachment(path: world.file("k.png", pseudoRandomBytes(3000, seed: 7))))
        try world.sync(a)
        for s in [b, c] { try s.add(NewEntry(title: "head of \(s.deviceID.prefix(4))")); try world.sync(s) }  // each has a head
        // A deletes an entry and an attachment; B merges the deletion, C is offline.
        try a.remove(entryID: e1.id)
        try a.remove(mediaID: voice.id)
        try world.sync(a)
        try b.add(NewEntry(title: "b again")); try world.sync(b)
        #expect(!b.hasBlob(photo.blobID) && !b.hasBlob(voice.blobID) && b.hasBlob(kept.blobID))
        let syncer = try world.syncer(a)
        syncer.context.options.collectionGrace = 0
        let early = try syncer.prune()
        #expect(early.blobsDeleted == 0 && early.blobsMarked == 2, "C has not merged the deletion yet")
        #expect(try onServer(world, a, photo.blobID) && onServer(world, a, voice.blobID))
        // C comes back: it still has both, merges the deletion, and its head says so.
        #expect(c.hasBlob(photo.blobID))
        try c.add(NewEntry(title: "c back")); try world.sync(c)
        #expect(!c.hasBlob(photo.blobID) && !c.hasBlob(voice.blobID))
        try world.sync(a)
        let report = try syncer.prune()
        #expect(report.blobsDeleted == 2)
        #expect(try !onServer(world, a, photo.blobID) && !onServer(world, a, voice.blobID) && onServer(world, a, kept.blobID))
        // Nothing anyone needs went: every device syncs, a new one restores, all verify clean.
        let fresh = try world.makeDevice("fresh")
        _ = try world.syncer(fresh).restore()
        for s in [b, c] { try world.sync(s) }
        for s in [a, b, c, fresh] {
            #expect(try world.dump(s) == world.dump(a))
            let problems = try world.syncer(s).verify(readData: true).problems
            #expect(problems.isEmpty, "\(problems)")
        }
        #expect(fresh.hasBlob(kept.blobID) && !fresh.hasBlob(photo.blobID))
        // The deleted records are still known (tombstones), without their bytes.
        #expect(try fresh.database.cached("SELECT count(*) FROM media WHERE deleted = 1").first { $0.int(0) } == 1)
    }

    @Test func theSameBytesAttachedAgainAfterACollectionAreUploadedAgain() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        let bytes = pseudoRandomBytes(5000, seed: 8)
        let e1 = try a.add(NewEntry(title: "first home"))
        let photo = try a.attach(to: e1.id, NewAttachment(path: world.file("p.jpg", bytes)))
        try world.sync(a); try world.sync(b)
        try a.remove(entryID: e1.id)
        try world.sync(a); try b.add(NewEntry(title: "b")); try world.sync(b); try world.sync(a)
        let syncer = try world.syncer(a)
        syncer.context.options.collectionGrace = 0
        #expect(try syncer.prune().blobsDeleted == 1)
        // B downloaded the photo once and its repository id is still known there; attaching
        // the same bytes again must not trust that.
        let e2 = try b.add(NewEntry(title: "second home"))
        try b.attach(to: e2.id, NewAttachment(path: world.file("again.jpg", bytes)))
        let pushed = try world.sync(b)
        #expect(pushed.blobsUploaded == 1)
        try world.sync(a)
        #expect(a.hasBlob(photo.blobID))
        #expect(try world.dump(a) == world.dump(b))
        #expect(try world.syncer(a).verify(readData: true).problems.isEmpty)
        // While the server still has a blob named anew, nothing is uploaded: one small read.
        let e3 = try a.add(NewEntry(title: "third home"))
        try a.attach(to: e3.id, NewAttachment(path: world.file("third.jpg", bytes)))
        #expect(try world.sync(a).blobsUploaded == 0)
    }

    @Test func anEntryThatComesBackBringsItsAttachmentsBack() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        let e = try a.add(NewEntry(title: "lost and found"))
        let voice = try a.attach(to: e.id, NewAttachment(path: world.file("v.m4a", pseudoRandomBytes(6000, seed: 9)), transcript: "うみ"))
        try world.sync(a); try world.sync(b)
        let backup = world.dir.path + "/backup"
        try a.exportJSON(to: backup)
        try a.remove(entryID: e.id)
        try world.sync(a); try b.add(NewEntry(title: "b")); try world.sync(b); try world.sync(a)
        let syncer = try world.syncer(a)
        syncer.context.options.collectionGrace = 0
        #expect(try syncer.prune().blobsDeleted == 1)
        // The backup brings the entry (and its attachment's bytes) back on A.
        try a.importJSONLines(at: backup + "/entries.jsonl")
        #expect(try a.entry(id: e.id)?.media.map(\.id) == [voice.id])
        #expect(try world.sync(a).blobsUploaded == 1)
        try world.sync(b)
        #expect(b.hasBlob(voice.blobID))
        #expect(try world.dump(b) == world.dump(a))
        #expect(try b.search("うみ").count == 1)
    }

    @Test func aSegmentNamingABlobCollectedAfterItsRecordWasDeletedStillMerges() throws {
        let world = try SyncWorld(devices: 3)
        let (a, b, c) = (world.stores[0], world.stores[1], world.stores[2])
        let e = try a.add(NewEntry(title: "e"))
        let voice = try a.attach(to: e.id, NewAttachment(path: world.file("v", pseudoRandomBytes(4000, seed: 10)), transcript: "one"))
        try world.sync(a); try world.sync(b); try world.sync(c)
        // B edits the transcript and pushes before it hears of A's deletion: its segment names
        // the blob. C merges the deletion first; then the blob is collected.
        try a.remove(mediaID: voice.id); try world.sync(a)
        try world.sync(c)
        #expect(!c.hasBlob(voice.blobID))
        try b.setTranscript(mediaID: voice.id, text: "two")
        let pusher = try world.syncer(b).context
        _ = try PushEngine.push(pusher, heads: try Heads(context: pusher).read())
        for object in try world.objects(of: voice.blobID, in: a) { try world.backend.delete(object) }
        try world.sync(c)   // the blob is missing, but nothing live here needs it
        try world.sync(b); try world.sync(a)
        #expect(try world.dump(a) == world.dump(b) && world.dump(b) == world.dump(c))
        // A live record whose blob is missing still stops the merge, naming the object, and
        // merges nothing of its segment.
        let e2 = try b.add(NewEntry(title: "live"))
        let photo = try b.attach(to: e2.id, NewAttachment(path: world.file("p", pseudoRandomBytes(Int(PackPlan.smallSize) + 1, seed: 11))))
        try world.sync(b)
        let object = try #require(try world.objects(of: photo.blobID, in: b).first)
        try world.backend.delete(object)
        #expect { try world.sync(c) } throws: { ($0 as? SyncError)?.kind == .missing && ($0 as? SyncError)?.object == object }
        #expect(try c.entry(id: e2.id) == nil)
    }

    @Test func aReplayMeetingAnAttachmentOfAnEntryDeletedElsewhereFinishes() throws {
        // B attaches to A's entry while A deletes it; B merges the deletion before it pushes,
        // so its segment carries the attachment without its blob. A device replaying B's log
        // before A's (device ids sort that way here) meets the attachment on a placeholder
        // entry, live for a moment: the replay must go on, and end with both deleted.
        let world = try SyncWorld(devices: 0)
        var a = try world.makeDevice("a"), b = try world.makeDevice("b")
        while b.deviceID > a.deviceID { (a, b) = (b, try world.makeDevice("b\(UUID().uuidString.prefix(4))")) }
        let e = try a.add(NewEntry(title: "shared"))
        try world.sync(a); try world.sync(b)
        let photo = try b.attach(to: e.id, NewAttachment(path: world.file("p.jpg", pseudoRandomBytes(Int(PackPlan.smallSize) + 10, seed: 12))))
        try a.remove(entryID: e.id)
        try world.sync(a); try world.sync(b); try world.sync(a)
        #expect(!b.hasBlob(photo.blobID) && !a.hasBlob(photo.blobID))
        let fresh = try world.makeDevice("fresh")
        _ = try world.syncer(fresh).restore()
        #expect(try world.dump(fresh) == world.dump(a) && world.dump(a) == world.dump(b))
        #expect(try fresh.entries().isEmpty)
    }
}
