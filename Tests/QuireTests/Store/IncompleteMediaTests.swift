import Foundation
import Testing
@testable import QuireStore
import QuireSupport

/// A log written by a key holder (or damaged in a way that still authenticates) can name an
/// attachment's entry and transcript but never its bytes. The merge keeps such a record on
/// its anchor blob; nothing that reads the journal may then try to read bytes that were
/// never there.
@Suite struct IncompleteMediaTests {
    @Test func anAttachmentWhoseBytesNoChangeNamedIsNotShownOrExported() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        let entry = try store.add(NewEntry(title: "Утро", body: "text"))
        let media = UUID().uuidString.lowercased()
        let device = UUID().uuidString.lowercased()
        func change(_ field: String, _ value: JSONValue, _ tick: Int64) -> SyncChange {
            SyncChange(record: .media, recordID: media, field: field, value: value,
                       hlc: HLC(milliseconds: 1_700_000_000_000, counter: tick), device: device,
                       previousHLC: HLC(rawValue: 0), previousDevice: "")
        }
        _ = try store.merge([change("entry", .string(entry.id), 1), change("kind", .string("voice"), 2)])

        #expect(try store.entry(id: entry.id)?.media.isEmpty == true)
        #expect(try store.pendingTranscriptions().isEmpty)
        let out = dir.path + "/dump"
        try store.exportJSON(to: out)
        let lines = try String(contentsOfFile: out + "/entries.jsonl", encoding: .utf8)
        #expect(lines.contains("Утро"))
        #expect(!lines.contains("\"media\":[{"), "\(lines)")
    }
}
