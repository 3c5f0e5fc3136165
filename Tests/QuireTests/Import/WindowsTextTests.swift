import Foundation
import QuireSupport
import Testing
@testable import QuireImport
@testable import QuireStore

/// Files written on Windows: a byte order mark first, CRLF line ends. Swift reads `\r\n`
/// as one `Character`, so a split at `"\n"` sees one line in the whole file.
@Suite struct WindowsTextTests {
    let dir = TempDir()
    let utc = TimeZone(identifier: "UTC") ?? .current
    static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    @Test func crlfFilesAreReadAsLinesAndOthersKeepTheirBytes() {
        #expect(SourceText.decode(Data("a\r\nb\r\n\r\nc".utf8)) == "a\nb\n\nc")
        #expect(SourceText.decode(Data(Self.bom + Array("Día\r\nnoche".utf8))) == "Día\nnoche")
        // The first line break decides: a body's own carriage return stays in a LF file.
        #expect(SourceText.decode(Data("---\nbody\r\nline".utf8)) == "---\nbody\r\nline")
        #expect(SourceText.decode(Data("\r\n".utf8)) == "\n")
        #expect(SourceText.decode(Data("no break\r".utf8)) == "no break\r")
        #expect(SourceText.decode(Data()) == "")
        #expect(SourceText.decode(Data(Self.bom)) == "")
        #expect(SourceText.decode(Data([0x61, 0x0D, 0x0A, 0xFF])) == nil)
        #expect(SourceText.decode(Data([0xC3])) == nil)
    }

    @Test func aJrnlJournalWrittenOnWindowsIsReadEntryByEntry() throws {
        let text = "[2024-01-01 10:00] First one. With a body\r\nBody line @work\r\n\r\n[2024-01-02 23:05] Второй. *\r\nЕщё\r\n"
        let file = dir.file("journal.txt", bytes: Self.bom + Array(text.utf8))
        #expect(ImportFormat.guess(file) == .jrnl)
        let store = try makeStore(dir)
        let summary = try JrnlImporter(path: file, zone: utc).run(into: store)
        #expect(summary.entriesAdded == 2)
        let entries = try store.entries().sorted { $0.created.text < $1.created.text }
        #expect(entries.map(\.title) == ["First one.", "Второй."])
        #expect(entries.map(\.body) == ["With a body\nBody line @work", "Ещё"])
        #expect(entries.map(\.created.text) == ["2024-01-01T10:00:00Z", "2024-01-02T23:05:00Z"])
        #expect(entries[0].tags == ["work"] && entries[1].starred)
    }

    @Test func aJrnlJSONExportWithAByteOrderMarkIsRead() throws {
        let json = "{\r\n  \"tags\": {},\r\n  \"entries\": [\r\n    {\"title\": \"Hola.\", \"body\": \"\", \"date\": \"2024-05-01\", \"time\": \"08:00\", \"tags\": [], \"starred\": false}\r\n  ]\r\n}\r\n"
        let file = dir.file("export.json", bytes: Self.bom + Array(json.utf8))
        #expect(ImportFormat.guess(file) == .jrnl)
        let store = try makeStore(dir)
        #expect(try JrnlImporter(path: file, zone: utc).run(into: store).entriesAdded == 1)
        #expect(try store.entries().map(\.title) == ["Hola."])
    }

    @Test func aMarkdownNoteWrittenOnWindowsKeepsItsFrontMatter() throws {
        let note = "---\r\ntitle: Hello CRLF\r\ndate: 2024-03-01 10:00\r\ntags: [a, b]\r\n---\r\nBody one\r\nline two\r\n"
        _ = dir.file("vault/note.md", bytes: Self.bom + Array(note.utf8))
        let store = try makeStore(dir)
        let summary = try MarkdownFolderImporter(path: dir.path + "/vault", zone: utc).run(into: store)
        #expect(summary.entriesAdded == 1 && summary.skipped.isEmpty)
        let entry = try #require(try store.entries().first)
        #expect(entry.title == "Hello CRLF" && entry.tags == ["a", "b"])
        #expect(entry.body == "Body one\nline two")
        #expect(entry.created.text == "2024-03-01T10:00:00Z")
    }
}
