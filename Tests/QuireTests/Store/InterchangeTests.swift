import Foundation
import Testing
@testable import QuireStore
import QuireSupport

@Suite struct InterchangeTests {
    /// A journal file exercising the hard cases: non-Latin text, odd offsets, fractional
    /// seconds, empty bodies, one attachment shared by two entries, timed segments.
    static func sampleFile(in dir: TempDir) -> String {
        _ = dir.file("in/media/voice.m4a", bytes: Array("fake m4a bytes".utf8))
        _ = dir.file("in/media/photo.jpg", bytes: [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 7, count: 5000))
        let lines = [
            #"{"journal": "Сны", "created": "2025-03-01T21:14:05.123+05:30", "title": "Сон о море", "body": "Я видел **море**.\n\n- one\n- two", "tags": ["сны", "море"], "starred": true, "location": {"lat": 55.7558, "lon": 37.6173, "name": "Москва"}, "media": [{"kind": "voice", "path": "media/voice.m4a", "filename": "запись 1.m4a", "duration": 12.5, "segments": [{"start": 0.0, "end": 2.1, "text": "Мне снилось"}, {"start": 2.1, "end": 4.75, "text": "море."}]}]}"#,
            #"{"journal": "日記", "created": "2024-12-31T23:59:59.999999-09:30", "body": "", "media": [{"path": "media/photo.jpg"}]}"#,
            #"{"id": "6F1C2B9A-0000-4000-8000-000000000001", "created": "2025-01-01T00:00:00Z", "modified": "2025-01-02T03:04:05.5+01:00", "title": "مرحبا", "body": "نص عربي", "tags": [], "media": [{"path": "media/photo.jpg", "filename": "same photo.jpg", "transcript": "a shared photo"}]}"#,
            #"{"created": "2025-06-15T12:00:00+00:00", "title": "Emoji 👩‍👩‍👧 and \"quotes\" \\ backslash\ttab", "body": "line\u2028separator"}"#,
            "",
        ]
        return dir.file("in/journal.jsonl", lines.joined(separator: "\n"))
    }

    @Test func roundTripIsByteIdentical() throws {
        let dir = TempDir()
        let file = Self.sampleFile(in: dir)
        let first = try makeStore(dir, name: "first")
        let summary = try first.importJSONLines(at: file)
        #expect(summary.lines == 4 && summary.entriesAdded == 4 && summary.media == 3)
        try first.exportJSON(to: dir.path + "/out1")

        let second = try makeStore(dir, name: "second")
        try second.importJSONLines(at: dir.path + "/out1/entries.jsonl")
        try second.exportJSON(to: dir.path + "/out2")

        let dump1 = dir.read("out1/entries.jsonl")
        #expect(!dump1.isEmpty)
        #expect(dump1 == dir.read("out2/entries.jsonl"))
        let media1 = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/out1/media").sorted()
        let media2 = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/out2/media").sorted()
        #expect(media1 == media2 && media1.count == 2)  // the shared photo is written once (one extension)
        for name in media1 {
            #expect(FileManager.default.contentsEqual(atPath: dir.path + "/out1/media/" + name, andPath: dir.path + "/out2/media/" + name))
        }

        // What was kept, exactly.
        let lines = dump1.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        // 2025-01-01T00:00:00Z comes before 2024-12-31T23:59:59.999999-09:30 (09:29:59Z).
        #expect(lines[0].contains(#""id": "6f1c2b9a-0000-4000-8000-000000000001""#))
        #expect(lines[0].contains(#""modified": "2025-01-02T03:04:05.5+01:00""#))
        #expect(lines[1].contains(#""created": "2024-12-31T23:59:59.999999-09:30""#))
        #expect(lines[1].contains(#""body": """#))
        #expect(lines[2].contains(#""created": "2025-03-01T21:14:05.123+05:30""#))
        #expect(lines[2].contains(#""segments": [{"start": 0.0, "end": 2.1, "text": "Мне снилось"}, {"start": 2.1, "end": 4.75, "text": "море."}]"#))
        #expect(lines[2].contains(#""transcript": "Мне снилось море.""#))
        #expect(lines[2].contains(#""location": {"lat": 55.7558, "lon": 37.6173, "name": "Москва"}"#))
        #expect(lines[2].contains(#""filename": "запись 1.m4a""#))
        #expect(lines[3].contains(#"\"quotes\" \\ backslash\ttab"#))
        #expect(lines[3].contains(#""created": "2025-06-15T12:00:00+00:00""#))
    }

    /// Text as odd as people paste it, drawn from a fixed seed: combining marks with nothing
    /// to combine with, CR LF and lone CRs, NUL, byte-order marks, line and paragraph
    /// separators, bidi controls, emoji sequences, quotes and backslashes before accents.
    /// Imported, dumped, imported and dumped again, it comes back byte for byte, and a
    /// title's and a text's every scalar is kept.
    @Test func oddTextRoundTripsExactly() throws {
        var odd = OddText(seed: 0x243F6A8885A308D3)
        var lines: [String] = []
        var written: [String: (title: String, body: String)] = [:]
        for k in 0..<300 {
            let id = String(format: "6f1c2b9a-0000-4000-8000-%012d", k)
            let (title, body) = (odd.text(6), odd.text(40))
            written[id] = (title, body)
            var json = JSONWriter(compact: true)
            json.object { o in
                o.string("id", id)
                o.string("created", "2025-03-01T21:14:05+03:00")
                o.string("title", title)
                o.string("body", body)
            }
            lines.append(json.text)
        }
        let dir = TempDir()
        let file = dir.file("odd.jsonl", lines.joined(separator: "\n") + "\n")
        let first = try makeStore(dir, name: "first")
        #expect(try first.importJSONLines(at: file).entriesAdded == 300)
        for entry in try first.entries() {
            let sent = try #require(written[entry.id])
            #expect(Array(entry.title.unicodeScalars) == Array(sent.title.unicodeScalars) || entry.title == sent.title.trimmingCharacters(in: .whitespacesAndNewlines),
                    "\(sent.title.debugDescription) came back as \(entry.title.debugDescription)")
            #expect(Array(entry.body.unicodeScalars) == Array(sent.body.unicodeScalars), "\(sent.body.debugDescription) came back as \(entry.body.debugDescription)")
        }
        try first.exportJSON(to: dir.path + "/out1")
        let second = try makeStore(dir, name: "second")
        try second.importJSONLines(at: dir.path + "/out1/entries.jsonl")
        try second.exportJSON(to: dir.path + "/out2")
        #expect(dir.read("out1/entries.jsonl") == dir.read("out2/entries.jsonl"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.path + "/out1/entries.jsonl")) == Data(contentsOf: URL(fileURLWithPath: dir.path + "/out2/entries.jsonl")))
    }

    /// A machine draft keeps its mark through the dump: imported elsewhere it is still the
    /// machine's (so `quire transcribe` may finish or redo it), not a transcript of the user's.
    @Test func aMachineDraftKeepsItsMark() throws {
        let dir = TempDir()
        let first = try makeStore(dir, name: "first")
        try first.importJSONLines(at: Self.sampleFile(in: dir))
        let voice = try #require(try first.entries().flatMap(\.media).first { $0.kind == .voice })
        try first.setTranscript(mediaID: voice.id, text: "", segments: [Segment(start: 0, end: 2.1, text: "Мне снилось")],
                                transcriber: "faster-whisper 1.2.1 base", transcribedTo: 2.1)
        try first.exportJSON(to: dir.path + "/out1")
        let dump = dir.read("out1/entries.jsonl")
        #expect(dump.contains(#""transcriber": "faster-whisper 1.2.1 base", "transcribed_to": 2.1"#))
        #expect(dump.components(separatedBy: "transcriber").count == 2, "only the machine's draft is marked")

        let second = try makeStore(dir, name: "second")
        try second.importJSONLines(at: dir.path + "/out1/entries.jsonl")
        let copy = try #require(try second.media(id: voice.id))
        #expect(copy.transcriber == "faster-whisper 1.2.1 base" && copy.transcribedTo == 2.1)
        #expect(try second.pendingTranscriptions().map(\.id) == [voice.id], "an unfinished draft stays unfinished")
        try second.exportJSON(to: dir.path + "/out2")
        #expect(dir.read("out2/entries.jsonl") == dump)

        let bad = dir.file("bad.jsonl", #"{"created": "2025-01-01T00:00:00Z", "body": "x", "media": [{"path": "media/voice.m4a", "transcribed_to": 3}]}"#)
        _ = dir.file("media/voice.m4a", "x")
        #expect(throws: StoreError.self) { try second.importJSONLines(at: bad) }
    }

    @Test func importingTheSameFileTwiceChangesNothing() throws {
        let dir = TempDir()
        let file = Self.sampleFile(in: dir)
        let store = try makeStore(dir)
        try store.importJSONLines(at: file)
        try store.exportJSON(to: dir.path + "/a")
        let before = try store.lastClock()
        let again = try store.importJSONLines(at: file)
        #expect(again.entriesAdded == 0 && again.entriesUpdated == 0 && again.entriesUnchanged == 4)
        #expect(try store.changes(since: before).isEmpty)
        try store.exportJSON(to: dir.path + "/b")
        #expect(dir.read("a/entries.jsonl") == dir.read("b/entries.jsonl"))
        // Re-importing the store's own dump changes nothing either.
        let before2 = try store.lastClock()
        try store.importJSONLines(at: dir.path + "/a/entries.jsonl")
        #expect(try store.changes(since: before2).isEmpty)
    }

    @Test func importingAnExistingIdUpdatesIt() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        let id = "6f1c2b9a-0000-4000-8000-000000000009"
        _ = dir.file("one.jsonl", #"{"id": "\#(id)", "created": "2025-01-01T00:00:00Z", "title": "old", "tags": ["a"]}"#)
        _ = dir.file("two.jsonl", #"{"id": "\#(id)", "created": "2025-01-01T00:00:00Z", "modified": "2025-02-01T00:00:00Z", "title": "new", "tags": ["b"]}"#)
        try store.importJSONLines(at: dir.path + "/one.jsonl")
        let before = try store.lastClock()
        let summary = try store.importJSONLines(at: dir.path + "/two.jsonl")
        #expect(summary.entriesUpdated == 1)
        #expect(try fieldsChanged(store, since: before) == ["entry.title", "entry.modified", "entry.tag:a", "entry.tag:b"])
        #expect(try store.entry(id: id)?.title == "new")
    }

    @Test(arguments: [
        (#"{"created": "2025-01-01T00:00:00Z"}"# + "\n" + #"{"created": "yesterday"}"#, 2, "RFC 3339"),
        (#"{"created": "2025-01-01T00:00:00Z"}"# + "\n\n" + #"{"created": "2025-01-01T00:00:00Z", "title": }"#, 3, "unexpected character"),
        (#"{"created": "2025-01-01T00:00:00Z", "colour": "red"}"#, 1, "unknown key"),
        (#"["not", "an", "object"]"#, 1, "JSON object"),
        (#"{"title": "no date"}"#, 1, "created"),
        (#"{"created": "2025-01-01T00:00:00Z", "media": [{"path": "/etc/passwd"}]}"#, 1, "relative"),
        (#"{"created": "2025-01-01T00:00:00Z", "media": [{"path": "../secret.txt"}]}"#, 1, "leaves"),
        (#"{"created": "2025-01-01T00:00:00Z", "media": [{"path": "media/../../secret.txt"}]}"#, 1, "leaves"),
        (#"{"created": "2025-01-01T00:00:00Z", "media": [{"path": "media/missing.jpg"}]}"#, 1, "missing.jpg"),
        (#"{"created": "2025-01-01T00:00:00Z", "media": [{"path": "link/secret.txt"}]}"#, 1, "symbolic link"),
        // A link whose target climbs out with `..` (Foundation's resolvingSymlinksInPath kept it inside).
        (#"{"created": "2025-01-01T00:00:00Z", "media": [{"path": "media/a.m4a"}]}"#, 1, "symbolic link"),
        // A chain of links, the last one absolute.
        (#"{"created": "2025-01-01T00:00:00Z", "media": [{"path": "chain1"}]}"#, 1, "symbolic link"),
        // A FIFO is an error, not a hang.
        (#"{"created": "2025-01-01T00:00:00Z", "media": [{"path": "fifo"}]}"#, 1, "not a regular file"),
        (#"{"created": "2025-01-01T00:00:00Z", "media": [{"path": "ok.jpg", "kind": "hologram"}]}"#, 1, "kind"),
        (#"{"created": "2025-01-01T00:00:00Z", "media": [{"path": "ok.jpg", "segments": [{"start": 5, "end": 1}]}]}"#, 1, "segment"),
        (#"{"created": "2025-01-01T00:00:00Z", "location": {"lat": 200, "lon": 0}}"#, 1, "latitude"),
        (#"{"created": "2025-01-01T00:00:00Z", "id": "not-a-uuid"}"#, 1, "UUID"),
        (#"{"created": "2025-01-01T00:00:00Z", "title": "a", "title": "b"}"#, 1, "duplicate"),
    ])
    func aMalformedLineNamesItsLineAndChangesNothing(content: String, line: Int, reason: String) throws {
        let dir = TempDir()
        _ = dir.file("secret.txt", "outside")
        _ = dir.file("in/ok.jpg", "jpeg")
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/in/link", withDestinationPath: dir.path)
        _ = dir.file("in/media/keep", "")
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/in/media/a.m4a", withDestinationPath: "../../../../../../../../" + dir.path + "/secret.txt")
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/in/chain1", withDestinationPath: "chain2")
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/in/chain2", withDestinationPath: dir.path + "/secret.txt")
        #expect(mkfifo(dir.path + "/in/fifo", 0o600) == 0)
        // A first, good line with an attachment: it must be undone too.
        let good = #"{"created": "2024-01-01T00:00:00Z", "title": "good", "media": [{"path": "ok.jpg"}]}"#
        let file = dir.file("in/bad.jsonl", good + "\n" + content)
        let store = try makeStore(dir)
        try store.add(NewEntry(title: "already here"))
        try store.exportJSON(to: dir.path + "/before")
        let clock = try store.lastClock()
        #expect {
            try store.importJSONLines(at: file)
        } throws: { error in
            guard let e = error as? StoreError else { return false }
            return e.line == line + 1 && e.description.contains(reason) && e.path == file
        }
        #expect(try store.changes(since: clock).isEmpty)
        try store.exportJSON(to: dir.path + "/after")
        #expect(dir.read("before/entries.jsonl") == dir.read("after/entries.jsonl"))
        let blobFiles = try FileManager.default.subpathsOfDirectory(atPath: store.blobs.root).filter { $0.count > 60 }
        #expect(blobFiles.isEmpty)
    }

    /// Lines are parsed ahead of the writing, in batches: an error far into a long file, on
    /// either side (a line that does not parse, an attachment the store cannot read), still
    /// names its own line, and the lines parsed ahead of it are never written.
    @Test(arguments: [
        (950, #"{"created": "2025-01-01T00:00:00Z", "title": "x", "bogus": 1}"#, "bogus"),
        (1235, #"{"created": "2025-01-01T00:00:00Z", "title": "x", "media": [{"path": "missing.jpg"}]}"#, "missing.jpg"),
    ])
    func anErrorDeepInALongFileNamesItsLine(line: Int, bad: String, reason: String) throws {
        let dir = TempDir()
        var lines = (1...2000).map { #"{"created": "2024-01-01T00:00:00Z", "title": "entry \#($0)"}"# }
        lines[line - 1] = bad
        let file = dir.file("long.jsonl", lines.joined(separator: "\n"))
        let store = try makeStore(dir)
        let clock = try store.lastClock()
        #expect {
            try store.importJSONLines(at: file)
        } throws: { error in
            guard let e = error as? StoreError else { return false }
            return e.line == line && e.description.contains(reason)
        }
        #expect(try store.changes(since: clock).isEmpty)
        #expect(try store.entryCount() == 0)
        // The same file without the bad line imports whole.
        lines.remove(at: line - 1)
        let good = dir.file("good.jsonl", lines.joined(separator: "\n"))
        #expect(try store.importJSONLines(at: good).entriesAdded == 1999)
    }

    @Test func attachingAFIFOIsAnErrorNotAHang() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        let entry = try store.add(NewEntry(title: "t"))
        #expect(mkfifo(dir.path + "/pipe", 0o600) == 0)
        #expect {
            try store.attach(to: entry.id, NewAttachment(path: dir.path + "/pipe"))
        } throws: { ($0 as? StoreError)?.description.contains("not a regular file") == true }
        // A link the user names is followed, as `cat` would.
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/link.txt", withDestinationPath: dir.file("real.txt", "bytes"))
        #expect(try store.attach(to: entry.id, NewAttachment(path: dir.path + "/link.txt")).size == 5)
    }

    @Test func nonUTF8FileIsRefused() throws {
        let dir = TempDir()
        let file = dir.file("latin1.jsonl", bytes: Array(#"{"created": "2025-01-01T00:00:00Z", "title": ""#.utf8) + [0xE9, 0x74, 0xE9] + Array(#""}"#.utf8))
        let store = try makeStore(dir)
        #expect {
            try store.importJSONLines(at: file)
        } throws: { ($0 as? StoreError)?.description.contains("UTF-8") == true }
        #expect(try store.entryCount() == 0)
    }

    /// Windows tools (PowerShell's `Out-File -Encoding utf8`) write a byte order mark first
    /// and CRLF line ends; neither is part of a line.
    @Test func aByteOrderMarkAndCRLFAreNotPartOfTheLines() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        let lines = #"{"created": "2025-01-01T00:00:00Z", "title": "Первая"}"# + "\r\n" + #"{"created": "2025-01-02T00:00:00Z", "title": "Second"}"# + "\r\n"
        let summary = try store.importJSONLines(at: dir.file("bom.jsonl", bytes: [0xEF, 0xBB, 0xBF] + Array(lines.utf8)))
        #expect(summary.lines == 2 && summary.entriesAdded == 2)
        #expect(try store.entries().map(\.title).sorted() == ["Second", "Первая"])
    }

    @Test func emptyFileImportsNothing() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        let summary = try store.importJSONLines(at: dir.file("empty.jsonl", ""))
        #expect(summary.lines == 0)
    }

    @Test func hugeLineAndManyEntries() throws {
        let dir = TempDir()
        let big = String(repeating: "слово ", count: 120_000)  // ~1.3 MB body, longer than the reader's chunk
        var lines = [#"{"created": "2025-01-01T00:00:00Z", "body": "\#(big)"}"#]
        for i in 0..<2000 { lines.append(#"{"created": "2025-01-01T00:00:\#(String(format: "%02d", i % 60)).\#(i)Z", "title": "n\#(i)"}"#) }
        let file = dir.file("big.jsonl", lines.joined(separator: "\n"))
        let store = try makeStore(dir)
        let summary = try store.importJSONLines(at: file)
        #expect(summary.entriesAdded == 2001)
        #expect(try store.entries().first { $0.body.count > 500_000 }?.body == big)
    }

    @Test func filtersSelectEntries() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        try store.add(NewEntry(journal: "A", title: "1", created: ts("2025-01-01T10:00:00Z"), tags: ["x"]))
        try store.add(NewEntry(journal: "B", title: "2", created: ts("2025-02-01T10:00:00+05:00"), tags: ["x", "y"]))
        try store.add(NewEntry(journal: "A", title: "3", created: ts("2025-03-01T10:00:00-03:00")))
        func titles(_ f: EntryFilter) throws -> [String] { try store.entries(matching: f).map(\.title) }
        #expect(try titles(EntryFilter()) == ["1", "2", "3"])
        #expect(try titles(EntryFilter(journals: ["A"])) == ["1", "3"])
        #expect(try titles(EntryFilter(tags: ["x", "y"])) == ["2"])
        #expect(try titles(EntryFilter(from: ts("2025-02-01T05:00:00Z"), to: ts("2025-02-28T00:00:00Z"))) == ["2"])
    }

    /// An import into an empty store runs under a rollback journal (`withRollbackJournal`),
    /// and the write-ahead log is back after it, whether it committed or failed; one into a
    /// store that holds entries, or beside another connection (which may be reading), keeps
    /// the log throughout.
    @Test func anImportIntoAnEmptyStoreLeavesTheLogWhileAloneAndComesBack() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        func entry(_ title: String) -> ImportedEntry {
            let created = ts("2025-01-01T00:00:00Z")
            return ImportedEntry(entry: Entry(id: UUID().uuidString, journal: Store.defaultJournal, title: title, body: "ночь", created: created,
                                              modified: created, tags: [], starred: false, location: nil, media: []),
                                 modified: nil, media: [])
        }
        struct Stop: Error {}
        var modes: [String] = []
        #expect(throws: Stop.self) {
            try store.importEntries { emit in
                try emit(entry("lost"))
                modes.append(try store.database.journalMode)
                throw Stop()
            }
        }
        #expect(try store.database.journalMode == "wal" && store.entries().isEmpty)

        try store.importEntries { emit in
            try emit(entry("first"))
            modes.append(try store.database.journalMode)
        }
        try store.importEntries { emit in
            try emit(entry("second"))
            modes.append(try store.database.journalMode)
        }
        #expect(modes == ["delete", "delete", "wal"])
        #expect(try store.database.journalMode == "wal")

        // Another connection open: the import does not wait for it, and it reads meanwhile.
        let other = try makeStore(dir, name: "other")
        let reader = try Store(folder: dir.path + "/other", options: Store.Options())
        var seen: [Int] = []
        try other.importEntries { emit in
            try emit(entry("beside a reader"))
            modes.append(try other.database.journalMode)
            seen.append(try reader.entries().count)
        }
        #expect(modes.last == "wal" && seen == [0])
        #expect(try reader.entries().map(\.title) == ["beside a reader"])
    }

    /// A first import makes three indexes at its end instead of row by row: afterwards the
    /// store has every index it had, as it was defined, holding every row; one that fails
    /// leaves them as they were; a later import keeps them all the way.
    @Test func aFirstImportMakesItsIndexesAtItsEndAndLeavesThemWhole() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        func indexes() throws -> [String] {
            try store.database.prepare("SELECT name || ': ' || sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").rows { $0.text(0) }
        }
        let defined = try indexes()
        #expect(Store.indexesMadeAfterFirstImport.allSatisfy { name in defined.contains { $0.hasPrefix(name + ": ") } })
        func entry(_ n: Int, tags: [String]) -> ImportedEntry {
            let created = ts("2025-01-0\(1 + n % 9)T0\(n % 10):00:00+05:00")
            return ImportedEntry(entry: Entry(id: UUID().uuidString, journal: n % 2 == 0 ? "Сны" : "日記", title: "запись \(n)", body: "ночь", created: created,
                                              modified: created, tags: tags, starred: false, location: nil, media: []),
                                 modified: nil, media: [])
        }
        struct Stop: Error {}
        var during: [String] = []
        #expect(throws: Stop.self) {
            try store.importEntries { emit in
                try emit(entry(0, tags: ["lost"]))
                during = try indexes()
                throw Stop()
            }
        }
        #expect(Store.indexesMadeAfterFirstImport.allSatisfy { name in !during.contains { $0.hasPrefix(name + ": ") } })
        #expect(try indexes() == defined)

        try store.importEntries { emit in
            for n in 0..<300 { try emit(entry(n, tags: n % 3 == 0 ? ["море", "сны"] : ["day"])) }
        }
        #expect(try indexes() == defined)
        #expect(try store.database.prepare("PRAGMA integrity_check").rows { $0.text(0) } == ["ok"])
        // Read through them: tags, journals and dates find every entry they hold.
        #expect(try store.entries(matching: EntryFilter(tags: ["море"])).count == 100)
        #expect(try store.entries(matching: EntryFilter(journals: ["日記"])).count == 150)
        #expect(try store.entries(matching: EntryFilter(from: ts("2025-01-09T00:00:00+05:00"))).count == 33)

        try store.importEntries { emit in
            try emit(entry(300, tags: ["later"]))
            during = try indexes()
        }
        #expect(during == defined)
        #expect(try store.entries(matching: EntryFilter(tags: ["later"])).count == 1)
    }
}
