import Foundation
import Testing
@testable import QuireExport
@testable import QuireStore

/// `quire export epub` on the varied journal, checked by EPUBCheck 5.3 and read back.
@Suite struct EPUBExportTests {
    let dir = TempDir()
    let store: String

    init() throws { store = try VariedJournal.make(in: dir) }

    func export(_ arguments: [String] = [], to name: String = "book.epub", environment: [String: String] = [:]) throws -> (QuireRun, String) {
        let out = dir.path + "/" + name
        let run = try QuireBinary.run(["export", "epub", out] + arguments, store: store, environment: environment)
        return (run, out)
    }

    /// The whole journal plain; with audio, overlays, a title, an author and a PNG cover; and a
    /// right-to-left book (its entries mostly Arabic) with an SVG cover.
    @Test(.enabled(if: ExternalTool.available("epubcheck")), arguments: ["plain", "audio", "rtl"])
    func epubcheckReportsNoErrorsAndNoWarnings(scenario: String) throws {
        let svg = dir.file("cover.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"60\" height=\"90\"><rect width=\"60\" height=\"90\" fill=\"teal\"/></svg>")
        let arguments = [
            "plain": [],
            "audio": ["--with-audio", "--title", "Дневник", "--author", "Анна", "--cover", VariedJournal.media + "/photo.png"],
            "rtl": ["--tag", "rtl", "--with-audio", "--cover", svg],
        ][scenario] ?? []
        let (run, book) = try export(arguments)
        try #require(run.status == 0, "\(run.stderr)")
        let (problems, json) = try EPUBCheck.problems(book, dir: dir)
        let messages = json.object?["messages"]?.array ?? []
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(json.object?["checker"]?.object?["checkerVersion"]?.string?.hasPrefix("5.") == true)
        #expect(!messages.isEmpty || json.object?["publication"] != nil)
    }

    @Test func mimetypeComesFirstStoredWithoutExtraField() throws {
        let (run, book) = try export()
        try #require(run.status == 0, "\(run.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: book)))
        try #require(bytes.count > 60)
        #expect(Array(bytes[0..<4]) == [0x50, 0x4B, 0x03, 0x04])
        #expect(bytes[8] == 0 && bytes[9] == 0, "mimetype must be stored, not deflated")
        #expect(Int(bytes[26]) | Int(bytes[27]) << 8 == 8, "name length")
        #expect(bytes[28] == 0 && bytes[29] == 0, "no extra field")
        #expect(String(decoding: bytes[30..<38], as: UTF8.self) == "mimetype")
        #expect(String(decoding: bytes[38..<58], as: UTF8.self) == "application/epub+zip")
    }

    @Test func sameJournalGivesTheSameBytesInAnyTimeZone() throws {
        let (a, first) = try export(["--with-audio"], to: "a.epub", environment: ["TZ": "UTC"])
        let (b, second) = try export(["--with-audio"], to: "b.epub", environment: ["TZ": "Pacific/Kiritimati"])
        let (c, third) = try export(["--with-audio"], to: "c.epub", environment: ["TZ": "America/Adak"])
        try #require(a.status == 0 && b.status == 0 && c.status == 0)
        let bytes = try [first, second, third].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        #expect(bytes[0] == bytes[1] && bytes[1] == bytes[2])
        let opf = try ZipArchive(first).text("EPUB/package.opf")
        // The newest `modified` of the entries, in UTC.
        let newest = try #require(Store(folder: store).entries().map(\.modified).max { $0.microseconds < $1.microseconds })
        let utc = LocalDate(utcSeconds: newest.microseconds / 1_000_000)
        #expect(opf.contains("<meta property=\"dcterms:modified\">\(utc.utcText)</meta>"))
        #expect(opf.contains("urn:uuid:"))
    }

    @Test func chaptersFollowLocalMonthsAndNavigationFollowsTheSpine() throws {
        let (run, book) = try export()
        try #require(run.status == 0, "\(run.stderr)")
        let zip = try ZipArchive(book)
        #expect(zip.text("EPUB/text/2025-03.xhtml").contains("Last night of March in Hawaii"))
        #expect(zip.text("EPUB/text/2025-04.xhtml").contains("First hour of April in Kiribati"))
        let opf = zip.text("EPUB/package.opf")
        let spine = matches(of: #"<itemref idref="ch-([0-9-]+)"/>"#, in: opf)
        #expect(spine == spine.sorted() && spine.count == Set(spine).count && spine.first == "2023-01")
        let nav = zip.text("EPUB/nav.xhtml")
        let toc = String(nav[..<(nav.range(of: "landmarks")?.lowerBound ?? nav.endIndex)])
        let navPages = matches(of: #"href="text/([0-9-]+)\.xhtml"#, in: toc)
        var order: [String] = []
        for page in navPages where order.last != page { order.append(page) }
        #expect(order == spine, "nav links must follow the spine")
        #expect(nav.contains("epub:type=\"landmarks\"") && nav.contains("epub:type=\"bodymatter\""))
        // Every generated entry is in the contents.
        #expect(nav.components(separatedBy: "#e-").count - 1 == 240 + 18)
    }

    @Test func rawHTMLIsShownAsTextAndPagesStayWellFormed() throws {
        let (run, book) = try export()
        try #require(run.status == 0, "\(run.stderr)")
        let zip = try ZipArchive(book)
        let page = zip.text("EPUB/text/2025-06.xhtml")
        #expect(page.contains("&lt;script&gt;alert(\"x\")&lt;/script&gt;") || page.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"))
        #expect(!page.contains("<script") && !page.contains("onclick=\""))
        #expect(page.contains("\u{A0}and\u{A0}spaced") && !page.contains("&nbsp;"))
        #expect(!page.contains("\u{1}"))
        #expect(page.contains("<h3>A heading inside</h3>"), "body headings sit below the entry's h2")
        #expect(page.contains("style=\"text-align: right\"") && !page.contains("align=\""))
        #expect(page.contains("<a href=\"https://example.org/x.png\">remote</a>"))
        #expect(!page.contains("pic.png") && !page.contains("notes.md"))
        // Footnote ids carry the entry's prefix, and the reference follows.
        let refs = matches(of: ##"href="#(e-[0-9a-f-]+-fn-?[^"]*)""##, in: page)
        #expect(!refs.isEmpty)
        for ref in refs { #expect(page.contains("id=\"\(ref)\"")) }
        for name in zip.names where name.hasSuffix(".xhtml") || name.hasSuffix(".opf") || name.hasSuffix(".smil") {
            #expect(XHTMLPage.wellFormednessProblem(zip.text(name)) == nil, "\(name)")
        }
    }

    /// A `<`, `"` or `&` that a combining accent follows is one `Character` with it, yet
    /// markup to an XML parser: escaped in a title, a tag, a place and the text alike (the
    /// book failed, blaming the built-in template).
    @Test func markupCharactersWithCombiningMarksAreEscaped() throws {
        let odd = "<\u{301}b> \"\u{301} &\u{301}amp;"
        let other = dir.path + "/odd"
        let add = try QuireBinary.run(["add", "--title", "T " + odd, "--tag", "t" + odd, "--body", "Body " + odd], store: other)
        try #require(add.status == 0, "\(add.stderr)")
        let out = dir.path + "/odd.epub"
        let run = try QuireBinary.run(["export", "epub", out, "--title", "B " + odd], store: other)
        try #require(run.status == 0, "\(run.stderr)")
        let zip = try ZipArchive(out)
        for name in zip.names where name.hasSuffix(".xhtml") || name.hasSuffix(".opf") {
            #expect(XHTMLPage.wellFormednessProblem(zip.text(name)) == nil, "\(name)")
        }
        let page = try #require(zip.names.first { $0.hasPrefix("EPUB/text/2") }.map(zip.text))
        #expect(page.contains("T &lt;\u{301}b&gt; &quot;\u{301} &amp;\u{301}amp;"))
        #expect(page.contains("Body &lt;\u{301}b&gt;"))
        #expect(Renderer.escape("<\u{301}\"\u{301}") == "&lt;\u{301}&quot;\u{301}")
    }

    /// A book of odd text (`OddText`): EPUBCheck finds nothing, though a title may be a line
    /// separator or a zero-width joiner alone (the contents listed it as an empty link; it is
    /// headed by its date now, as an untitled entry is).
    @Test(.enabled(if: ExternalTool.available("epubcheck")))
    func oddTextMakesAValidBook() throws {
        let other = try makeStore(dir, name: "odd")
        var odd = OddText(seed: 0x082EFA98EC4E6C89)
        for k in 0..<80 {
            try other.add(NewEntry(journal: "J" + odd.name(4), title: k % 8 == 0 ? "\u{2028}\u{200D}" : odd.text(6), body: odd.text(40),
                                   created: ts(String(format: "2025-%02d-%02dT10:00:00+03:00", 1 + k % 12, 1 + k % 28)),
                                   tags: ["t" + odd.name(3)], location: Location(latitude: 1, longitude: 2, name: odd.name(5))))
        }
        let book = dir.path + "/odd-text.epub"
        let run = try QuireBinary.run(["export", "epub", book], store: other.folder)
        try #require(run.status == 0, "\(run.stderr)")
        let (problems, _) = try EPUBCheck.problems(book, dir: dir)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(Entry(id: "", journal: "", title: "\u{2028}\u{200D}\t", body: "", created: ts("2025-01-01T00:00:00Z"), modified: ts("2025-01-01T00:00:00Z"),
                      tags: [], starred: false, location: nil, media: []).titleShows == false)
    }

    @Test func rightToLeftAndOtherScriptsAreMarked() throws {
        let (run, book) = try export()
        try #require(run.status == 0, "\(run.stderr)")
        let zip = try ZipArchive(book)
        let june = zip.text("EPUB/text/2025-06.xhtml")
        let arabic = try #require(june.range(of: VariedJournal.arabicTitle))
        let article = try #require(june[..<arabic.lowerBound].range(of: "<article", options: .backwards))
        let tag = june[article.lowerBound..<arabic.lowerBound]
        #expect(tag.contains("dir=\"rtl\"") && tag.contains("lang=\"ar\""))
        #expect(zip.text("EPUB/text/2025-04.xhtml").contains("lang=\"ja\""))
        #expect(zip.text("EPUB/package.opf").contains("<dc:language>en</dc:language>"), "no language has a majority")

        let (arabicRun, arabicBook) = try export(["--tag", "rtl"], to: "ar.epub")
        try #require(arabicRun.status == 0, "\(arabicRun.stderr)")
        let opf = try ZipArchive(arabicBook).text("EPUB/package.opf")
        #expect(opf.contains("<dc:language>ar</dc:language>") && opf.contains("page-progression-direction=\"rtl\""))
        let page = try ZipArchive(arabicBook).text("EPUB/text/2025-06.xhtml")
        #expect(page.contains("<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\" xml:lang=\"ar\" lang=\"ar\" dir=\"rtl\">"))
        #expect(page.contains("dir=\"ltr\""), "the English entry says it runs left to right")
    }

    @Test func voiceNotesWithAudioGetMediaOverlaysAndTheRestTranscripts() throws {
        let (plain, bookWithout) = try export([], to: "plain.epub")
        let (run, book) = try export(["--with-audio"])
        try #require(run.status == 0 && plain.status == 0, "\(run.stderr)")
        let without = try ZipArchive(bookWithout)
        #expect(!without.names.contains { $0.hasSuffix(".m4a") || $0.hasSuffix(".mp3") || $0.hasSuffix(".smil") })
        #expect(without.text("EPUB/text/2025-07.xhtml").contains("二番目の文。"), "transcripts print without audio too")
        #expect(without.text("EPUB/text/2025-07.xhtml").contains("Second paragraph."))

        let zip = try ZipArchive(book)
        let opf = zip.text("EPUB/package.opf")
        #expect(opf.contains("media-type=\"audio/mp4\"") && opf.contains("media-type=\"audio/mpeg\"")
                && opf.contains("media-type=\"audio/ogg; codecs=opus\""))
        #expect(!opf.contains("audio/wav") && !zip.names.contains { $0.hasSuffix(".wav") })
        #expect(opf.contains("media-overlay=\"mo-2025-07\""))
        #expect(opf.contains("<meta property=\"media:duration\" refines=\"#mo-2025-07\">0:00:06.000</meta>"))
        let page = zip.text("EPUB/text/2025-07.xhtml")
        #expect(page.contains("WAV audio") && page.contains("not in this book"))
        let smil = zip.text("EPUB/overlays/2025-07.smil")
        let texts = matches(of: #"<text src="\.\./text/2025-07\.xhtml#([^"]+)"/>"#, in: smil)
        #expect(texts.count == 6, "three segments each for the m4a and the opus recording")
        for id in texts { #expect(page.contains("id=\"\(id)\"")) }
        let begins = matches(of: #"clipBegin="([0-9:.]+)""#, in: smil)
        #expect(begins == ["0:00:00.000", "0:00:01.200", "0:00:02.500", "0:00:00.000", "0:00:01.200", "0:00:02.500"])
        #expect(smil.contains("src=\"../media/") && smil.contains(".m4a\"") && smil.contains(".ogg\""))
    }

    @Test func photosAreEmbeddedOnceAndACoverCanBeGiven() throws {
        let (run, book) = try export(["--cover", VariedJournal.media + "/photo.jpg"])
        try #require(run.status == 0, "\(run.stderr)")
        let zip = try ZipArchive(book)
        #expect(zip.names.filter { $0.hasPrefix("EPUB/media/") && $0.hasSuffix(".jpg") }.count == 1)
        #expect(zip.names.contains { $0.hasPrefix("EPUB/media/") && $0.hasSuffix(".png") })
        #expect(zip.text("EPUB/package.opf").contains("properties=\"cover-image\""))
        #expect(zip.data("EPUB/images/cover.jpg") == (try Data(contentsOf: URL(fileURLWithPath: VariedJournal.media + "/photo.jpg"))))

        let (bad, badOut) = try export(["--cover", VariedJournal.media + "/voice.mp3"], to: "bad.epub")
        #expect(bad.status == 1 && bad.stderr.contains("voice.mp3") && bad.stderr.contains("cover must be"))
        #expect(!FileManager.default.fileExists(atPath: badOut))
    }

    @Test func filtersChooseTheEntries() throws {
        func entries(_ arguments: [String], _ name: String) throws -> Int {
            let (run, book) = try export(arguments, to: name)
            try #require(run.status == 0, "\(run.stderr)")
            return try ZipArchive(book).text("EPUB/nav.xhtml").components(separatedBy: "#e-").count - 1
        }
        #expect(try entries(["--journal", "Travel"], "travel.epub") == 2)
        #expect(try entries(["--tag", "weekly"], "weekly.epub") == 48)
        let july = try Store(folder: store).entries(matching: EntryFilter(journals: ["Journal"], from: ts("2025-07-01T00:00:00Z"), to: ts("2025-07-06T23:59:59Z")))
        #expect(july.count >= 8)
        #expect(try entries(["--from", "2025-07-01", "--to", "2025-07-06", "--journal", "Journal"], "july.epub") == july.count)
        let (none, out) = try export(["--tag", "no-such-tag"], to: "none.epub")
        #expect(none.status == 1 && none.stderr.contains("no entries") && !FileManager.default.fileExists(atPath: out))
    }

    @Test func userTemplatesOverrideFileByFileAndTheirErrorsNameFileAndLine() throws {
        let templates = dir.path + "/mine"
        _ = dir.file("mine/epub/entry.xhtml", "<article id=\"{{anchor}}\"><h2>{{title}}</h2><p class=\"mine\">{{journal}}</p></article>\n")
        let (run, book) = try export(["--templates", templates])
        try #require(run.status == 0, "\(run.stderr)")
        let zip = try ZipArchive(book)
        #expect(zip.text("EPUB/text/2025-03.xhtml").contains("<p class=\"mine\">Travel</p>"))
        #expect(zip.text("EPUB/style.css").contains("media-overlay-active"), "other templates stay the built-in ones")

        let before = try Data(contentsOf: URL(fileURLWithPath: book))
        _ = dir.file("mine/epub/entry.xhtml", "<article>\n{{#media}}\n<p>{{filename}}</p>\n")
        let (broken, _) = try export(["--templates", templates])
        #expect(broken.status == 1)
        #expect(broken.stderr.contains(templates + "/epub/entry.xhtml:2"), "\(broken.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: book)) == before, "a failed export leaves the old book alone")

        _ = dir.file("mine/epub/entry.xhtml", "<article><p>{{title}}</article>\n")
        let (malformed, _) = try export(["--templates", templates])
        #expect(malformed.status == 1 && malformed.stderr.contains("entry.xhtml") && malformed.stderr.contains("not well-formed"), "\(malformed.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.hasPrefix(".quire-epub") })
    }

    /// Each year opens with an SVG calendar page whose written days link to an entry of that
    /// day (EPUBCheck accepts it: the first test checks the same books).
    @Test func eachYearOpensWithACalendarWhoseDaysLinkToTheirEntries() throws {
        let (run, book) = try export()
        try #require(run.status == 0, "\(run.stderr)")
        let zip = try ZipArchive(book)
        let opf = zip.text("EPUB/package.opf")
        for year in ["2023", "2025"] {
            #expect(opf.contains("<item id=\"cal-\(year)\" href=\"text/calendar-\(year).xhtml\" media-type=\"application/xhtml+xml\" properties=\"svg\"/>"))
        }
        // In the spine, a year's calendar comes between the last month before and its first.
        let spine = matches(of: "<itemref idref=\"([^\"]+)\"", in: opf)
        let calendar = try #require(spine.firstIndex(of: "cal-2025"))
        #expect(spine[calendar + 1].hasPrefix("ch-2025-") && spine[calendar - 1].hasPrefix("ch-2024-"), "\(spine)")
        let page = zip.text("EPUB/text/calendar-2025.xhtml")
        #expect(XHTMLPage.wellFormednessProblem(page) == nil)
        // A cell for each day of 2025 written on, leading to an entry of that day in its chapter.
        let entries = try Store(folder: store).entries()
        let days2025 = Set(entries.map { LocalDate($0.created) }.filter { $0.year == 2025 }.map(\.dayKey))
        let links = matches(of: "<a xlink:href=\"([^\"]+)\"", in: page)
        #expect(links.count == days2025.count && !links.isEmpty)
        for link in links {
            let parts = link.split(separator: "#").map(String.init)
            let id = String(parts.last?.dropFirst(2) ?? "")
            let entry = try #require(entries.first { $0.id == id }, "\(link)")
            #expect(parts.first == LocalDate(entry.created).monthKey + ".xhtml")
            #expect(zip.text("EPUB/text/" + (parts.first ?? "")).contains("id=\"e-\(id)\""))
        }
        let nav = zip.text("EPUB/nav.xhtml")
        #expect(nav.contains("<li><a href=\"text/calendar-2025.xhtml\">2025</a>"))
    }

    @Test func outputInAMissingFolderIsAClearError() throws {
        let (run, _) = try export([], to: "no/such/folder/book.epub")
        #expect(run.status == 1 && run.stderr.contains("no such folder"))
    }

    private func matches(of pattern: String, in text: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}
