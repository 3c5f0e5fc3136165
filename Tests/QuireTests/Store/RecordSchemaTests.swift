import Foundation
import Testing
@testable import QuireStore

/// The record schema is the one declaration of the synced fields: these tests hold the
/// tables, the interchange and the merge to it, so a field added anywhere else fails here.
@Suite struct RecordSchemaTests {
    static let schemas: [RecordSchema] = [.journal, .entry, .media]

    @Test func everyColumnOfASyncedTableIsDeclared() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        for schema in Self.schemas {
            let columns = try store.database.prepare("SELECT name FROM pragma_table_info(?)").rows([.text(schema.table)]) { $0.text(0) }
            #expect(Set(columns).subtracting(["id"]) == Set(schema.fields.flatMap(\.columns)), "\(schema.table)")
        }
    }

    @Test func interchangeLinesUseTheDeclaredKeys() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        let entry = try store.add(NewEntry(title: "t", body: "b", tags: ["x"]))
        let note = try store.attach(to: entry.id, NewAttachment(path: dir.file("a.m4a", bytes: [1, 2, 3]), transcript: "hi"))
        func exported() throws -> (line: [String: JSONValue], media: [String: JSONValue]) {
            let out = dir.path + "/out-" + UUID().uuidString
            try store.exportJSON(to: out)
            let text = try String(contentsOfFile: out + "/entries.jsonl", encoding: .utf8)
            let line = try #require(try JSONValue.parse(text.trimmingCharacters(in: .newlines)).object)
            return (line, try #require(line["media"]?.array?.first?.object))
        }
        // A transcript of the user's own carries no machine's mark.
        let own = try exported()
        #expect(Set(own.line.keys) == InterchangeLine.entryKeys)
        #expect(Set(own.media.keys) == InterchangeLine.mediaKeys.subtracting(["transcriber", "transcribed_to"]))
        // An unfinished machine draft carries every key.
        try store.setTranscript(mediaID: note.id, text: "", segments: [Segment(start: 0, end: 1, text: "hi")],
                                transcriber: "engine 1 model", transcribedTo: 1)
        #expect(Set(try exported().media.keys) == InterchangeLine.mediaKeys)
    }

    /// A value of the wrong shape for any field — from a damaged or hostile log — is refused
    /// as damage, and the merge that carried it writes nothing.
    @Test func aValueNoFieldCanHoldIsRefusedAndNothingIsWritten() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        let other = "ffffffff-ffff-4fff-bfff-ffffffffffff"
        for schema in Self.schemas {
            for spec in schema.fields where ![.flag, .tombstone, .tag].contains(spec.type) {
                let id = StableID.random()
                let change = SyncChange(record: schema.kind, recordID: id, field: spec.name, value: .object(["x": .null]),
                                        hlc: HLC(rawValue: 1 << 40), device: other)
                #expect(throws: StoreError.self, "\(schema.table).\(spec.name)") { try store.merge([change]) }
                #expect(try store.fieldValues(schema.kind, id).isEmpty, "\(schema.table).\(spec.name)")
            }
        }
    }

    /// Every declared field travels, and a store that merges what another saved reads back
    /// the same values for every record.
    @Test func whatOneStoreSavesAnotherMergesToTheSameValues() throws {
        let dir = TempDir()
        let a = try makeStore(dir, name: "a"), b = try makeStore(dir, name: "b")
        let entry = try a.add(NewEntry(journal: "Сны", title: "夢", body: "b", tags: ["x", "y"], starred: true,
                                       location: Location(latitude: 35.7, longitude: 139.7, name: "東京")))
        let media = try a.attach(to: entry.id, NewAttachment(path: dir.file("a.m4a", bytes: [1, 2, 3]), duration: 2.5,
                                                             segments: [Segment(start: 0, end: 2.5, text: "こんにちは")]))
        try a.remove(mediaID: media.id)
        var changes: [SyncChange] = []
        try a.forEachSyncedField { changes.append($0) }
        let fields = { (kind: RecordKind) in Set(changes.filter { $0.record == kind }.map(\.field)) }
        for schema in Self.schemas {
            let declared = schema.fields.filter { $0.type != .tag }.map(\.name)
            #expect(fields(schema.kind).isSuperset(of: declared.filter { $0 != "deleted" || schema.kind == .media }), "\(schema.table)")
        }
        #expect(fields(.entry).isSuperset(of: ["tag:x", "tag:y"]))
        try b.merge(changes)
        for change in changes where change.record != .revision {
            #expect(try b.fieldValues(change.record, change.recordID) == a.fieldValues(change.record, change.recordID))
        }
    }
}
