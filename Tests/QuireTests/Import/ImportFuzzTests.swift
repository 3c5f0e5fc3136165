import Foundation
import Testing
@testable import QuireExport
@testable import QuireImport
@testable import QuireStore

/// Every importer given its own fixtures damaged at random, as files come out of a sync
/// client cut short, an editor in the wrong encoding or a hand edit: each run either imports
/// or fails with one line naming the problem, and a failed import leaves the store as it
/// was. A trap would end the test process. `QUIRE_FUZZ_ROUNDS` runs more rounds (a local
/// hunt: 20,000 found what the fixed seeds here guard).
@Suite struct ImportFuzzTests {
    let dir = TempDir()
    static let rounds = Int(ProcessInfo.processInfo.environment["QUIRE_FUZZ_ROUNDS"] ?? "") ?? 150

    /// jrnl's text file and its JSON export.
    @Test(arguments: [("jrnl/journal.txt", UInt64(1)), ("jrnl/export.json", 2)])
    func jrnl(file: String, seedNumber: UInt64) throws {
        try fuzz(seed: ImportFixtures.bytes(ImportFixtures.path(file)), seedNumber: seedNumber) { path, store in
            try JrnlImporter(path: path).run(into: store)
        }
    }

    @Test func dayOneJournalInAFolder() throws {
        let folder = try unpackDayOne()
        let seed = ImportFixtures.bytes(folder + "/Journal.json")
        try fuzz(seed: seed, seedNumber: 3, file: folder + "/Journal.json") { _, store in
            try DayOneImporter(path: folder).run(into: store)
        }
    }

    @Test func dayOneZip() throws {
        // Nearly every change to a zip's bytes breaks a checksum: most rounds are refused.
        try fuzz(seed: ImportFixtures.bytes(ImportFixtures.path("dayone/export.zip")), seedNumber: 4, someImport: false) { path, store in
            try DayOneImporter(path: path).run(into: store)
        }
    }

    @Test func obsidianNote() throws {
        let vault = dir.path + "/vault"
        try FileManager.default.copyItem(atPath: ImportFixtures.path("obsidian"), toPath: vault)
        let note = vault + "/Daily/2024-05-01.md"
        try fuzz(seed: ImportFixtures.bytes(note), seedNumber: 5, file: note) { _, store in
            try MarkdownFolderImporter(path: vault).run(into: store)
        }
    }

    @Test func quireJSONLines() throws {
        let source = try sourceStore()
        try source.exportJSON(to: dir.path + "/json")
        let lines = dir.path + "/json/entries.jsonl"
        try fuzz(seed: ImportFixtures.bytes(lines), seedNumber: 6, file: lines) { path, store in
            try store.importJSONLines(at: path)
        }
    }

    /// A note of Quire's own Markdown export: its front matter, places, voice notes.
    @Test func quireMarkdownNote() throws {
        let folder = dir.path + "/md"
        _ = try MarkdownExporter(store: try sourceStore(), filter: EntryFilter(), templates: try TemplateSet(overrides: nil)).write(to: folder)
        let notes = try #require(FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".md") }.sorted())
        // The Day One entry with a place, a photo and a voice note.
        let note = try #require(try notes.map { folder + "/" + $0 }.first { try String(contentsOfFile: $0, encoding: .utf8).contains("transcript") })
        try fuzz(seed: ImportFixtures.bytes(note), seedNumber: 7, file: note) { _, store in
            try MarkdownFolderImporter(path: folder).run(into: store)
        }
    }

    private func sourceStore() throws -> Store {
        let source = try makeStore(dir, name: "source")
        _ = try JrnlImporter(path: ImportFixtures.path("jrnl/export.json")).run(into: source)
        _ = try DayOneImporter(path: ImportFixtures.path("dayone/export.zip")).run(into: source)
        return source
    }

    /// Runs `rounds` damaged copies of `seed` through `importer`, written to `file` (or a
    /// fresh file of the test's own), into one store that keeps what the good ones brought.
    private func fuzz(seed: Data, seedNumber: UInt64, file: String? = nil, someImport: Bool = true,
                      _ importer: (String, Store) throws -> ImportSummary) throws {
        try #require(!seed.isEmpty)
        let store = try makeStore(dir)
        var random = OddText(seed: seedNumber &* 0x1000_0000_0000 &+ 77)
        var imported = 0, refused = 0
        for round in 0..<Self.rounds {
            let bytes = Mutation.damage(Array(seed), &random)
            let path = file ?? dir.path + "/source-\(round)"
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            let before = try fingerprint(store)
            do {
                _ = try importer(path, store)
                imported += 1
            } catch {
                refused += 1
                let line = "\(error)", words = withoutPaths(line)
                // One line, but for a path, which may hold any character (the CLI escapes it).
                #expect(!words.isEmpty && !words.contains("\n") && !words.contains("\r"), "round \(round): \(line.debugDescription)")
                #expect(error is ImportError || error is StoreError, "round \(round): \(type(of: error)) \(line)")
                #expect(try fingerprint(store) == before, "round \(round): a refused import changed the store")
            }
            if file == nil { try? FileManager.default.removeItem(atPath: path) }
        }
        #expect(try store.integrityCheck() == "ok")
        // The damage is neither so mild that everything imports nor so bad that nothing does.
        #expect((imported > 0 || !someImport) && refused > 0, "imported \(imported), refused \(refused)")
    }

    /// `line` without the paths of this test's files it names (from the test's folder to
    /// the next ": ").
    private func withoutPaths(_ line: String) -> String {
        var rest = Substring(line), out = ""
        while let found = rest.range(of: dir.path) {
            out += rest[..<found.lowerBound]
            rest = rest[found.upperBound...]
            rest = rest.range(of: ": ").map { rest[$0.lowerBound...] } ?? ""
        }
        return out + rest
    }

    /// What a refused import must leave as it was: every entry's id, text and attachments.
    private func fingerprint(_ store: Store) throws -> [String] {
        try store.entries().map { "\($0.id) \($0.title) \($0.body) \($0.tags) \($0.media.map(\.blobID))" }.sorted()
    }

    private func unpackDayOne() throws -> String {
        let folder = dir.path + "/dayone"
        let archive = try QuireImport.ZipArchive(path: ImportFixtures.path("dayone/export.zip"))
        for name in archive.names.keys {
            let path = folder + "/" + name
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: path, contents: try archive.read(name, limit: 1 << 24)))
        }
        return folder
    }
}

/// Damage as files meet it: a byte changed, odd text put in, a piece lost or repeated, the
/// end cut off, a number made huge.
enum Mutation {
    static let bytes: [UInt8] = [0x00, 0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x3A, 0x2C, 0x0A, 0x0D, 0x2D, 0x23, 0x2A, 0x5F,
                                 0x3C, 0x3E, 0x21, 0x7C, 0x2F, 0x2E, 0x20, 0x09, 0x30, 0x39, 0xFF, 0xC3, 0xE2, 0x80, 0xBF]
    static let words = ["99999999999999999999", "-1", "1e400", "null", "true", "[]", "{}", "\"\"", "---\n", "\n\n",
                        "[2024-02-29 25:61]", "0000-00-00", "9999-12-31T23:59:59Z", "![[", "]]", "#", "\\u0000", "\\ud800",
                        "\\uDFFF\\uD800", "%00", "../", "/etc/passwd", "quire:media/", "\u{FEFF}"]

    static func damage(_ seed: [UInt8], _ random: inout OddText) -> [UInt8] {
        var bytes = seed
        for _ in 0...random.next(3) {
            let at = bytes.isEmpty ? 0 : random.next(bytes.count)
            switch random.next(7) {
            case 0: if !bytes.isEmpty { bytes[at] = Self.bytes[random.next(Self.bytes.count)] }
            case 1: bytes.insert(contentsOf: Array(random.text(4).utf8), at: at)
            case 2: bytes.removeSubrange(at..<min(bytes.count, at + 1 + random.next(24)))
            case 3:
                let end = min(bytes.count, at + 1 + random.next(200))
                bytes.insert(contentsOf: bytes[at..<end], at: random.next(bytes.count + 1))
            case 4: bytes.removeSubrange(at..<bytes.count)
            case 5: bytes.insert(contentsOf: Array(words[random.next(words.count)].utf8), at: at)
            default:
                // A digit anywhere becomes a run of nines: counts, sizes, dates, offsets.
                if let digit = bytes[at...].firstIndex(where: { (0x30...0x39).contains($0) }) {
                    bytes.replaceSubrange(digit...digit, with: Array(repeating: 0x39, count: 1 + random.next(20)))
                }
            }
        }
        return bytes
    }
}
