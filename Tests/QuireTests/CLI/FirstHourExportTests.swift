import Foundation
import Testing
@testable import QuireStore
@testable import QuireExport

/// What the first hour showed in the exports and in search, through the CLI.
@Suite struct FirstHourExportTests {
    func run(_ arguments: [String], _ store: String, stdin: String? = nil) throws -> QuireRun {
        let result = try QuireBinary.run(arguments, store: store, stdin: stdin)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result
    }

    func files(_ folder: String) -> [String: String] {
        var all: [String: String] = [:]
        for path in FileManager.default.subpaths(atPath: folder) ?? [] where path.hasSuffix(".md") {
            all[path] = (try? String(contentsOfFile: folder + "/" + path, encoding: .utf8)) ?? ""
        }
        return all
    }

    func chapter(_ book: String, _ month: String) throws -> String {
        let unzip = Process()
        unzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        unzip.arguments = ["python3", "-c", "import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())",
                           book, "EPUB/text/\(month).xhtml"]
        let out = Pipe()
        unzip.standardOutput = out
        try unzip.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        unzip.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// An untitled entry is headed by its date, its first line not repeated above it; an
    /// entry given a date alone shows no made-up 00:00; a file with nothing after its text
    /// ends with its text, and every export reads back exactly.
    @Test func untitledAndDateOnlyEntriesAreShownAsWritten() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        _ = try run(["add", "--date", "2025-03-01T21:14:05+03:00", "--body", "Гуляли по Красной площади.\n\nВечером шёл снег."], store)
        _ = try run(["add", "--date", "2025-03-02", "--body", "Дата без времени."], store)
        _ = try run(["add", "--date", "2025-03-03", "--title", "Понедельник", "--body", "x"], store)
        _ = try run(["export", "markdown", dir.path + "/md"], store)
        let md = files(dir.path + "/md")
        // A journal written in Russian is exported in Russian: its dates as ICU writes them.
        let russian = BookDates(locale: Locale(identifier: "ru"))
        func local(_ text: String) throws -> LocalDate { LocalDate(try #require(Timestamp(rfc3339: text))) }
        let (evening, sunday, monday) = (try local("2025-03-01T21:14:05+03:00"), try local("2025-03-02T00:00:00Z"), try local("2025-03-03T00:00:00Z"))
        let first = try #require(md.first { $0.key.contains("2025-03-01") }?.value)
        #expect(first.contains("\n# \(russian.longDay(evening))\n\n*\(russian.clock(evening))*\n\nГуляли по Красной площади.\n\nВечером шёл снег.\n"), "\(first)")
        #expect(first.components(separatedBy: "Гуляли по Красной площади.").count == 2, "the first line is not repeated as a heading")
        let dateOnly = try #require(md.first { $0.key.contains("2025-03-02") }?.value)
        #expect(dateOnly.contains("\n# \(russian.longDay(sunday))\n\nДата без времени.\n"), "\(dateOnly)")
        let titled = try #require(md.first { $0.key.contains("2025-03-03") }?.value)
        #expect(titled.contains("\n# Понедельник\n\n*\(russian.longDayAndTime(monday))*\n\nx\n"), "\(titled)")
        for (name, text) in md {
            #expect(!text.contains("00:00\n") && !text.contains("00:00*"), "\(name) shows a made-up time")
            #expect(!text.contains("<!--"), "\(name) ends with a comment though nothing follows its text")
        }
        #expect(!(md["index.md"] ?? "").contains("00:00"))
        _ = try run(["export", "epub", dir.path + "/book.epub"], store)
        let page = try chapter(dir.path + "/book.epub", "2025-03")
        #expect(page.contains(">\(russian.longDay(evening))</h2>") && page.contains(">\(russian.clock(evening))</time>"))
        #expect(page.contains("xml:lang=\"ru\" lang=\"ru\""), "the book takes its entries' language")
        #expect(page.components(separatedBy: "Гуляли по Красной площади.").count == 2)
        #expect(!page.contains(">00:00") && !page.contains(", 00:00"), "no time shown for a date alone")
        // The Markdown reads back as the same journal.
        _ = try run(["import", "markdown", dir.path + "/md"], dir.path + "/copy")
        _ = try run(["export", "json", dir.path + "/a"], store)
        _ = try run(["export", "json", dir.path + "/b"], dir.path + "/copy")
        #expect(dir.read("a/entries.jsonl") == dir.read("b/entries.jsonl") && !dir.read("a/entries.jsonl").isEmpty)
    }

    /// Obsidian: a note's file name is its title, a `[[wikilink]]` to a note of the folder is
    /// a link to its entry in every export, and an embed keeps its file's name.
    @Test func obsidianTitlesAndLinksSurviveTheExports() throws {
        let dir = TempDir()
        let vault = dir.path + "/vault"
        _ = dir.file("vault/2025-07-14.md", "---\ntags: [travel]\n---\nWent to see [[Bastille day]] and [[Nowhere]].\n\n![[photo one.png]]\n")
        _ = dir.file("vault/Bastille day.md", "---\ncreated: 2025-07-13T10:00:00+02:00\n---\nParade preparations for [[2025-07-14|the day]].\n")
        _ = dir.file("vault/att/photo one.png", bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 1, count: 40))
        let store = dir.path + "/s"
        _ = try run(["import", "markdown", vault], store)
        let list = try run(["list"], store).stdout
        #expect(list.contains("Bastille day") && !list.contains("quire:entry"), "\(list)")
        _ = try run(["export", "markdown", dir.path + "/md"], store)
        let md = files(dir.path + "/md")
        let daily = try #require(md.first { $0.key.hasPrefix("2025/07/2025-07-14") }?.value)
        #expect(daily.contains("[Bastille day](../../2025/07/2025-07-13-bastille-day.md)"), "\(daily)")
        #expect(daily.contains("[[Nowhere]]") && !daily.contains("\\["), "a link to no note stays as written, unescaped")
        #expect(daily.contains("attachments/photo%20one.png"))
        _ = try run(["export", "epub", dir.path + "/book.epub"], store)
        let page = try chapter(dir.path + "/book.epub", "2025-07")
        #expect(page.contains(#">Bastille day</a>"#) && page.contains(#"href="2025-07.xhtml#e-"#), "\(page)")
        #expect(page.contains(#">the day</a>"#))
        // A Markdown export read back keeps the links between entries.
        _ = try run(["import", "markdown", dir.path + "/md"], dir.path + "/copy")
        _ = try run(["export", "json", dir.path + "/a"], store)
        _ = try run(["export", "json", dir.path + "/b"], dir.path + "/copy")
        #expect(dir.read("a/entries.jsonl") == dir.read("b/entries.jsonl"))
        #expect(dir.read("a/entries.jsonl").contains("quire:entry/"))
    }

    /// A voice note the text shows in place is shown there once: in Markdown its transcript
    /// follows the text as one quote with no stray `>`; in the book no empty paragraph is left.
    @Test func aVoiceNoteInItsPlaceIsShownOnce() throws {
        let dir = TempDir()
        _ = dir.file("in/media/memo.m4a", bytes: Array("fake m4a".utf8))
        let media = "6f1c2b9a-0000-4000-8000-00000000aaaa"
        _ = dir.file("in/j.jsonl", #"{"created": "2025-05-01T08:00:00+02:00", "title": "Утро", "body": "Before.\n\n![](quire:media/\#(media))\n\nAfter.", "media": [{"id": "\#(media)", "kind": "voice", "path": "media/memo.m4a", "duration": 31, "segments": [{"start": 0, "end": 12, "text": "Первая часть."}, {"start": 12, "end": 31, "text": "Вторая часть."}]}]}"# + "\n")
        let store = dir.path + "/s"
        _ = try run(["import", dir.path + "/in/j.jsonl"], store)
        // Its letters are mostly Cyrillic: in English here, for the words the test looks for.
        _ = try run(["export", "markdown", dir.path + "/md", "--lang", "en"], store)
        let entry = try #require(files(dir.path + "/md").first { $0.key.hasPrefix("2025/") }?.value)
        #expect(!entry.contains("🎙 [Voice note"), "shown in place, not again below: \(entry)")
        #expect(entry.contains("Transcript of the voice note above (0:31):\n\n> **0:00** Первая часть.\n>\n> **0:12** Вторая часть.\n"), "\(entry)")
        let lines = entry.split(separator: "\n", omittingEmptySubsequences: false)
        let bare = lines.indices.filter { lines[$0] == ">" && !(lines.indices.contains($0 + 1) && lines[$0 + 1].hasPrefix("> ")) }
        #expect(bare.isEmpty, "no bare > ends a quote: \(entry)")
        _ = try run(["export", "epub", dir.path + "/book.epub"], store)
        let page = try chapter(dir.path + "/book.epub", "2025-05")
        #expect(!page.contains("<p></p>") && page.contains("Вторая часть."), "\(page)")
        _ = try run(["import", "markdown", dir.path + "/md"], dir.path + "/copy")
        _ = try run(["export", "json", dir.path + "/a"], store)
        _ = try run(["export", "json", dir.path + "/b"], dir.path + "/copy")
        #expect(dir.read("a/entries.jsonl") == dir.read("b/entries.jsonl"))
    }

    /// Search finds tags and places, shows words rather than Markdown in its snippets, a
    /// short Japanese sentence whole, and takes the list filters.
    @Test func searchFindsWhatPeopleSearchFor() throws {
        let dir = TempDir()
        _ = dir.file("in/media/p.jpg", bytes: [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 7, count: 100))
        let photo = "6f1c2b9a-0000-4000-8000-00000000bbbb"
        let lines = [
            #"{"journal": "Travel", "created": "2025-04-02T10:00:00+09:00", "title": "Temple", "body": "![](quire:media/\#(photo)) We climbed the hill at dawn.", "tags": ["travel"], "location": {"lat": 34.99, "lon": 135.78, "name": "Kiyomizu-dera, Kyoto"}, "media": [{"id": "\#(photo)", "path": "media/p.jpg"}]}"#,
            #"{"journal": "Home", "created": "2025-04-05T10:00:00+09:00", "body": "今日は東京タワーに行きました。"}"#,
            #"{"journal": "Home", "created": "2024-01-05T10:00:00+00:00", "body": "An old note about travel plans.", "tags": ["plans"]}"#,
        ]
        _ = dir.file("in/j.jsonl", lines.joined(separator: "\n") + "\n")
        let store = dir.path + "/s"
        _ = try run(["import", dir.path + "/in/j.jsonl"], store)
        func hits(_ arguments: [String]) throws -> [[String: JSONValue]] {
            try (JSONValue.parse(try run(["search"] + arguments + ["--json"], store).stdout).array ?? []).compactMap(\.object)
        }
        let byTag = try hits(["travel"])
        #expect(byTag.count == 2 && byTag.first?["title"]?.string == "Temple", "a tag counts more than a word of the text: \(byTag)")
        #expect(try hits(["Kiyomizu"]).map { $0["title"]?.string } == ["Temple"])
        let snippet = try #require(try hits(["dawn"]).first?["snippet"]?.string)
        #expect(!snippet.contains("quire:media") && !snippet.contains("![") && snippet.contains("We climbed the hill at dawn"), "\(snippet)")
        #expect(try hits(["東京"]).first?["snippet"]?.string == "今日は東京タワーに行きました。")
        #expect(try hits(["travel", "--journal", "Home"]).count == 1)
        #expect(try hits(["travel", "--tag", "travel"]).count == 1)
        #expect(try hits(["travel", "--from", "2025-01-01"]).count == 1)
        #expect(try hits(["travel", "--to", "2024-12-31"]).count == 1)
        let shown = try run(["search", "dawn"], store).stdout
        #expect(!shown.contains("quire:media"), "\(shown)")
    }
}
