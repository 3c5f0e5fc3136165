import Foundation
import Testing
@testable import QuireStore

/// Every mutation records exactly the fields it changed, in the same transaction.
@Suite struct ChangeTrackingTests {
    @Test func addRecordsEveryFieldOfTheNewEntryAndItsJournal() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        let entry = try store.add(NewEntry(journal: "Dreams", title: "t", body: "b", tags: ["b", "a"]))
        #expect(try fieldsChanged(store, since: .zero) == [
            "journal.name", "entry.journal", "entry.title", "entry.body", "entry.created", "entry.modified",
            "entry.starred", "entry.location", "entry.tag:a", "entry.tag:b",
        ])
        let changes = try store.changes(since: .zero)
        #expect(changes.allSatisfy { $0.device == store.deviceID })
        #expect(Set(changes.filter { $0.record == "entry" }.map(\.recordID)) == [entry.id])
    }

    @Test func eachEditRecordsOnlyWhatChanged() throws {
        let dir = TempDir()
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let entry = try store.add(NewEntry(title: "t", body: "b", tags: ["keep", "drop"]))
        func after(_ edit: EntryEdit) throws -> Set<String> {
            clock.advance(1)
            let before = try store.lastClock()
            try store.edit(entryID: entry.id, edit)
            return try fieldsChanged(store, since: before)
        }
        #expect(try after(EntryEdit(title: "new title")) == ["entry.title", "entry.modified"])
        #expect(try after(EntryEdit(body: "new body")) == ["entry.body", "entry.modified"])
        #expect(try after(EntryEdit(title: "new title")) == [])  // same value: nothing written
        #expect(try after(EntryEdit(addTags: ["new"], removeTags: ["drop"])) == ["entry.tag:new", "entry.tag:drop", "entry.modified"])
        #expect(try after(EntryEdit(created: ts("2020-01-01T00:00:00+05:30"))) == ["entry.created", "entry.modified"])
        #expect(try after(EntryEdit(journal: "Work")) == ["journal.name", "entry.journal", "entry.modified"])
        #expect(try after(EntryEdit(starred: true)) == ["entry.starred", "entry.modified"])

        clock.advance(1)
        let before = try store.lastClock()
        try store.remove(entryID: entry.id)
        #expect(try fieldsChanged(store, since: before) == ["entry.deleted"])
        #expect(try store.entry(id: entry.id) == nil)
    }

    @Test func attachAndTranscriptRecordMediaFields() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        let entry = try store.add(NewEntry(title: "voice"))
        let audio = dir.file("note.m4a", bytes: [0, 1, 2, 3])
        var before = try store.lastClock()
        let media = try store.attach(to: entry.id, NewAttachment(path: audio, transcript: "hello"))
        #expect(try fieldsChanged(store, since: before) == [
            "media.entry", "media.position", "media.kind", "media.blob", "media.filename", "media.mime",
            "media.duration", "media.transcript", "media.segments", "media.transcriber", "media.transcribedTo",
        ])
        #expect(media.kind == .voice && media.mime == "audio/mp4" && media.transcript == "hello")

        before = try store.lastClock()
        try store.setTranscript(mediaID: media.id, text: "hello world")
        #expect(try fieldsChanged(store, since: before) == ["media.transcript"])

        before = try store.lastClock()
        try store.setTranscript(mediaID: media.id, text: "", segments: [Segment(start: 0, end: 1.5, text: "hello"), Segment(start: 1.5, end: 2, text: "world")])
        #expect(try fieldsChanged(store, since: before) == ["media.segments"])  // joined text is unchanged

        // A machine draft marks itself; the user's correction takes the mark away.
        before = try store.lastClock()
        try store.setTranscript(mediaID: media.id, text: "", segments: [Segment(start: 0, end: 2, text: "hello world")],
                                transcriber: "engine 1 model", transcribedTo: 2)
        #expect(try fieldsChanged(store, since: before) == ["media.segments", "media.transcriber", "media.transcribedTo"])
        before = try store.lastClock()
        try store.setTranscript(mediaID: media.id, text: "hello, world")
        #expect(try fieldsChanged(store, since: before) == ["media.transcript", "media.segments", "media.transcriber", "media.transcribedTo"])

        before = try store.lastClock()
        try store.remove(mediaID: media.id)
        #expect(try fieldsChanged(store, since: before) == ["media.deleted"])
        #expect(try store.entry(id: entry.id)?.media.isEmpty == true)
    }

    @Test func failedMutationsRecordNothing() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        let entry = try store.add(NewEntry(title: "t"))
        let before = try store.lastClock()
        let blobCount = { try FileManager.default.subpathsOfDirectory(atPath: store.blobs.root).filter { $0.count > 60 }.count }
        #expect(throws: StoreError.self) { try store.edit(entryID: "00000000-0000-0000-0000-000000000000", EntryEdit(title: "x")) }
        #expect(throws: StoreError.self) { try store.edit(entryID: entry.id, EntryEdit(addTags: ["  "])) }
        #expect(throws: StoreError.self) { try store.attach(to: entry.id, NewAttachment(path: dir.path + "/missing.jpg")) }
        #expect(throws: StoreError.self) { try store.attach(to: entry.id, NewAttachment(path: dir.path)) }
        let photo = dir.file("p.jpg", bytes: [9, 9, 9])
        #expect(throws: StoreError.self) {
            try store.attach(to: entry.id, NewAttachment(path: photo, segments: [Segment(start: 2, end: 1, text: "x")]))
        }
        #expect(throws: StoreError.self) { try store.attach(to: "00000000-0000-0000-0000-000000000000", NewAttachment(path: photo)) }
        #expect(try store.changes(since: before).isEmpty)
        #expect(try store.lastClock() == before)
        #expect(try blobCount() == 0)
        #expect(try store.entry(id: entry.id) == entry)
    }

    @Test func sameBytesAttachedTwiceAreStoredOnce() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        let a = try store.add(NewEntry(title: "a"))
        let b = try store.add(NewEntry(title: "b"))
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let m1 = try store.attach(to: a.id, NewAttachment(path: dir.file("x.png", bytes: bytes)))
        let m2 = try store.attach(to: b.id, NewAttachment(path: dir.file("copy.png", bytes: bytes)))
        #expect(m1.blobID == m2.blobID && m1.id != m2.id)
        #expect(m1.blobID == SHA256.hex(of: bytes))
        let files = try FileManager.default.subpathsOfDirectory(atPath: store.blobs.root).filter { $0.hasSuffix(m1.blobID) }
        #expect(files.count == 1)
        let stored = try Data(contentsOf: URL(fileURLWithPath: store.blobs.path(for: m1.blobID)))
        #expect(Array(stored) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.blobs.root + "/tmp").isEmpty)
    }
}
