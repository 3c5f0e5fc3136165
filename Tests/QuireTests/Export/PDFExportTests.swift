import Foundation
import Testing
import CPango
@testable import QuireExport
@testable import QuireStore

/// `quire export pdf` on the varied journal (Russian, Japanese, Arabic, Spanish, English,
/// photos, voice notes, tables, raw HTML), read back by the real readers: qpdf, pdffonts,
/// pdfinfo, pdftotext and pdftoppm from poppler.
@Suite struct PDFExportTests {
    let dir = TempDir()
    let store: String

    init() throws { store = try VariedJournal.make(in: dir, generated: 60) }

    func export(_ arguments: [String] = [], to name: String = "book.pdf", environment: [String: String] = [:]) throws -> (QuireRun, String) {
        let out = dir.path + "/" + name
        let run = try QuireBinary.run(["export", "pdf", out] + arguments, store: store, environment: environment)
        return (run, out)
    }

    static var readers: Bool { ["qpdf", "pdffonts", "pdfinfo", "pdftotext", "pdftoppm", "pdfimages"].allSatisfy(ExternalTool.available) }

    @Test(.enabled(if: readers))
    func qpdfFindsNoFaultAndEveryFontIsEmbeddedSubsetAndMappedToUnicode() throws {
        let (run, book) = try export(["--title", "Дневник", "--author", "Анна", "--json"])
        try #require(run.status == 0, "\(run.stderr)")
        let json = try JSONValue.parse(run.stdout)
        #expect(json.object?["entries"]?.number == 78)
        #expect((json.object?["pages"]?.number ?? 0) > 40)
        #expect(json.object?["warnings"]?.array?.isEmpty == true, "\(run.stderr)")
        let check = try ExternalTool.run("qpdf", ["--check", book])
        #expect(check.status == 0 && check.stderr.isEmpty, "\(check.stdout)\(check.stderr)")
        let fonts = try ExternalTool.run("pdffonts", [book])
        let rows = fonts.stdout.split(separator: "\n").dropFirst(2)
        #expect(rows.count >= 4, "\(fonts.stdout)")
        for row in rows {
            let columns = row.split(separator: " ")
            // name type… emb sub uni object ID: the three before the last two.
            #expect(columns.count >= 6 && columns[columns.count - 5 ..< columns.count - 2] == ["yes", "yes", "yes"], "\(row)")
        }
        let families = Set(rows.compactMap { $0.split(separator: "+").dropFirst().first?.split(separator: "-").first.map(String.init) })
        #expect(families.isSuperset(of: ["NotoSerif", "NotoSans"]), "\(families)")
        #expect(families.contains { $0.hasPrefix("NotoSerifCJK") } && families.contains { $0.contains("Arabic") }, "\(families)")
        let info = try ExternalTool.run("pdfinfo", [book])
        #expect(info.stdout.contains("Page size:       419.53 x 595.28 pts"), "\(info.stdout)")
        #expect(info.stdout.contains("Title:           Дневник") && info.stdout.contains("Author:          Анна"))
        #expect(info.stdout.contains("Tagged:          yes"))
    }

    /// A right-to-left override, a tab, a soft hyphen and a glyph from another font gave
    /// clusters cairo refused; its context then drew nothing more, and every page after went
    /// missing from the file. The run is drawn with one cluster now: every page is there,
    /// the words after it are on them, and the book passes qpdf.
    /// An address is broken at a line's end without a hyphen: the dictionary's hyphen in
    /// «ti-tles», or Pango's when it breaks between letters, would be read as part of it.
    /// Its words break as before: only the link showing an address is left whole.
    @Test(.enabled(if: readers))
    func anAddressIsNeverHyphenated() throws {
        let store = dir.path + "/addresses"
        let address = "https://en.wikipedia.org/wiki/List_of_the_longest_article_titles_on_the_internet_with_many_more_words_appended_here"
        let body = "See \(address) for the whole story. [Unforgettable extraordinarily international conversations](https://example.org) followed."
        try #require(try QuireBinary.run(["add", "--date", "2025-03-01 10:00", "--body", body], store: store).status == 0)
        let book = dir.path + "/addresses.pdf"
        let run = try QuireBinary.run(["export", "pdf", book], store: store)
        try #require(run.status == 0, "\(run.stderr)")
        let text = try ExternalTool.run("pdftotext", [book, "-"]).stdout
        #expect(text.replacingOccurrences(of: "\n", with: "").contains(address), "\(text)")
        #expect(InlineSetter.showsAnAddress("anna@example.org") && InlineSetter.showsAnAddress("www.example.org"))
        #expect(!InlineSetter.showsAnAddress("Unforgettable conversations") && !InlineSetter.showsAnAddress("the end."))
    }

    /// A link to an address longer than any client takes (RFC 9110's 8,000 bytes: a pasted
    /// blob) keeps its words and makes no link: each line it spans wrote it again, and a
    /// 400 KB one took minutes and hundreds of megabytes. A shorter link is made as before.
    @Test(.enabled(if: readers))
    func aLinkTooLongToFollowKeepsItsWordsUnlinked() throws {
        let store = dir.path + "/long-link"
        let long = "https://example.org/" + String(repeating: "a", count: 9_000)
        let body = "A [short link](https://example.org/short) and [one too long](\(long)) end here."
        try #require(try QuireBinary.run(["add", "--date", "2025-03-01 10:00", "--body", body], store: store).status == 0)
        let book = dir.path + "/long-link.pdf"
        let run = try QuireBinary.run(["export", "pdf", book], store: store)
        try #require(run.status == 0, "\(run.stderr)")
        let bytes = String(decoding: try Data(contentsOf: URL(fileURLWithPath: book)), as: UTF8.self)
        #expect(bytes.contains("/URI (https://example.org/short)") && !bytes.contains("example.org/aaaa"))
        let text = try ExternalTool.run("pdftotext", [book, "-"]).stdout
        #expect(Self.flattened(text).contains("A short link and one too long end here."), "\(text)")
    }

    @Test(.enabled(if: readers))
    func textCairoWouldRefuseClustersForLosesNoPage() throws {
        let store = dir.path + "/clusters"
        for (date, body) in [("2025-03-01 10:00", "r\u{202E}\t\u{AD}\u{FFFD}"), ("2025-03-02 10:00", "Afterwards the words are all there."),
                             ("2025-03-03 10:00", "صباح في المكتبة")] {
            try #require(try QuireBinary.run(["add", "--date", date, "--body", body], store: store).status == 0)
        }
        for print in [[], ["--print"]] {
            let book = dir.path + "/clusters.pdf"
            let run = try QuireBinary.run(["export", "pdf", book, "--json"] + print, store: store)
            try #require(run.status == 0, "\(run.stderr)")
            let pages = try #require(try JSONValue.parse(run.stdout).object?["pages"]?.number)
            let info = try ExternalTool.run("pdfinfo", [book]).stdout
            #expect(info.contains("Pages:           \(Int(pages))\n"), "\(info)")
            let text = try ExternalTool.run("pdftotext", [book, "-"]).stdout
            #expect(text.contains("Afterwards the words are all there."))
            // A right-to-left run keeps its own clusters (cairo counts them from the start):
            // its words come out in reading order, not reversed as one cluster gives them.
            #expect(text.contains("صباح في المكتبة"), "\(text)")
            #expect(try ExternalTool.run("qpdf", ["--check", book]).status == 0)
        }
        // cairo's rules, as `clustersFit` reads them.
        let text: [CChar] = Array("aé".utf8CString.dropLast())  // 3 bytes
        text.withUnsafeBufferPointer { bytes in
            func fit(_ c: [(Int32, Int32)], glyphs: Int) -> Bool {
                TextLayout.clustersFit(c.map { cairo_text_cluster_t(num_bytes: $0.0, num_glyphs: $0.1) }, bytes: bytes, glyphs: glyphs)
            }
            #expect(fit([(1, 1), (2, 1)], glyphs: 2) && fit([(3, 2)], glyphs: 2) && fit([(1, 0), (2, 2)], glyphs: 2))
            #expect(!fit([(2, 1), (1, 1)], glyphs: 2), "a cluster ending inside é (cairo counts from the start, for a backward run too)")
            #expect(!fit([(1, 1), (2, 1)], glyphs: 3) && !fit([(1, 1), (1, 1)], glyphs: 2), "counts that do not add up")
            #expect(!fit([(0, 0), (3, 2)], glyphs: 2) && !fit([(-1, 1), (4, 1)], glyphs: 2))
        }
    }

    /// A book of odd text (`OddText`): made, every page it counts in the file, its last
    /// entry's words on them. Made twelve times: cairo crashed one export in five while the
    /// page thread played a page into the file as the other laid text out (`FontContext`).
    @Test(.enabled(if: readers))
    func oddTextMakesAWholeBook() throws {
        let other = try makeStore(dir, name: "odd")
        var odd = OddText(seed: 0x452821E638D01377)
        for k in 0..<120 {
            try other.add(NewEntry(journal: "J" + odd.name(4), title: odd.text(6), body: odd.text(50),
                                   created: ts(String(format: "2025-%02d-%02dT10:00:00+03:00", 1 + k % 12, 1 + k % 28)), tags: ["t" + odd.name(3)]))
        }
        try other.add(NewEntry(title: "Last", body: "The very last words.", created: ts("2025-12-31T23:00:00+03:00")))
        let book = dir.path + "/odd-text.pdf"
        var run = try QuireBinary.run(["export", "pdf", book, "--json"], store: other.folder)
        for _ in 1..<12 where run.status == 0 {
            try FileManager.default.removeItem(atPath: book)
            run = try QuireBinary.run(["export", "pdf", book, "--json"], store: other.folder)
        }
        try #require(run.status == 0, "\(run.stderr)")
        let pages = try #require(try JSONValue.parse(run.stdout).object?["pages"]?.number)
        #expect(try ExternalTool.run("pdfinfo", [book]).stdout.contains("Pages:           \(Int(pages))\n"))
        #expect(try ExternalTool.run("pdftotext", [book, "-"]).stdout.contains("The very last words."))
    }

    /// A journal in Hindi with a Tamil entry: the book is in Hindi (its dates in Hindi), and
    /// each script's text is set in Noto's serif for it, beside Latin text in Noto Serif.
    @Test(.enabled(if: readers))
    func indicTextIsReadAsItsLanguageAndSetInTheSerif() throws {
        let store = dir.path + "/indic"
        for (title, body) in [("कल बारिश हुई", "आज सुबह मैंने एक किताब पढ़ी। क्षत्रिय, द्वार।"), ("दिल्ली", "बहुत गर्मी थी, हम घर पर रहे।"),
                              ("வீட்டில் ஒரு நாள்", "இன்று காலை நான் ஒரு புத்தகம் படித்தேன்.")] {
            try #require(try QuireBinary.run(["add", "--title", title, "--date", "2025-03-04 10:00", body], store: store).status == 0)
        }
        let book = dir.path + "/indic.pdf"
        let run = try QuireBinary.run(["export", "pdf", book, "--json"], store: store)
        try #require(run.status == 0, "\(run.stderr)")
        #expect(try JSONValue.parse(run.stdout).object?["language"]?.string == "hi", "\(run.stdout)")
        let fonts = try ExternalTool.run("pdffonts", [book]).stdout
        #expect(fonts.contains("NotoSerifDevanagari-Regular") && fonts.contains("NotoSerifTamil-Regular"), "\(fonts)")
        let text = try ExternalTool.run("pdftotext", [book, "-"]).stdout
        #expect(text.contains("मार्च") && text.contains("क्षत्रिय"), "\(text)")
    }

    @Test(.enabled(if: readers), arguments: [("a4", "595.28 x 841.89"), ("letter", "612 x 792"), ("6x9in", "432 x 648"), ("150x220mm", "425.2 x 623.62")])
    func thePageSizeIsTheOneAskedFor(size: String, points: String) throws {
        let (run, book) = try export(["--page-size", size, "--from", "2025-03-01", "--to", "2025-04-30"])
        try #require(run.status == 0, "\(run.stderr)")
        let info = try ExternalTool.run("pdfinfo", [book])
        #expect(info.stdout.contains("Page size:       \(points) pts"), "\(info.stdout)")
        // Whole-point sizes (letter, 6×9 in) once lost their links' structure elements.
        let check = try ExternalTool.run("qpdf", ["--check", book])
        #expect(check.status == 0 && check.stderr.isEmpty, "\(check.stderr)")
    }

    @Test(.enabled(if: readers))
    func everyEntrysTextReadsBackInLatinCyrillicJapaneseAndArabic() throws {
        let (run, book) = try export()
        try #require(run.status == 0, "\(run.stderr)")
        // The text block alone: running heads and folios cropped off.
        let geometry = PageGeometry(.a5)
        let crop = ["-x", "0", "-y", String(Int(geometry.top) - 1), "-W", "420", "-H", String(Int(geometry.textHeight) + 2)]
        let text = try ExternalTool.run("pdftotext", ["-enc", "UTF-8"] + crop + [book, "-"]).stdout
        let flat = Self.flattened(text)
        let english = BookDates(locale: Locale(identifier: "en"))
        let evening = LocalDate(try #require(Timestamp(rfc3339: "2025-03-01T21:14:05+03:00")))
        for expected in ["Вечер в Москве", "Гуляли по Красной площади.", "купить открытки", "позвонить маме",
                         "今日は東京タワーに行きました。桜がとてもきれいでした。", "東京の朝", "Hoy fue un día normal.", "Entry number 59.",
                         "Первая фраза.", "二番目の文。", "And the last <one> & done.", "A transcript without times.", "Second paragraph.",
                         "<script>alert(\"x\")</script>", "The note.", "Last night of March in Hawaii", english.longDayAndTime(evening),
                         "#путешествия", "Красная площадь", "Voice note · 0:03"] {
            #expect(flat.contains(Self.flattened(expected)), "missing: \(expected)")
        }
        // The long paragraph, hyphenated and justified over many pages, comes back whole.
        #expect(flat.components(separatedBy: "A long day, written at length.").count - 1 == 4000)
        #expect(flat.components(separatedBy: "Долгий день. 長い一日。").count - 1 == 4000)
        // Arabic comes back in visual order with joining forms: compare word by word.
        let arabic = Self.arabicLetters(text)
        for word in "ذهبت إلى المكتبة في الصباح وقرأت كتابا عن تاريخ المدينة مرحبا بكم".split(separator: " ") {
            let letters = Self.arabicLetters(String(word))
            #expect(arabic.contains(letters) || arabic.contains(String(letters.reversed())), "missing Arabic word: \(word)")
        }
        // A timed transcript has its times.
        #expect(flat.contains("0:01") || flat.contains("0:00"))
    }

    @Test(.enabled(if: readers))
    func theOutlineRunsYearMonthEntryAndEveryLinkLeadsSomewhere() throws {
        let (run, book) = try export()
        try #require(run.status == 0, "\(run.stderr)")
        let json = try JSONValue.parse(try ExternalTool.run("qpdf", ["--json=2", "--json-key=outlines", book]).stdout)
        let years = json.object?["outlines"]?.array ?? []
        #expect(years.map { $0.object?["title"]?.string ?? "" } == ["2023", "2025"])
        let months2025 = years.last?.object?["kids"]?.array ?? []
        #expect(months2025.first?.object?["title"]?.string == "March 2025", "\(months2025.map { $0.object?["title"]?.string ?? "" })")
        let march = months2025.first?.object?["kids"]?.array?.map { $0.object?["title"]?.string ?? "" } ?? []
        #expect(march.contains("Вечер в Москве") && march.contains("Last night of March in Hawaii"), "\(march)")
        let entries = years.flatMap { $0.object?["kids"]?.array ?? [] }.flatMap { $0.object?["kids"]?.array ?? [] }
        #expect(entries.count == 78)

        // Every link names a destination the file holds.
        let raw = String(decoding: try Data(contentsOf: URL(fileURLWithPath: book)), as: UTF8.self)
        let named = Set(Self.matches(of: "\\((e-[0-9a-f-]+|m-[0-9-]+|y-[0-9]+)\\) \\[", in: raw))
        let linked = Set(Self.matches(of: "/Dest \\(([^)]+)\\)", in: raw))
        let monthCount = years.map { $0.object?["kids"]?.array?.count ?? 0 }.reduce(0, +)
        let expected: Int = 78 + years.count + monthCount
        #expect(named.count == expected)
        #expect(!linked.isEmpty && linked.isSubset(of: named), "\(linked.subtracting(named))")
    }

    /// The calendars' days and links between entries are written into the finished file
    /// (`LaterLinks`): each leads, by page and height, to the heading of its entry. Every day
    /// written on has a link to the heading of its first entry, on the page it starts.
    @Test(.enabled(if: readers))
    func everyLinkToAnEntryLeadsToItsHeading() throws {
        let (run, book) = try export()
        try #require(run.status == 0, "\(run.stderr)")
        #expect(try ExternalTool.run("qpdf", ["--check", book]).status == 0)
        let pageList = try JSONValue.parse(try ExternalTool.run("qpdf", ["--json=2", "--json-key=pages", book]).stdout).object?["pages"]?.array ?? []
        let pageNumbers = Dictionary(uniqueKeysWithValues: pageList.enumerated().compactMap { index, page in page.object?["object"]?.string.map { ($0, index) } })
        let objects = try JSONValue.parse(try ExternalTool.run("qpdf", ["--json=2", "--json-key=qpdf", book]).stdout).object?["qpdf"]?.array?.last?.object ?? [:]
        let links = objects.values.compactMap { $0.object?["value"]?.object }.filter { $0["/Subtype"]?.string == "/Link" }
        let explicit = links.compactMap { $0["/Dest"]?.array }
        let height = PageSize.a5.height

        // The heading lines pdftotext finds on each page: (top from the page's top, text).
        let html = try ExternalTool.run("pdftotext", ["-bbox", "-enc", "UTF-8", book, "-"]).stdout
        var lines: [[(top: Double, text: String)]] = []
        for line in html.split(separator: "\n") {
            if line.contains("<page ") { lines.append([]); continue }
            guard line.contains("<word "), let top = Self.matches(of: "yMin=\"([0-9.]+)\"", in: String(line)).first.flatMap(Double.init),
                  let word = Self.matches(of: ">([^<]*)</word>", in: String(line)).first else { continue }
            if let last = lines.indices.last { lines[last].append((top, word)) }
        }
        var reached = Set<String>()
        for destination in explicit {
            let page = try #require(destination.first?.string.flatMap { pageNumbers[$0] }, "a link to no page: \(destination)")
            let top = height - (destination.count > 3 ? destination[3].number ?? 0 : 0)
            // The first line below the destination's height starts within a line of it.
            let below = lines[page].filter { $0.top >= top - 2 }.map(\.top).min()
            let words = lines[page].filter { below != nil && abs($0.top - (below ?? 0)) < 1 }.map(\.text)
            #expect(below.map { $0 - top < 20 } == true && !words.isEmpty, "page \(page + 1) at \(top): \(words)")
            reached.insert(words.joined(separator: " "))
        }
        // Each day's first entry (by the book's order, the earliest) is reached by its cell.
        let exported = try QuireBinary.run(["export", "json", dir.path + "/lines"], store: store)
        try #require(exported.status == 0, "\(exported.stderr)")
        let entries = try String(contentsOfFile: dir.path + "/lines/entries.jsonl", encoding: .utf8).split(separator: "\n").compactMap { try? JSONValue.parse(String($0)).object }
        var firstOfDay: [String: (created: String, title: String)] = [:]
        for entry in entries {
            guard let created = entry["created"]?.string, let title = entry["title"]?.string else { continue }
            let day = String(created.prefix(10))
            if let known = firstOfDay[day], known.created <= created { continue }
            firstOfDay[day] = (created, title)
        }
        #expect(explicit.count >= firstOfDay.count, "\(explicit.count) links for \(firstOfDay.count) days")
        for (day, first) in firstOfDay where !first.title.isEmpty && first.title.allSatisfy({ $0.isASCII }) {
            let word = String(first.title.split(separator: " ").first ?? "")
            #expect(reached.contains { $0.hasPrefix(word) }, "\(day): no link reaches \"\(first.title)\"")
        }
    }

    /// pdftotext's word boxes: every word of the body lies inside the page's text block (the
    /// inner margin mirrored on left and right pages); only running heads and folios lie above
    /// or below it.
    @Test(.enabled(if: readers))
    func everyWordLiesInsideTheTextBlock() throws {
        let (run, book) = try export(["--no-photos"])
        try #require(run.status == 0, "\(run.stderr)")
        let html = try ExternalTool.run("pdftotext", ["-bbox", "-enc", "UTF-8", book, "-"]).stdout
        let geometry = PageGeometry(.a5)
        var page = 0, outside: [String] = [], words = 0
        for line in html.split(separator: "\n") {
            if line.contains("<page ") { page += 1; continue }
            guard line.contains("<word ") else { continue }
            let numbers = ["xMin", "yMin", "xMax", "yMax"].map { key in Self.matches(of: key + "=\"([0-9.]+)\"", in: String(line)).first.flatMap(Double.init) ?? -1 }
            let (x0, y0, x1, y1) = (numbers[0], numbers[1], numbers[2], numbers[3])
            words += 1
            let left = geometry.left(page: page)
            let inside = x0 >= left - 1 && x1 <= left + geometry.textWidth + 1
            let band = y0 >= geometry.top - 1 && y1 <= geometry.size.height - geometry.bottom + 1
            let furniture = y1 < geometry.top || y0 > geometry.size.height - geometry.bottom
            if !inside || !(band || furniture) { outside.append("page \(page): \(line)") }
        }
        #expect(words > 10_000)
        #expect(outside.isEmpty, "\(outside.prefix(5).joined(separator: "\n"))")
    }

    @Test(.enabled(if: readers))
    func theSameJournalGivesTheSameBytesInAnyTimeZone() throws {
        let (a, first) = try export([], to: "a.pdf", environment: ["TZ": "UTC"])
        let (b, second) = try export([], to: "b.pdf", environment: ["TZ": "Pacific/Kiritimati"])
        try #require(a.status == 0 && b.status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: first)) == Data(contentsOf: URL(fileURLWithPath: second)))
        let (c, third) = try export([], to: "c.pdf", environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        try #require(c.status == 0)
        let info = try ExternalTool.run("pdfinfo", ["-isodates", third]).stdout
        #expect(info.contains("2023-11-14T22:13:20"), "\(info)")
        #expect((try? FileManager.default.attributesOfItem(atPath: first)[.posixPermissions] as? Int) == 0o600)
    }

    /// The calendar opening 2025 is drawn: its page renders with shaded cells.
    @Test(.enabled(if: readers))
    func eachYearOpensWithACalendarOfShadedDays() throws {
        let (run, book) = try export(["--from", "2025-01-01"])
        try #require(run.status == 0, "\(run.stderr)")
        let text = try ExternalTool.run("pdftotext", ["-f", "6", "-l", "6", "-layout", book, "-"]).stdout
        #expect(text.contains("2025") && text.contains("January") && text.contains("December"), "\(text)")
        let base = dir.path + "/calendar"
        let render = try ExternalTool.run("pdftoppm", ["-f", "6", "-l", "6", "-r", "40", "-gray", book, base])
        try #require(render.status == 0, "\(render.stderr)")
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasPrefix("calendar") })
        let pixels = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.path + "/" + file)))
        // PGM: a header of three lines, then one byte a pixel; shaded cells are mid-grey.
        let grey = pixels.suffix(pixels.count / 2).filter { (150...225).contains($0) }.count
        #expect(grey > 100, "\(grey) grey pixels")
    }

    @Test(.enabled(if: readers))
    func aDamagedOrForeignPhotoIsLeftOutWithOneWarningAndTheBookIsStillMade() throws {
        _ = dir.file("bad/broken.jpg", "\u{FF}not a jpeg at all")
        _ = dir.file("bad/phone.heic", "\0\0\0\u{18}ftypheic")
        let add = try QuireBinary.run(["add", "--title", "Bad photos", "--date", "2025-08-01T10:00:00+02:00", "--body", "Two photos that cannot be shown."], store: store)
        try #require(add.status == 0, "\(add.stderr)")
        let id = add.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for file in ["broken.jpg", "phone.heic"] {
            let attach = try QuireBinary.run(["attach", id, dir.path + "/bad/" + file, "--kind", "photo"], store: store)
            try #require(attach.status == 0, "\(attach.stderr)")
        }
        let (run, book) = try export()
        #expect(run.status == 0, "\(run.stderr)")
        let warnings = run.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings.count == 1 && warnings[0].contains("broken.jpg") && warnings[0].contains("phone.heic"), "\(run.stderr)")
        #expect(try ExternalTool.run("qpdf", ["--check", book]).status == 0)
    }

    /// The review's hostile photos, each a header that claims far more pixels than its bytes:
    /// a 40-byte JPEG claiming 20000×20000 (1.6 GB of pixels for a carrier surface), a palette
    /// PNG claiming 30000×30000 (cairo would decode it: 3.6 GB) and an RGB PNG claiming
    /// 65535×32768 (8 GiB to inflate and count). Each is left out by its name, in the PDF and
    /// as an image of the EPUB, and refused as a cover in one line; the books are made.
    /// (Their time and memory before and after: `bench/hostile-images`.)
    @Test(.enabled(if: readers))
    func photosClaimingTooManyPixelsAreLeftOutByName() throws {
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0] + be16(17) + [8] + be16(20000) + be16(20000) + [3, 1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1, 0xFF, 0xD9]
        func png(_ w: Int, _ h: Int, colorType: UInt8) -> [UInt8] {
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + be32(w) + be32(h) + [8, colorType, 0, 0, 0] + be32(0)
                + be32(0) + Array("IEND".utf8) + be32(0)
        }
        let files = [("huge.jpg", jpeg), ("palette.png", png(30000, 30000, colorType: 3)), ("inflating.png", png(65535, 32768, colorType: 2))]
        let add = try QuireBinary.run(["add", "--title", "Bombs", "--date", "2025-08-02T10:00:00+02:00", "--body", "Photos that lie."], store: store)
        let id = add.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for (name, bytes) in files {
            let attach = try QuireBinary.run(["attach", id, dir.file("bombs/" + name, bytes: bytes), "--kind", "photo"], store: store)
            try #require(attach.status == 0, "\(attach.stderr)")
        }
        let (run, book) = try export(to: "bombs.pdf")
        #expect(run.status == 0, "\(run.stderr)")
        let warning = run.stderr.split(separator: "\n").first { $0.hasPrefix("warning:") } ?? ""
        #expect(files.allSatisfy { warning.contains($0.0) } && warning.contains("more pixels than a book shows"), "\(run.stderr)")
        #expect(try ExternalTool.run("qpdf", ["--check", book]).status == 0)
        let epub = try QuireBinary.run(["export", "epub", dir.path + "/bombs.epub"], store: store)
        #expect(epub.status == 0, "\(epub.stderr)")
        let listing = try ExternalTool.run("unzip", ["-l", dir.path + "/bombs.epub"]).stdout
        for (_, bytes) in files { #expect(!listing.contains(String(SHA256.hex(of: bytes).prefix(24))), "an image the reader would decode whole") }
        for format in ["pdf", "epub"] {
            let cover = try QuireBinary.run(["export", format, dir.path + "/cover." + format, "--cover", dir.path + "/bombs/huge.jpg"], store: store)
            #expect(cover.status == 1 && cover.stderr.contains("more pixels than a book shows"), "\(cover.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/cover." + format))
        }
    }

    /// Hebrew with a Latin word inside, emoji, a 300-character word and a long URL: shaped,
    /// kept in the text block, and the book is made without a warning for them.
    @Test(.enabled(if: readers))
    func hebrewEmojiAndWordsNoLineCanHoldAreSetInsideThePage() throws {
        let word = String(repeating: "долгоесловобезпробелов", count: 14)
        let body = "בוקר טוב ירושלים, היום ביקרתי ב-Google ובשוק.\n\nA day 🌅🎉👍🏽 with emoji.\n\n" + word
            + "\n\nhttps://example.org/a/very/long/path/that/goes/on/and/on/without/any/place/to/break/it/at/all/really/none"
        let add = try QuireBinary.run(["add", "--title", "שלום", "--date", "2025-09-09T09:00:00+03:00", "--body", body], store: store)
        try #require(add.status == 0, "\(add.stderr)")
        let (run, book) = try export(["--from", "2025-09-01", "--to", "2025-09-30"])
        try #require(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("fonts-noto-core") && !run.stderr.contains("fonts-noto-cjk"), "\(run.stderr)")
        #expect(try ExternalTool.run("qpdf", ["--check", book]).status == 0)
        let text = try ExternalTool.run("pdftotext", ["-enc", "UTF-8", book, "-"]).stdout
        let flat = Self.flattened(text)
        #expect(flat.contains("Google") && flat.contains("with emoji."))
        #expect(flat.replacingOccurrences(of: " ", with: "").contains(word), "the long word is all there")
        let hebrew = String(String.UnicodeScalarView(text.unicodeScalars.filter { (0x05D0...0x05EA).contains($0.value) }))
        for w in ["בוקר", "טוב", "ירושלים", "ביקרתי"] {
            #expect(hebrew.contains(w) || hebrew.contains(String(w.reversed())), "missing Hebrew word \(w)")
        }
        let boxes = try ExternalTool.run("pdftotext", ["-bbox", book, "-"]).stdout
        let geometry = PageGeometry(.a5)
        let xMax = Self.matches(of: "xMax=\"([0-9.]+)\"", in: boxes).compactMap(Double.init).max() ?? .infinity
        #expect(xMax <= geometry.size.width - min(geometry.inner, geometry.outer) + 1, "a word runs past the margin: \(xMax)")
    }

    /// A character no installed font has is drawn as a box, and the book says, once, which
    /// package to install; the book is made all the same.
    @Test(.enabled(if: readers))
    func aCharacterNoFontHasNamesThePackageToInstall() throws {
        let add = try QuireBinary.run(["add", "--title", "Unassigned", "--date", "2025-10-10T10:00:00+02:00",
                                       "--body", "A letter no font has: \u{0378}."], store: store)
        try #require(add.status == 0, "\(add.stderr)")
        let (run, book) = try export(["--from", "2025-10-01", "--to", "2025-10-31", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let warnings = try JSONValue.parse(run.stdout).object?["warnings"]?.array?.compactMap(\.string) ?? []
        #expect(warnings == ["1 entry has characters no installed font can show: install fonts-noto-core"], "\(warnings)")
        #expect(try ExternalTool.run("qpdf", ["--check", book]).status == 0)
    }

    /// A phone's photo stored sideways with EXIF orientation 6 is shown upright: taller than
    /// wide on the page, its JPEG bytes embedded as they are.
    @Test(.enabled(if: readers))
    func aPhotoTurnedByItsExifOrientationIsShownUpright() throws {
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: VariedJournal.media + "/photo.jpg")))
        let stored = try #require(PageImage(path: VariedJournal.media + "/photo.jpg"))
        try #require(stored.width != stored.height && stored.orientation == 1)
        // APP1: "Exif\0\0", a big-endian TIFF header, IFD0 with one entry: Orientation = 6.
        let tiff: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        let app1 = Array("Exif".utf8) + [0, 0] + tiff
        let turned = [0xFF, 0xD8, 0xFF, 0xE1, UInt8((app1.count + 2) >> 8), UInt8((app1.count + 2) & 0xFF)] + app1 + original.dropFirst(2)
        let file = dir.path + "/sideways.jpg"
        try Data(turned).write(to: URL(fileURLWithPath: file))
        let image = try #require(PageImage(path: file))
        #expect(image.orientation == 6 && image.shownWidth == stored.height && image.shownHeight == stored.width)

        let add = try QuireBinary.run(["add", "--title", "Sideways", "--date", "2025-10-10T10:00:00+02:00", "--body", "Held the phone sideways."], store: store)
        try #require(add.status == 0, "\(add.stderr)")
        let attach = try QuireBinary.run(["attach", add.stdout.trimmingCharacters(in: .whitespacesAndNewlines), file, "--kind", "photo"], store: store)
        try #require(attach.status == 0, "\(attach.stderr)")
        let (run, book) = try export(["--from", "2025-10-10", "--to", "2025-10-10"])
        try #require(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        let images = try ExternalTool.run("pdfimages", ["-list", book]).stdout.split(separator: "\n").dropFirst(2)
        let row = try #require(images.first).split(separator: " ")
        #expect(row.contains("jpeg") && row[3] == Substring(String(stored.width)) && row[4] == Substring(String(stored.height)), "\(images)")
        // The image is drawn turned a quarter: in the matrix that places it (a b c d e f cm),
        // the stored width runs down the page (b) and its height across (c).
        let plain = dir.path + "/sideways-qdf.pdf"
        _ = try ExternalTool.run("qpdf", ["--qdf", "--object-streams=disable", book, plain])
        let content = String(decoding: try Data(contentsOf: URL(fileURLWithPath: plain)), as: UTF8.self)
        let matrix = try #require(Self.matches(of: "((?:-?[0-9.]+ ){6})cm\\s*(?:/[A-Za-z0-9]+ gs\\s*)?/[A-Za-z0-9]+ Do", in: content).last)
        let m = matrix.split(separator: " ").compactMap { Double($0) }
        try #require(m.count == 6, "\(matrix)")
        #expect(abs(m[0]) < 0.01 && abs(m[3]) < 0.01 && abs(m[1]) > 1 && abs(m[2]) > 1, "not turned: \(matrix)")
        #expect((abs(m[1]) > abs(m[2])) == (stored.width > stored.height), "\(matrix)")
    }

    /// An 8-bit RGB PNG goes into the book as its own compressed pixels (FlateDecode with PNG's
    /// predictors), which read back as exactly its pixels; one with alpha is decoded as before;
    /// a damaged one (a bad CRC, or a deflate stream that breaks with a right CRC) is left out
    /// with the warning, never embedded broken.
    @Test(.enabled(if: readers))
    func anRGBPNGKeepsItsCompressedPixelsAndADamagedOneIsLeftOut() throws {
        let script = #"""
            import struct, sys, zlib
            out = sys.argv[1]
            def chunk(kind, data, crc=None):
                return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc if crc is not None else zlib.crc32(kind + data))
            def png(name, mode, idat=None, crc=None):
                w, h, n = 40, 30, (3 if mode == 2 else 4)
                raw = b"".join(bytes([y % 5]) + bytes(((x * 7 + y * 3 + c * 50) % 256) for x in range(w) for c in range(n)) for y in range(h))
                data = idat if idat is not None else zlib.compress(raw, 9)
                open(out + "/" + name, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, mode, 0, 0, 0))
                    + chunk(b"IDAT", data, crc) + chunk(b"IEND", b""))
                return raw, data
            raw, data = png("rgb.png", 2)
            # The pixels as a reader sees them: each row unfiltered (rows use filters 0-4 over
            # bytes that are not all predictable, so compute them as libpng would).
            def unfilter(raw, w, h, n):
                stride, rows, prev = w * n, [], bytes(w * n)
                for y in range(h):
                    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
                    for i in range(stride):
                        a = line[i - n] if i >= n else 0
                        b, c = prev[i], (prev[i - n] if i >= n else 0)
                        p = a + b - c
                        pr = a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else (b if abs(p - b) <= abs(p - c) else c)
                        line[i] = (line[i] + [0, a, b, (a + b) // 2, pr][f]) % 256
                    rows.append(bytes(line)); prev = bytes(line)
                return b"".join(rows)
            open(out + "/rgb.pixels", "wb").write(unfilter(raw, 40, 30, 3))
            png("alpha.png", 6)
            png("badcrc.png", 2, crc=12345)
            png("baddeflate.png", 2, idat=data[:40] + bytes(len(data) - 40))
            """#
        let folder = dir.path + "/pngs"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let made = try ExternalTool.run("python3", ["-c", script, folder])
        try #require(made.status == 0, "\(made.stderr)")
        let add = try QuireBinary.run(["add", "--title", "PNGs", "--date", "2025-11-11T11:00:00+01:00", "--body", "Four PNGs."], store: store)
        try #require(add.status == 0, "\(add.stderr)")
        for name in ["rgb.png", "alpha.png", "badcrc.png", "baddeflate.png"] {
            let attach = try QuireBinary.run(["attach", add.stdout.trimmingCharacters(in: .whitespacesAndNewlines), folder + "/" + name, "--kind", "photo"], store: store)
            try #require(attach.status == 0, "\(attach.stderr)")
        }
        let (run, book) = try export(["--from", "2025-11-11", "--to", "2025-11-11"])
        try #require(run.status == 0, "\(run.stderr)")
        let warnings = run.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings.count == 1 && warnings[0].contains("badcrc.png") && warnings[0].contains("baddeflate.png")
                && !warnings[0].contains("rgb.png") && !warnings[0].contains("alpha.png"), "\(run.stderr)")
        #expect(try ExternalTool.run("qpdf", ["--check", book]).status == 0)
        let json = try JSONValue.parse(try ExternalTool.run("qpdf", ["--json=2", "--json-key=qpdf", book]).stdout)
        let objects = json.object?["qpdf"]?.array?.last?.object ?? [:]  // [header, {"obj:N 0 R": …}]
        let images = objects.compactMap { name, value -> (String, [String: JSONValue])? in
            guard let dict = value.object?["stream"]?.object?["dict"]?.object, dict["/Subtype"]?.string == "/Image",
                  dict["/Width"]?.number == 40 else { return nil }
            return (name, dict)
        }
        let passed = images.filter { $0.1["/DecodeParms"]?.object?["/Predictor"]?.number == 15 }
        #expect(images.count == 3 && passed.count == 1, "\(images.map { $0.1 })")  // rgb, alpha and alpha's mask
        // "obj:12 0 R" → 12: qpdf decodes the stream, predictors and all.
        let number = try #require(passed.first?.0.dropFirst(4).split(separator: " ").first.map(String.init))
        let expected = try Data(contentsOf: URL(fileURLWithPath: folder + "/rgb.pixels"))
        let decoded = try ExternalTool.runBytes("qpdf", ["--show-object=\(number)", "--filtered-stream-data", book]).stdout
        #expect(decoded == expected, "the pixels read back differ (\(decoded.count) bytes, \(expected.count) expected)")
    }

    @Test func badInputIsAOneLineErrorAndLeavesNothingBehind() throws {
        let (size, _) = try export(["--page-size", "b7"])
        #expect(size.status == 2 && size.stderr.contains("unknown page size 'b7'"), "\(size.stderr)")
        let (folder, _) = try export([], to: "no/such/folder/book.pdf")
        #expect(folder.status == 1 && folder.stderr.contains("no such folder"), "\(folder.stderr)")
        let notImage = dir.file("cover.txt", "hello")
        let (cover, path) = try export(["--cover", notImage])
        #expect(cover.status == 1 && cover.stderr.contains("JPEG or PNG"), "\(cover.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path))
        let (templates, _) = try export(["--templates", dir.path])
        #expect(templates.status == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.hasPrefix(".quire-pdf") })
        for run in [size, folder, cover] { #expect(run.stderr.split(separator: "\n").filter { $0.hasPrefix("quire: error:") }.count == 1, "\(run.stderr)") }
    }

    @Test func pageSizesParse() {
        #expect(PageSize(parsing: "A5") == .a5)
        #expect(PageSize(parsing: "6x9in") == PageSize(width: 432, height: 648, name: "6x9in"))
        #expect(PageSize(parsing: "148x210")?.width == 419.53)
        #expect(PageSize(parsing: "21x29.7cm")?.height == 841.89)
        for bad in ["", "x", "0x0", "1x1in", "100x100in", "axbmm", "5x", "nanxnan", "-5x-5in"] { #expect(PageSize(parsing: bad) == nil, "\(bad)") }
    }

    @Test func hyphenationPointsComeFromTheLanguagesDictionary() throws {
        let english = try #require(Hyphenator(language: "en"))
        #expect(english.hyphenate("hyphenation, of course").contains("\u{AD}"))
        #expect(english.hyphenate("short words").unicodeScalars.allSatisfy { $0 != "\u{AD}" })
        #expect(english.hyphenate("hyphenation").replacingOccurrences(of: "\u{AD}", with: "") == "hyphenation")
        let russian = try #require(Hyphenator(language: "ru"))  // a KOI8-R dictionary
        let word = russian.hyphenate("достопримечательность")
        #expect(word.contains("\u{AD}") && word.replacingOccurrences(of: "\u{AD}", with: "") == "достопримечательность")
        #expect(russian.hyphenate("Latin inside") == "Latin inside")
        #expect(Hyphenator(language: "xx") == nil && Hyphenator(language: "../etc") == nil)
        // The other languages of the book catalogues, their dictionaries UTF-8 or ISO 8859-1.
        for (language, long) in [("de", "Sehenswürdigkeiten"), ("fr", "extraordinairement"), ("it", "straordinariamente"),
                                 ("pt-BR", "extraordinariamente"), ("pt-PT", "extraordinariamente"), ("uk", "визначний")] {
            let hyphenator = try #require(Hyphenator(language: language), "no dictionary for \(language)")
            let word = hyphenator.hyphenate(long)
            #expect(word.contains("\u{AD}") && word.replacingOccurrences(of: "\u{AD}", with: "") == long, "\(language): \(word)")
        }
    }

    /// A paragraph of 5 MB (an imported entry whose lines are one paragraph) is hyphenated
    /// in one pass: appending each short word copied all the text before it (16 GB for 400 KB).
    /// Fails loudly past a deadline: this takes some 3 s in a debug build, and the copies
    /// took past the deadline (16.5 s for half of it).
    @Test func aLongParagraphIsHyphenatedInOnePass() throws {
        let paragraph = String(repeating: "hyphenation of short words, ", count: 180_000)
        let done = DispatchSemaphore(value: 0)
        let box = HyphenatedBox()
        Thread.detachNewThread {
            box.text = Hyphenator(language: "en")?.hyphenate(paragraph)
            done.signal()
        }
        try #require(done.wait(timeout: .now() + 30) == .success, "hyphenating 5 MB took over 30 s")
        let text = try #require(box.text)
        #expect(text.count > paragraph.count && text.replacingOccurrences(of: "\u{AD}", with: "") == paragraph)
    }

    // MARK: Reading back

    /// Text with white space collapsed and line-end hyphens and CJK line breaks undone.
    static func flattened(_ text: String) -> String {
        // A word broken at a hyphenation point is copied with a soft hyphen before the break.
        var result = text.replacingOccurrences(of: "\u{AD}\\s*", with: "", options: .regularExpression)
        result = result.replacingOccurrences(of: "([\\p{Han}\\p{Hiragana}\\p{Katakana}、。])\\s+(?=[\\p{Han}\\p{Hiragana}\\p{Katakana}、。])", with: "$1", options: .regularExpression)
        return result.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The Arabic letters of `text`, presentation forms folded, marks and spaces dropped.
    static func arabicLetters(_ text: String) -> String {
        let folded = text.precomposedStringWithCompatibilityMapping
        return String(String.UnicodeScalarView(folded.unicodeScalars.filter { (0x0621...0x064A).contains($0.value) }))
    }

    static func matches(of pattern: String, in text: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}

private final class HyphenatedBox: @unchecked Sendable {  // written by one thread, read after its signal
    var text: String?
}
