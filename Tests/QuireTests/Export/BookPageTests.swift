import Foundation
import Testing
@testable import QuireExport
@testable import QuireStore

/// The reading book's pages as a reader sees them, read back with poppler: the running head
/// of every page, where each year's calendar falls, how paragraphs are marked and the body's
/// leading.
@Suite struct BookPageTests {
    let dir = TempDir()

    static var readers: Bool { ["pdfinfo", "pdftotext"].allSatisfy(ExternalTool.available) }

    /// A word pdftotext found, with its box in points from the top left of its page.
    struct Word {
        let x0, y0, x1, y1: Double
        let text: String
    }

    /// Every page's words, in the order pdftotext gives them.
    static func pages(of book: String) throws -> [[Word]] {
        let html = try ExternalTool.run("pdftotext", ["-bbox", "-enc", "UTF-8", book, "-"]).stdout
        let pattern = try NSRegularExpression(pattern: "<word xMin=\"([0-9.]+)\" yMin=\"([0-9.]+)\" xMax=\"([0-9.]+)\" yMax=\"([0-9.]+)\">([^<]*)</word>")
        return html.components(separatedBy: "<page ").dropFirst().map { page in
            pattern.matches(in: page, range: NSRange(page.startIndex..., in: page)).compactMap { match in
                let groups = (1...5).compactMap { Range(match.range(at: $0), in: page).map { String(page[$0]) } }
                guard groups.count == 5, let x0 = Double(groups[0]), let y0 = Double(groups[1]),
                      let x1 = Double(groups[2]), let y1 = Double(groups[3]) else { return nil }
                return Word(x0: x0, y0: y0, x1: x1, y1: y1, text: groups[4])
            }
        }
    }

    /// The book's named destinations: name → page.
    static func destinations(of book: String) throws -> [String: Int] {
        let listing = try ExternalTool.run("pdfinfo", ["-dests", book]).stdout
        var found: [String: Int] = [:]
        for line in listing.split(separator: "\n") {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let page = columns.first.flatMap({ Int($0) }), let name = columns.last, name.hasPrefix("\""), name.hasSuffix("\"") else { continue }
            found[String(name.dropFirst().dropLast())] = page
        }
        return found
    }

    /// Every page with entries on it carries the name of the month they belong to at its
    /// head, the month's last page included; a month's first page, a year's calendar and
    /// blank pages carry none. Each year's calendar is a left-hand page facing its first month.
    @Test(.enabled(if: readers))
    func everyPagesRunningHeadNamesTheMonthOfItsEntries() throws {
        let store = try VariedJournal.make(in: dir, generated: 60)
        let book = dir.path + "/book.pdf"
        let run = try QuireBinary.run(["export", "pdf", book, "--no-photos"], store: store)
        try #require(run.status == 0, "\(run.stderr)")
        let geometry = PageGeometry(.a5)
        let destinations = try Self.destinations(of: book)
        let monthStarts = destinations.filter { $0.key.hasPrefix("m-") }.map { (page: $0.value, key: String($0.key.dropFirst(2))) }.sorted { $0.page < $1.page }
        let calendars = destinations.filter { $0.key.hasPrefix("y-") }
        try #require(monthStarts.count >= 10 && calendars.count == 2, "\(destinations.keys.sorted())")
        let names = DateFormatter()
        names.locale = Locale(identifier: "en_US_POSIX")
        func name(of key: String) -> String {
            let month = Int(key.split(separator: "-").last ?? "") ?? 0
            return (1...12).contains(month) ? names.standaloneMonthSymbols[month - 1].uppercased() : "?"
        }
        var wrong: [String] = [], headed = 0
        let pages = try Self.pages(of: book)
        for (index, words) in pages.enumerated() {
            let page = index + 1
            guard let month = monthStarts.last(where: { $0.page <= page }) else { continue }
            let head = words.filter { $0.y1 < geometry.top }.map(\.text).joined(separator: " ")
            let body = words.filter { $0.y0 >= geometry.top && $0.y1 <= geometry.size.height - geometry.bottom }
            let bare = page == month.page || calendars.values.contains(page) || body.isEmpty
            let expected = bare ? "" : name(of: month.key)
            if head != expected { wrong.append("page \(page) (\(month.key)): head \"\(head)\", expected \"\(expected)\"") }
            if !expected.isEmpty { headed += 1 }
        }
        #expect(headed > 30)
        #expect(wrong.isEmpty, "\(wrong.prefix(6).joined(separator: "\n"))")
        for (key, page) in calendars {
            #expect(page % 2 == 0, "\(key) on page \(page), a right-hand page")
            let first = monthStarts.first { $0.key.hasPrefix(key.dropFirst(2) + "-") }
            #expect(first?.page == page + 1, "\(key) on page \(page), its first month on \(first?.page ?? 0)")
        }
    }

    /// A cover looks like one: without a photo, the title in white on a field of colour that
    /// fills the page; with one, the photo filling the page (a landscape photo cropped, never
    /// letterboxed on white) and the title over it.
    @Test(.enabled(if: readers && ExternalTool.available("pdftoppm")))
    func theCoverFillsItsPage() throws {
        let store = try VariedJournal.make(in: dir, generated: 0)
        for (name, extra) in [("plain", ["--author", "Анна"]), ("photo", ["--cover", VariedJournal.media + "/photo.jpg"])] {
            let book = dir.path + "/\(name).pdf"
            let run = try QuireBinary.run(["export", "pdf", book, "--title", "Дневник", "--no-photos"] + extra, store: store)
            try #require(run.status == 0, "\(run.stderr)")
            let text = try ExternalTool.run("pdftotext", ["-f", "1", "-l", "1", "-enc", "UTF-8", book, "-"]).stdout
            #expect(text.contains("Дневник"), "\(name): \(text)")
            let render = try ExternalTool.run("pdftoppm", ["-f", "1", "-l", "1", "-r", "30", "-gray", book, dir.path + "/\(name)"])
            try #require(render.status == 0, "\(render.stderr)")
            let file = try #require(try FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasPrefix(name + "-") && $0.hasSuffix(".pgm") })
            let (width, pixels) = try Self.pgm(dir.path + "/" + file)
            let rows = pixels.count / width
            func mean(_ row: Int) -> Double { Double(pixels[(row * width)..<((row + 1) * width)].reduce(0) { $0 + Int($1) }) / Double(width) }
            // Near white would be 255; a letterboxed photo leaves its top and bottom rows so (the
            // last row of pixels may lie mostly below the page's edge).
            #expect(mean(0) < 200 && mean(rows - 2) < 200, "\(name): top row \(mean(0)), bottom row \(mean(rows - 2))")
            if name == "plain" {
                let dark = pixels.filter { $0 < 128 }.count
                #expect(Double(dark) / Double(pixels.count) > 0.9, "\(name): \(dark) of \(pixels.count) pixels dark")
            }
        }
    }

    /// A binary PGM's width and pixels.
    static func pgm(_ path: String) throws -> (width: Int, pixels: [UInt8]) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // "P5", width, height, maximum, each after white space; the pixels after one more.
        var fields: [Int] = [], at = 2, current = ""
        while fields.count < 3, at < bytes.count {
            let c = bytes[at]
            if (48...57).contains(c) { current.append(Character(UnicodeScalar(c))) } else if !current.isEmpty { fields.append(Int(current) ?? 0); current = "" }
            at += 1
        }
        try #require(fields.count == 3 && fields[0] > 0 && bytes.count - at >= fields[0] * fields[1], "not a PGM: \(path)")
        return (fields[0], Array(bytes[at..<(at + fields[0] * fields[1])]))
    }

    /// A soft hyphen is in the text a viewer copies and searches only where a line breaks:
    /// inside a ligature ("cof\u{AD}fee", the ff one glyph) it used to stay, and a search for
    /// "coffee" missed it.
    @Test(.enabled(if: readers))
    func softHyphensReachTheTextLayerOnlyWhereALineBreaks() throws {
        let sentence = "We drank coffee and ate waffles, officially the finest offer of the afflicted office. "
        let line = try JSONSerialization.data(withJSONObject: ["created": "2025-05-04T10:00:00Z", "title": "Coffee",
                                                               "body": String(repeating: sentence, count: 12)], options: [.sortedKeys])
        let store = dir.path + "/store"
        try #require(try QuireBinary.run(["import", dir.file("one.jsonl", String(decoding: line, as: UTF8.self) + "\n")], store: store).status == 0)
        let book = dir.path + "/book.pdf"
        let run = try QuireBinary.run(["export", "pdf", book, "--lang", "en"], store: store)
        try #require(run.status == 0, "\(run.stderr)")
        let text = try ExternalTool.run("pdftotext", ["-enc", "UTF-8", book, "-"]).stdout
        let inner = text.components(separatedBy: "\u{AD}").dropFirst().filter { !$0.hasPrefix("\n") }
        #expect(inner.isEmpty, "soft hyphens inside lines, before: \(inner.map { String($0.prefix(12)) })")
        let joined = text.replacingOccurrences(of: "\u{AD}\n", with: "")
        #expect(joined.components(separatedBy: "coffee").count - 1 == 12)
        #expect(joined.components(separatedBy: "waffles").count - 1 == 12)
        #expect(joined.components(separatedBy: "officially").count - 1 == 12)
    }

    /// A paragraph after another is marked by a first-line indent of an em, with no space
    /// between them; the first of an entry, and one after a list, start flush. Lines follow
    /// each other at about 1.36 times the body size.
    @Test(.enabled(if: readers))
    func paragraphsAreIndentedAfterTheFirstAndSetAtABooksLeading() throws {
        let words = "the morning light came slowly over the hills and the village woke to the sound of bells ringing far away "
        let body = ["Firstword " + String(repeating: words, count: 3), "Secondword " + String(repeating: words, count: 3),
                    "Thirdword " + String(repeating: words, count: 2), "- an item\n- another item", "Fourthword " + words]
            .joined(separator: "\n\n")
        let line = try JSONSerialization.data(withJSONObject: ["created": "2025-05-04T10:00:00Z", "title": "Paragraphs", "body": body], options: [.sortedKeys])
        let file = dir.file("one.jsonl", String(decoding: line, as: UTF8.self) + "\n")
        let store = dir.path + "/store"
        try #require(try QuireBinary.run(["import", file], store: store).status == 0)
        let book = dir.path + "/book.pdf"
        let run = try QuireBinary.run(["export", "pdf", book, "--lang", "en"], store: store)
        try #require(run.status == 0, "\(run.stderr)")
        let geometry = PageGeometry(.a5), size = geometry.bodySize
        let pages = try Self.pages(of: book)
        let index = try #require(pages.firstIndex { $0.contains { $0.text == "Firstword" } })
        let left = geometry.left(page: index + 1)
        // The page's lines of body text, each as its top and its first word.
        let text = pages[index].filter { $0.y0 >= geometry.top && $0.y1 <= geometry.size.height - geometry.bottom && $0.y0 > (pages[index].first { $0.text == "Firstword" }?.y0 ?? 0) - 1 }
        let tops = Set(text.map { ($0.y0 * 10).rounded() / 10 }).sorted()
        let lines = tops.compactMap { top in text.filter { abs($0.y0 - top) < 0.06 }.min { $0.x0 < $1.x0 } }
        func offset(_ word: String) -> Double? { lines.first { $0.text == word }.map { $0.x0 - left } }
        let (first, second, third, fourth) = (offset("Firstword"), offset("Secondword"), offset("Thirdword"), offset("Fourthword"))
        #expect(first.map { abs($0) < 0.5 } == true, "Firstword at \(first ?? -1)")
        #expect(second.map { abs($0 - size) < 0.5 } == true, "Secondword at \(second ?? -1), an em is \(size)")
        #expect(third.map { abs($0 - size) < 0.5 } == true, "Thirdword at \(third ?? -1)")
        #expect(fourth.map { abs($0) < 0.5 } == true, "Fourthword after a list at \(fourth ?? -1)")
        // From Firstword's line to Thirdword's, every line one pitch below the last: no space
        // between the paragraphs, and the pitch a book's.
        let start = try #require(lines.firstIndex { $0.text == "Firstword" }), end = try #require(lines.firstIndex { $0.text == "Thirdword" })
        let steps = zip(lines[start...end], lines[(start + 1)...end]).map { $1.y0 - $0.y0 }
        try #require(steps.count >= 6, "\(lines.map { $0.text })")
        let pitch = steps.sorted()[steps.count / 2]
        #expect((1.3...1.42).contains(pitch / size), "line pitch \(pitch) for a body of \(size) pt")
        #expect(steps.allSatisfy { abs($0 - pitch) < 0.3 }, "\(steps)")
    }
}

/// Where the page flow breaks a paragraph at the foot of a page, measured without drawing.
@Suite struct PageBreakTests {
    let fonts = FontContext()
    let geometry = PageGeometry(.a5)
    var style: TextStyle { TextStyle(font: BookFonts.serif("en"), size: geometry.bodySize, leading: 1.0, language: "en") }

    /// A paragraph of `count` lines (hard breaks, so Pango makes exactly so many).
    func paragraph(_ count: Int) throws -> PageFlow.Laid {
        let laid = try #require(PageFlow.lay(StyledText((1...count).map { "line \($0)" }.joined(separator: "\n"), language: "en"), style: style,
                                             in: TextBlock(geometry: geometry, fonts: fonts)))
        try #require(laid.layout.lines.count == count)
        return laid
    }

    /// Where the paragraph's lines fall: (page, lines on it) in order, after filling the first
    /// page until `room` lines of the body are left.
    func pages(of count: Int, room: Int) throws -> [Int] {
        let flow = PageFlow(geometry: geometry, fonts: fonts, canvas: nil)
        let laid = try paragraph(count), two = try paragraph(2)
        let pitch = two.layout.lines[1].top - two.layout.lines[0].top
        flow.newPage()
        flow.move(toAtLeast: flow.bottom - pitch * (Double(room) + 0.5))
        let start = (page: flow.page, y: flow.y)
        flow.place(laid)
        // Lines on the first page, then on the next.
        if flow.page == start.page { return [count] }
        let onNext = Int(((flow.y - geometry.top) / pitch).rounded())
        return count == onNext ? [0, count] : [count - onNext, onNext]
    }

    @Test func aShortParagraphMovesWholeRatherThanLeaveOneLineAlone() throws {
        #expect(try pages(of: 2, room: 1) == [0, 2])   // no orphan
        #expect(try pages(of: 3, room: 1) == [0, 3])   // no orphan
        #expect(try pages(of: 3, room: 2) == [0, 3])   // no widow
        #expect(try pages(of: 3, room: 3) == [3])
        #expect(try pages(of: 1, room: 1) == [1])
    }

    @Test func aLongerParagraphIsSplitWithTwoLinesAtLeastOnEachPage() throws {
        #expect(try pages(of: 5, room: 1) == [0, 5])
        #expect(try pages(of: 5, room: 2) == [2, 3])
        #expect(try pages(of: 5, room: 4) == [3, 2])
        #expect(try pages(of: 4, room: 3) == [2, 2])
    }

    /// A photo that does not fit what is left of the page is shrunk to it when it keeps half
    /// its height and a quarter of the page's, so it stays with its entry; with less room it
    /// starts the next page.
    @Test func aPhotoShrinksToStayWithItsEntryWhenEnoughOfItFits() throws {
        // A 3000 × 2000 photo: the text block's width, two thirds of it tall (read from no file:
        // the flow only measures).
        let photo = PageImage(path: "/nonexistent", kind: .jpeg, width: 3000, height: 2000)
        let height = geometry.textWidth * 2 / 3
        try #require(height > geometry.textHeight * 0.25 && height < geometry.textHeight * 0.8)
        for (room, staysOnPage) in [(0.6, true), (0.9, true), (0.45, false), (0.2, false)] {
            let flow = PageFlow(geometry: geometry, fonts: fonts, canvas: nil)
            flow.newPage()
            flow.move(toAtLeast: flow.bottom - height * room)
            try flow.photo(photo)
            #expect((flow.page == 1) == staysOnPage, "room for \(room) of the photo: page \(flow.page)")
            if staysOnPage { #expect(abs(flow.y - flow.bottom) < 0.01) }
        }
    }
}
