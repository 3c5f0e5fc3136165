import Foundation
import Testing
@testable import QuireExport
@testable import QuireImport
@testable import QuireStore

@Suite struct MarkdownImportTests {
    let dir = TempDir()
    let tokyo = TimeZone(identifier: "Asia/Tokyo") ?? .current

    @Test func obsidianDailyNotesWithTagsAndEmbeds() throws {
        let store = try makeStore(dir)
        let summary = try MarkdownFolderImporter(path: ImportFixtures.path("obsidian"), zone: tokyo).run(into: store)
        #expect(summary.entriesAdded == 3 && summary.media == 2)
        #expect(summary.skipped == ["Ideas.md"])
        #expect(summary.missing == ["2024-05-03 Trip.md: missing.png"])
        let byTitle = try store.entriesByTitle()

        let sunset = try #require(byTitle["Ηλιοβασίλεμα"])
        #expect(sunset.created.text == "2024-05-01T00:00:00+09:00")
        // Front matter tags (a leading # dropped) and #tags in the text, none from code.
        #expect(Set(sunset.tags) == ["καλοκαίρι", "θάλασσα", "ταξίδι"])
        let photo = try #require(sunset.media.first)
        #expect(sunset.body.hasPrefix("Στην παραλία. ![](quire:media/\(photo.id)) #ταξίδι"))  // `|400` is a size, not a caption
        #expect(FileManager.default.contents(atPath: store.blobs.path(for: photo.blobID)) == ImportFixtures.bytes(ImportFixtures.media + "/photo.jpg"))

        let city = try #require(try store.entries().first { $0.body.hasPrefix("يوم هادئ") })
        #expect(city.tags == ["مدينة"] && city.media.first?.filename == "photo one.png")
        #expect(city.body.contains("![صورة](quire:media/") && city.body.contains("[the site](https://example.org)"))

        let train = try #require(byTitle["Night train"])
        #expect(train.created.text == "2024-05-03T21:45:00+09:00")
        #expect(train.body == "On the train. ![[missing.png]]")  // kept as written, and named as missing

        let again = try MarkdownFolderImporter(path: ImportFixtures.path("obsidian"), zone: tokyo).run(into: store)
        #expect(again.entriesUnchanged == 3 && again.entriesAdded == 0)
    }

    /// `export markdown` → `import markdown` into an empty store → `export json`: the same
    /// journal, byte for byte, attachments included.
    @Test func quiresOwnExportComesBackExactly() throws {
        let source = try makeStore(dir, name: "source")
        try source.importJSONLines(at: InterchangeTests.sampleFile(in: dir))
        _ = try DayOneImporter(path: ImportFixtures.path("dayone/export.zip")).run(into: source)
        try source.add(NewEntry(title: "Trailing newline", body: "ends with one\n", created: ts("2025-07-01T08:00:00-03:00")))
        try source.add(NewEntry(title: "Marker in text", body: "a\n<!-- quire: the entry's text ends here -->\nb",
                                created: ts("2025-07-02T08:00:00Z")))
        // A machine draft, unfinished: its mark comes back too.
        let voice = try #require(try source.entries().flatMap(\.media).first { $0.kind == .voice })
        try source.setTranscript(mediaID: voice.id, text: "", segments: [Segment(start: 0, end: 2.1, text: "Мне снилось")],
                                 transcriber: "faster-whisper 1.2.1 base", transcribedTo: 2.1)
        let folder = dir.path + "/md"
        _ = try MarkdownExporter(store: source, filter: EntryFilter(), templates: try TemplateSet(overrides: nil)).write(to: folder)

        let copy = try makeStore(dir, name: "copy")
        let summary = try MarkdownFolderImporter(path: folder, zone: tokyo).run(into: copy)
        #expect(summary.skipped.isEmpty && summary.missing.isEmpty)
        let original = try source.dump(in: dir, "a")
        #expect(!original.isEmpty)
        #expect(try copy.dump(in: dir, "b") == original)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/a/media").sorted()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/b/media").sorted() == files)
        for name in files {
            #expect(FileManager.default.contentsEqual(atPath: dir.path + "/a/media/" + name, andPath: dir.path + "/b/media/" + name))
        }
    }

    /// Odd text (`OddText`) in titles, texts, tags, journal names and places comes back
    /// from a Markdown folder exactly: a title that began with a combining mark lost its
    /// heading's recognition, and a place whose escape a joiner followed stopped the import.
    @Test func oddTextComesBackFromMarkdownExactly() throws {
        let source = try makeStore(dir, name: "source")
        var odd = OddText(seed: 0xA4093822299F31D0)
        for k in 0..<120 {
            let place = Location(latitude: 10, longitude: 20, name: odd.name(5))
            try source.add(NewEntry(journal: "J" + odd.name(4), title: odd.text(6), body: odd.text(40),
                                    created: ts(String(format: "2025-%02d-%02dT10:00:00+03:00", 1 + k % 12, 1 + k % 28)),
                                    tags: ["t" + odd.name(3)], location: place))
        }
        let folder = dir.path + "/md"
        _ = try MarkdownExporter(store: source, filter: EntryFilter(), templates: try TemplateSet(overrides: nil)).write(to: folder)
        let copy = try makeStore(dir, name: "copy")
        let summary = try MarkdownFolderImporter(path: folder, zone: tokyo).run(into: copy)
        #expect(summary.entriesAdded == 120)
        #expect(try copy.dump(in: dir, "b") == source.dump(in: dir, "a"))
    }

    /// An edit made in one file comes back as an edit of that entry, tracked, so it syncs.
    @Test func anEditedFileIsAnEditOfItsEntry() throws {
        let store = try makeStore(dir)
        try store.importJSONLines(at: InterchangeTests.sampleFile(in: dir))
        let folder = dir.path + "/md"
        _ = try MarkdownExporter(store: store, filter: EntryFilter(), templates: try TemplateSet(overrides: nil)).write(to: folder)
        let file = try #require(FileManager.default.enumerator(atPath: folder)?.allObjects.compactMap { $0 as? String }.first { $0.hasSuffix(".md") && $0.contains("сон") })
        let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
        try text.replacingOccurrences(of: "Я видел **море**.", with: "Я видел **море** и горы.").write(toFile: folder + "/" + file, atomically: true, encoding: .utf8)

        let clock = try store.lastClock()
        let summary = try MarkdownFolderImporter(path: folder).run(into: store)
        #expect(summary.entriesUpdated == 1 && summary.entriesUnchanged == 3)
        let entry = try #require(try store.entries().first { $0.title == "Сон о море" })
        #expect(entry.body.hasPrefix("Я видел **море** и горы."))
        #expect(entry.modified > ts("2025-03-01T21:14:05.123+05:30"))  // edited now
        #expect(try fieldsChanged(store, since: clock) == ["entry.body", "entry.modified"])
    }

    @Test func aLinkOutOfTheFolderIsRefusedAndNothingIsImported() throws {
        let store = try makeStore(dir)
        let folder = dir.path + "/vault"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = dir.file("vault/2024-01-01.md", "Fine note.\n")
        _ = dir.file("secret/id_ed25519", "PRIVATE KEY")
        try FileManager.default.createSymbolicLink(atPath: folder + "/keys", withDestinationPath: dir.path + "/secret")
        #expect {
            _ = try MarkdownFolderImporter(path: folder).run(into: store)
        } throws: { "\($0)".contains("vault/keys: is a symbolic link") }
        #expect(try store.entries().isEmpty)

        // A path that climbs out is not found inside, so it is named missing and never read.
        try FileManager.default.removeItem(atPath: folder + "/keys")
        _ = dir.file("vault/2024-01-02.md", "![](../secret/id_ed25519)\n")
        let summary = try MarkdownFolderImporter(path: folder).run(into: store)
        #expect(summary.missing == ["2024-01-02.md: ../secret/id_ed25519"] && summary.media == 0)
    }

    /// A Mac may name a file in decomposed Unicode (NFD) while the text links it composed
    /// (NFC), or the other way round: the link finds it, and it is read by its name on disk.
    @Test func aLinkFindsItsFileInEitherUnicodeForm() throws {
        let nfc = { (s: String) in s.precomposedStringWithCanonicalMapping }
        let nfd = { (s: String) in s.decomposedStringWithCanonicalMapping }
        _ = dir.file("vault/" + nfd("Café.png"), bytes: [0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
        _ = dir.file("vault/img/" + nfc("Crème.png"), bytes: [0x89, 0x50, 0x4E, 0x47, 4, 5, 6])
        _ = dir.file("vault/2024-01-01.md", nfc("![a](Café.png) and ![[Crème.png]]\n"))
        _ = dir.file("vault/2024-01-02.md", nfd("![b](img/Crème.png)\n"))
        let store = try makeStore(dir)
        let summary = try MarkdownFolderImporter(path: dir.path + "/vault", zone: tokyo).run(into: store)
        #expect(summary.entriesAdded == 2 && summary.missing.isEmpty, "\(summary.missing)")
        let entries = try store.entries().sorted { $0.created.text < $1.created.text }
        #expect(entries.map { $0.media.count } == [2, 1])
        #expect(entries.allSatisfy { !$0.body.contains(".png") }, "every link became an attachment")
    }

    @Test func badFrontMatterNamesFileAndLine() throws {
        let store = try makeStore(dir)
        _ = dir.file("vault/2024-01-01.md", "Fine.\n")
        _ = dir.file("vault/2024-01-02.md", "---\ntitle: \"unterminated\n---\nText\n")
        #expect {
            _ = try MarkdownFolderImporter(path: dir.path + "/vault").run(into: store)
        } throws: { "\($0)".contains("2024-01-02.md: line 2: front matter has a \"quoted\" value that is not closed") }
        #expect(try store.entries().isEmpty)
        _ = dir.file("vault/2024-01-02.md", "---\nid: 6f1c2b9a-0000-4000-8000-000000000001\ncreated: 2025-01-01T00:00:00Z\nattachments:\n  - id: 6f1c2b9a-0000-4000-8000-000000000002\n    file: ../../../etc/passwd\n---\n")
        #expect {
            _ = try MarkdownFolderImporter(path: dir.path + "/vault").run(into: store)
        } throws: { "\($0)".contains("attachments[1].file leaves the folder") }
    }

    /// The dates Obsidian, its templates and other tools write in front matter; words
    /// without a year would date a note by the day of its import, so they are none.
    @Test(arguments: [
        ("2024-03-05T09:30:00+01:00", "2024-03-05T09:30:00+01:00"),
        ("2024-03-05T09:30:00.000Z", "2024-03-05T09:30:00.000Z"),
        ("2024-03-05", "2024-03-05T00:00:00+09:00"),
        ("2024-03-05 09:30", "2024-03-05T09:30:00+09:00"),
        ("2024-03-05T09:30:15", "2024-03-05T09:30:15+09:00"),
        ("2024/03/05", "2024-03-05T00:00:00+09:00"),
        ("2024/03/05 09:30", "2024-03-05T09:30:00+09:00"),
        ("2024-03-05 09:30 +0100", "2024-03-05T09:30:00+01:00"),
        ("2024-03-05T09:30:00+0100", "2024-03-05T09:30:00+01:00"),
        ("2024-03-05T09:30:00-0530", "2024-03-05T09:30:00-05:30"),
        ("  2024-03-05 09:30  ", "2024-03-05T09:30:00+09:00"),
        ("March 5, 2024", "2024-03-05T00:00:00+09:00"),
        ("5 March 2024 9:30 pm", "2024-03-05T21:30:00+09:00"),
        ("2024-03-05 9:30 AM", "2024-03-05T09:30:00+09:00"),
    ])
    func frontMatterDatesAreRead(given: String, expected: String) {
        #expect(ObsidianNote.frontMatterDate(given, zone: tokyo)?.text == expected)
    }

    @Test(arguments: ["yesterday", "Dec 2", "last monday", "2024-13-01", "2024-02-30 10:00", "1709627400", "soon", "", "2024-03-05 25:00 +0100"])
    func frontMatterNonDatesAreNone(given: String) {
        #expect(ObsidianNote.frontMatterDate(given, zone: tokyo) == nil)
    }

    @Test func frontMatterSubset() throws {
        let yaml = try FrontMatter.parse("""
            a: plain text # comment
            b: "esc \\"q\\" \\n \\u00e9"
            c: 'it''s'
            list:
              - one
              - [1, "two", three]
            maps:
              - id: x
                n: 2
              - id: y
            nested:
              k: v
            empty:
            """)
        #expect(yaml["a"]?.text == "plain text")
        #expect(yaml["b"]?.text == "esc \"q\" \n é")
        #expect(yaml["c"]?.text == "it's")
        #expect(yaml["list"]?.items?.count == 2 && yaml["list"]?.items?[1].items?.map(\.text) == ["1", "two", "three"])
        #expect(yaml["maps"]?.items?.map { $0["id"]?.text } == ["x", "y"] && yaml["maps"]?.items?[0]["n"]?.text == "2")
        #expect(yaml["nested"]?["k"]?.text == "v" && yaml["empty"]?.text == nil)
    }
}
