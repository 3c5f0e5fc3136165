import Foundation
import Testing
@testable import QuireStore

/// What merges change in the search index. An entry's search row holds its journal's name
/// (migrations/0012) and its attachments' transcripts, so a merge of either changes the
/// rows of the entries they belong to. A device can merge entries before the record that
/// names their journal: a log pushed by an earlier Quire sent entries before journals, and a
/// push or snapshot of many segments carries them in different segments. The name must
/// still reach every entry's row, whether the merges refresh the index as they go (a sync)
/// or a restore builds it beside them (`RestoreIndex`).
@Suite struct MergedSearchTests {
    static let journal = "Сны"

    /// Thirty entries in journal "Сны" and one in the default journal, written on a device
    /// of their own; its changes split into the journal's records and all the rest.
    static func changesOfAnotherDevice(_ dir: TempDir) throws -> (entries: [SyncChange], journals: [SyncChange]) {
        let writer = try makeStore(dir, name: "writer")
        for i in 0..<30 { try writer.add(NewEntry(journal: journal, title: "сон \(i)", body: "море и сад")) }
        try writer.add(NewEntry(title: "plain", body: "море"))
        let changes = try writer.pendingChanges().changes
        return (changes.filter { $0.record != .journal }, changes.filter { $0.record == .journal })
    }

    static func found(_ store: Store, _ query: String) throws -> Int {
        try store.search(query, limit: 1000).count
    }

    @Test func entriesMergedBeforeTheirJournalAreFoundByItsName() throws {
        let dir = TempDir()
        let (entries, journals) = try Self.changesOfAnotherDevice(dir)
        let store = try makeStore(dir)
        try store.merge(entries)
        #expect(try Self.found(store, "море") == 31)
        try store.merge(journals)
        #expect(try Self.found(store, Self.journal) == 30, "entries merged before their journal lack its name in the index")
        #expect(try Self.found(store, "сад") == 30)
    }

    /// The same through a restore's index, built on a second thread while the merges run:
    /// the entries' rows went before their journal's name came.
    @Test func aRestoreFindsEntriesMergedBeforeTheirJournalByItsName() throws {
        let dir = TempDir()
        let (entries, journals) = try Self.changesOfAnotherDevice(dir)
        let store = try makeStore(dir)
        let device = entries[0].device
        try store.setRestoring("repository")
        try store.buildRestoredIndexAside()
        try store.merge([LogChanges(changes: entries, seq: 1, hash: "one", name: "log/1")], log: device)
        try store.merge([LogChanges(changes: journals, seq: 2, hash: "two", name: "log/2")], log: device)
        try store.indexRestoredText()
        try store.setRestoring(nil)
        #expect(try Self.found(store, Self.journal) == 30, "entries merged before their journal lack its name in the index")
        #expect(try Self.found(store, "море") == 31)
    }

    /// A push sends journals before the entries that name them (after attachments), and a
    /// snapshot sends them first, so a device pulling either knows the name before it
    /// indexes them.
    @Test func pushesAndSnapshotsSendJournalsBeforeEntries() throws {
        let dir = TempDir()
        let writer = try makeStore(dir, name: "writer")
        let entry = try writer.add(NewEntry(journal: Self.journal, title: "сон"))
        let path = dir.path + "/voice.ogg"
        try Data("голос".utf8).write(to: URL(fileURLWithPath: path))
        try writer.attach(to: entry.id, NewAttachment(path: path, kind: .voice))
        let kinds = try writer.pendingChanges().changes.map(\.record)
        let order = kinds.reduce(into: [RecordKind]()) { if $0.last != $1 { $0.append($1) } }
        #expect(order == [.media, .journal, .entry])
        var snapshot: [RecordKind] = []
        try writer.forEachSyncedField { if snapshot.last != $0.record { snapshot.append($0.record) } }
        #expect(snapshot == [.journal, .entry, .media])
    }

    /// A transcript cleared or an attachment deleted on another device takes its words out
    /// of the entry's row here; one attached without a transcript leaves the row as it was.
    @Test func mergedTranscriptsComeAndGoFromTheirEntrysRow() throws {
        let dir = TempDir()
        let writer = try makeStore(dir, name: "writer")
        let store = try makeStore(dir)
        let path = dir.path + "/voice.ogg"
        try Data("голос".utf8).write(to: URL(fileURLWithPath: path))
        let first = try writer.add(NewEntry(title: "берег"))
        let second = try writer.add(NewEntry(title: "поле"))
        let heard = try writer.attach(to: first.id, NewAttachment(path: path, kind: .voice, transcript: "чайка кричит"))
        let spoken = try writer.attach(to: second.id, NewAttachment(path: path, kind: .voice, transcript: "ветер"))
        _ = try writer.attach(to: second.id, NewAttachment(path: path, kind: .voice))
        try store.merge(writer.pendingChanges().changes)
        #expect(try Self.found(store, "чайка") == 1 && Self.found(store, "ветер") == 1)
        _ = try writer.setTranscript(mediaID: heard.id, text: "")
        try writer.remove(mediaID: spoken.id)
        try store.merge(writer.pendingChanges().changes)
        #expect(try Self.found(store, "чайка") == 0, "a transcript cleared elsewhere is still found here")
        #expect(try Self.found(store, "ветер") == 0, "a deleted attachment's transcript is still found here")
        #expect(try Self.found(store, "берег") == 1 && Self.found(store, "поле") == 1)
    }

    /// Two devices that attach a voice note to the same entry at once give both the same
    /// place; each then holds the two in the order it took them in. The entry's search row
    /// (what a search shows of the transcripts) is the same on both anyway: transcripts in
    /// the order the entry shows its attachments, place then id; and a restore, which reads
    /// the same view, agrees with them.
    @Test func devicesThatTookAttachmentsInAnotherOrderIndexTheSameRow() throws {
        let dir = TempDir()
        let a = try makeStore(dir, name: "a"), b = try makeStore(dir, name: "b")
        let path = dir.path + "/voice.ogg"
        try Data("голос".utf8).write(to: URL(fileURLWithPath: path))
        let entry = try a.add(NewEntry(title: "берег"))
        try b.merge(a.pendingChanges().changes)
        let mine = try a.attach(to: entry.id, NewAttachment(path: path, kind: .voice, transcript: "чайка кричит"))
        let theirs = try b.attach(to: entry.id, NewAttachment(path: path, kind: .voice, transcript: "ветер воет"))
        #expect(mine.position == theirs.position, "both took the first place")
        let (fromA, fromB) = (try a.pendingChanges().changes, try b.pendingChanges().changes)
        try a.merge(fromB)
        try b.merge(fromA)
        func row(_ store: Store) throws -> String? {
            try store.database.prepare("SELECT s.transcripts FROM search s JOIN entries e ON e.rowid = s.rowid WHERE e.id = ?")
                .first([.text(entry.id)]) { $0.text(0) }
        }
        let first = [mine, theirs].min { $0.id < $1.id }?.transcript ?? ""
        let second = [mine, theirs].max { $0.id < $1.id }?.transcript ?? ""
        #expect(try row(a) == first + "\n" + second)
        let (left, right) = (try row(a), try row(b))
        #expect(left == right, "\(left ?? "") / \(right ?? "")")
        // A restore's index build reads the same view.
        #expect(try a.database.prepare("SELECT transcripts FROM search_source WHERE id = ?").first([.text(entry.id)]) { $0.text(0) } == row(a))
    }
}
