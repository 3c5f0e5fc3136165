import Foundation
import Testing
@testable import QuireExport
@testable import QuireStore

/// `quire export pdf --print` on the varied journal (photos, Arabic, Japanese, Russian),
/// read back as a printer's preflight would: qpdf's JSON for the boxes, the output intent and
/// the absence of links and bookmarks, pdffonts for the fonts, pdfimages for the photos' ppi.
@Suite struct PrintBookTests {
    let dir = TempDir()
    let store: String

    init() throws { store = try VariedJournal.make(in: dir, generated: 20) }

    static var tools: Bool { ["qpdf", "pdffonts", "pdfimages", "gs"].allSatisfy(ExternalTool.available) }

    func export(_ arguments: [String], to name: String, environment: [String: String] = [:]) throws -> (QuireRun, String) {
        let out = dir.path + "/" + name
        let run = try QuireBinary.run(["export", "pdf", out, "--print", "--json"] + arguments, store: store, environment: environment)
        return (run, out)
    }

    /// qpdf's objects of the file, by reference ("obj:12 0 R").
    static func objects(_ book: String) throws -> [String: JSONValue] {
        let json = try JSONValue.parse(try ExternalTool.run("qpdf", ["--json=2", "--json-key=qpdf", book]).stdout)
        return json.object?["qpdf"]?.array?.last?.object ?? [:]
    }

    static func value(_ object: JSONValue?) -> [String: JSONValue] { object?.object?["value"]?.object ?? [:] }

    static func numbers(_ box: JSONValue?) -> [Double] { box?.array?.compactMap(\.number) ?? [] }

    @Test(.enabled(if: tools))
    func thePrintFileIsPDFX3WithTrimAndBleedOnEveryPageAndNoLinksOrBookmarks() throws {
        let (run, book) = try export(["--page-size", "6x9in", "--bleed", "0.125in", "--title", "Дневник"], to: "print.pdf")
        try #require(run.status == 0, "\(run.stderr)")
        let objects = try Self.objects(book)
        let values = objects.values.map(Self.value)
        let pages = values.filter { $0["/Type"]?.string == "/Page" }
        #expect(pages.count % 2 == 0 && pages.count > 20, "\(pages.count) pages")
        #expect(try JSONValue.parse(run.stdout).object?["pages"]?.number == Double(pages.count))
        for page in pages {
            let media = Self.numbers(page["/MediaBox"]), trim = Self.numbers(page["/TrimBox"]), bleed = Self.numbers(page["/BleedBox"])
            try #require(media.count == 4 && trim.count == 4 && bleed.count == 4, "\(page)")
            // The trim is 6×9 in; the bleed box and the sheet reach 0.125 in past it on every side.
            #expect(abs(trim[2] - trim[0] - 432) < 0.01 && abs(trim[3] - trim[1] - 648) < 0.01, "\(trim)")
            #expect(zip(bleed, [trim[0] - 9, trim[1] - 9, trim[2] + 9, trim[3] + 9]).allSatisfy { abs($0 - $1) < 0.01 }, "\(bleed) around \(trim)")
            #expect(zip(media, bleed).allSatisfy { abs($0 - $1) < 0.01 }, "\(media)")
            #expect(page["/Annots"] == nil)
        }
        let catalog = try #require(values.first { $0["/Type"]?.string == "/Catalog" })
        #expect(catalog["/Outlines"] == nil)
        let intentRef = try #require(catalog["/OutputIntents"]?.array?.first?.string)
        let intent = Self.value(objects["obj:" + intentRef])
        #expect(intent["/S"]?.string == "/GTS_PDFX")
        let profile = try #require(intent["/DestOutputProfile"]?.string)
        #expect(objects["obj:" + profile] != nil)
        let infoRef = try #require(Self.value(objects["trailer"])["/Info"]?.string)
        let info = Self.value(objects["obj:" + infoRef])
        #expect(info["/GTS_PDFXVersion"]?.string == "u:PDF/X-3:2002", "\(info)")
        #expect(info["/Title"]?.string == "u:Дневник", "\(info)")
        #expect(!values.contains { $0["/Subtype"]?.string == "/Link" })

        let fonts = try ExternalTool.run("pdffonts", [book]).stdout.split(separator: "\n").dropFirst(2)
        #expect(fonts.count >= 4)
        for row in fonts {
            let columns = row.split(separator: " ")
            #expect(columns.count >= 6 && columns[columns.count - 5] == "yes", "not embedded: \(row)")
        }

        // Every photo under 300 ppi is named once, with the ppi pdfimages finds in the file.
        let warnings = try JSONValue.parse(run.stdout).object?["warnings"]?.array?.compactMap(\.string) ?? []
        let warned = warnings.compactMap { line -> Int? in
            guard line.hasPrefix("photo "), let range = line.range(of: " prints at ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        let listed = try ExternalTool.run("pdfimages", ["-list", book]).stdout.split(separator: "\n").dropFirst(2).compactMap { row -> Int? in
            let columns = row.split(separator: " ")
            guard columns.count > 12, columns[2] == "image", let ppi = Double(columns[12]) else { return nil }
            return Int(ppi.rounded())
        }
        #expect(!listed.isEmpty)
        #expect(listed.allSatisfy { $0 <= 301 }, "a photo above 300 ppi was kept: \(listed)")
        for ppi in warned { #expect(listed.contains { abs($0 - ppi) <= 2 }, "warned of \(ppi) ppi; pdfimages: \(listed)") }
        #expect(warned.count == listed.filter { $0 < 299 }.count, "\(warnings) vs \(listed)")

        // The same journal gives the same print file.
        let (again, second) = try export(["--page-size", "6x9in", "--bleed", "0.125in", "--title", "Дневник"], to: "print-again.pdf")
        try #require(again.status == 0, "\(again.stderr)")
        #expect(FileManager.default.contents(atPath: book) == FileManager.default.contents(atPath: second))

        // Its cover, sized from it: the page count and trim read from the file.
        let cover = dir.path + "/cover-for.pdf"
        let made = try QuireBinary.run(["export", "cover", cover, "--for", book, "--json"], store: store)
        try #require(made.status == 0, "\(made.stderr)")
        let width = try JSONValue.parse(made.stdout).object?["width_in"]?.number ?? 0
        #expect(abs(width - (2 * 6 + Double(pages.count) * 0.002252 + 2 * 0.125)) < 0.01, "\(width) for \(pages.count) pages")
        let reading = try QuireBinary.run(["export", "cover", dir.path + "/c.pdf", "--for", store + "/none.pdf"], store: store)
        #expect(reading.status != 0 && reading.stderr.contains("not a print interior"), "\(reading.stderr)")
    }

    @Test(.enabled(if: tools))
    func aGreyInteriorHasNoColourLeft() throws {
        let (run, book) = try export(["--color", "gray", "--no-photos"], to: "grey.pdf")
        try #require(run.status == 0, "\(run.stderr)")
        let plain = dir.path + "/grey-plain.pdf"
        _ = try ExternalTool.run("qpdf", ["--qdf", "--object-streams=disable", book, plain])
        let text = String(decoding: try #require(FileManager.default.contents(atPath: plain)), as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(!lines.contains { $0.hasSuffix(" rg") || $0.hasSuffix(" RG") || $0.hasSuffix(" k") || $0.hasSuffix(" K") })
        #expect(!text.contains("/DeviceRGB") && !text.contains("/DeviceCMYK"))
        #expect(lines.contains { $0.hasSuffix(" g") }, "no grey at all: the check looks at the wrong text")
        let intent = try Self.objects(book).values.map(Self.value).first { $0["/S"]?.string == "/GTS_PDFX" }
        #expect(intent != nil)
    }

    /// A CMYK interior sets its text on the black plate alone: the neutral colours cairo writes
    /// as RGB (`0 0 0 rg`) reach Ghostscript as grey, never as four-ink rich black; the
    /// photos keep their colour.
    @Test(.enabled(if: tools))
    func aCMYKInteriorPrintsItsTextInBlackInkAlone() throws {
        let (run, book) = try export([], to: "cmyk.pdf")
        try #require(run.status == 0, "\(run.stderr)")
        let plain = dir.path + "/cmyk-plain.pdf"
        _ = try ExternalTool.run("qpdf", ["--qdf", "--object-streams=disable", book, plain])
        let text = String(decoding: try #require(FileManager.default.contents(atPath: plain)), as: UTF8.self)
        let operators = text.split(whereSeparator: \.isNewline).map { $0.split(separator: " ") }
        func numbers(_ words: [Substring]) -> [Double] { words.dropLast().compactMap { Double($0) } }
        let fourInk = operators.filter { ($0.last == "k" || $0.last == "K") && numbers($0).count == 4 }.map(numbers)
        // A neutral made CMYK has cyan, magenta and yellow nearly equal and all present.
        let richBlack = fourInk.filter { $0[0] > 0.3 && abs($0[0] - $0[1]) < 0.1 && abs($0[1] - $0[2]) < 0.1 }
        #expect(richBlack.isEmpty, "neutrals in four inks: \(richBlack.prefix(3))")
        #expect(operators.contains { $0.count == 2 && $0[1] == "g" && $0[0] == "0" }, "black text as grey 0")
        #expect(text.contains("/DeviceCMYK") || text.contains("/ICCBased"), "the photos are still in colour")
    }

    @Test func neutralColoursBecomeGreyAndNothingElseChanges() throws {
        let stream = Array("q 0 0 0 rg BT /f-0-0 9.5 Tf 0.35 0.35 0.35 RG 0.1 0.24 0.48 rg 1 1 1 rg (0 0 0 rgx) Tj 10 0 0 rg ET Q 5 0 0 0 rg".utf8)
        let grey = try #require(NeutralInk.gray(stream))
        #expect(String(decoding: grey, as: UTF8.self)
                == "q 0 g BT /f-0-0 9.5 Tf 0.35 G 0.1 0.24 0.48 rg 1 g (0 0 0 rgx) Tj 10 0 0 rg ET Q 5 0 g")
        #expect(NeutralInk.gray(Array("0.1 0.2 0.3 rg".utf8)) == nil)
    }

    @Test(.enabled(if: tools))
    func withoutGhostscriptThePrintFileIsRefusedInOneLineAndNothingIsWritten() throws {
        let (run, book) = try export([], to: "none.pdf", environment: ["PATH": dir.path])
        #expect(run.status != 0)
        #expect(run.stderr.contains("apt install ghostscript") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: book))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.hasPrefix(".quire-pdf-") })
    }

    @Test func printOptionsOutsidePrintOrOutOfRangeAreRefused() throws {
        for (arguments, said) in [(["--bleed", "0.125in"], "--bleed applies to `export pdf --print`"),
                                  (["--print", "--bleed", "2in"], "--bleed '2in' is not a length"),
                                  (["--print", "--color", "rgb"], "--color 'rgb': give cmyk or gray")] {
            let run = try QuireBinary.run(["export", "pdf", dir.path + "/x.pdf"] + arguments, store: store)
            #expect(run.status != 0 && run.stderr.contains(said), "\(arguments): \(run.stderr)")
        }
        #expect(PrintSettings.length("3mm").map { abs($0 - 8.504) < 0.01 } == true)
        #expect(PrintSettings.length("-1in") == nil && PrintSettings.length("0.6in") == nil && PrintSettings.length("in") == nil)
    }

    /// The inside margin widens with the page count (KDP's table), taken from the outside one
    /// down to its floor, on the side of the binding: right-hand pages move right.
    @Test func theInsideMarginWidensWithThePageCount() {
        let geometry = PageGeometry(.sixByNine)
        let thin = PDFExporter.boxes(PrintSettings(), geometry: geometry, pages: 120)
        #expect(thin(1).hasPrefix("/MediaBox [ 0.00 0.00 432.00 648.00 ]"), "\(thin(1))")
        let thick = PDFExporter.boxes(PrintSettings(), geometry: geometry, pages: 400)
        #expect(thick(1).hasPrefix("/MediaBox [ -18.00 0.00 414.00 648.00 ]"), "\(thick(1))")
        #expect(thick(2).hasPrefix("/MediaBox [ 18.00 0.00 450.00 648.00 ]"), "\(thick(2))")
        // With bleed the outside margin keeps 0.375 in: 41 − 27 = 14 pt of the 18 asked for.
        let bled = PDFExporter.boxes(PrintSettings(bleed: 9), geometry: geometry, pages: 400)
        #expect(bled(1).hasPrefix("/MediaBox [ -14.00 0.00 436.00 666.00 ]"), "\(bled(1))")
        #expect(bled(1).contains("/TrimBox [ -5.00 9.00 427.00 657.00 ]"), "\(bled(1))")
        // A right-to-left book is bound on the right: its first page moves left.
        let rtl = PDFExporter.boxes(PrintSettings(), geometry: PageGeometry(.sixByNine, rightToLeft: true), pages: 400)
        #expect(rtl(1).hasPrefix("/MediaBox [ 18.00"), "\(rtl(1))")
    }

    /// The cover sheet is 2 × trim + spine + 2 × bleed wide, to a hundredth of an inch, with
    /// the spine from the page count and paper; title and author go on a spine wide enough.
    @Test(.enabled(if: tools), arguments: [(300, "white", 0.6756, true), (60, "cream", 0.15, false)])
    func theCoverSpreadIsAsWideAsTheBookAndItsSpine(pages: Int, paper: String, spine: Double, spineText: Bool) throws {
        let out = dir.path + "/cover-\(pages).pdf"
        let run = try QuireBinary.run(["export", "cover", out, "--pages", String(pages), "--paper", paper, "--page-size", "6x9in",
                                       "--title", "Год в Киото", "--author", "Анна", "--json"], store: store)
        try #require(run.status == 0, "\(run.stderr)")
        let json = try JSONValue.parse(run.stdout).object
        #expect(abs((json?["spine_in"]?.number ?? 0) - spine) < 0.001)
        #expect(json?["spine_text"] == .bool(spineText))
        let values = try Self.objects(out).values.map(Self.value)
        let page = try #require(values.first { $0["/Type"]?.string == "/Page" })
        let media = Self.numbers(page["/MediaBox"]), trim = Self.numbers(page["/TrimBox"])
        try #require(media.count == 4 && trim.count == 4)
        #expect(abs((media[2] - media[0]) / 72 - (2 * 6 + spine + 2 * 0.125)) < 0.01, "\(media)")
        #expect(abs((media[3] - media[1]) / 72 - 9.25) < 0.01 && abs(trim[0] - media[0] - 9) < 0.01, "\(media) \(trim)")
        #expect(values.contains { $0["/S"]?.string == "/GTS_PDFX" })
        let words = try ExternalTool.run("pdftotext", [out, "-"]).stdout
        #expect(words.components(separatedBy: "Киото").count - 1 == (spineText ? 2 : 1), "\(words)")
    }

    @Test func aCoverWithoutItsPageCountIsRefused() throws {
        let run = try QuireBinary.run(["export", "cover", dir.path + "/c.pdf"], store: store)
        #expect(run.status != 0 && run.stderr.contains("needs --pages N"), "\(run.stderr)")
        let odd = try QuireBinary.run(["export", "cover", dir.path + "/c.pdf", "--pages", "many"], store: store)
        #expect(odd.status != 0 && odd.stderr.contains("--pages 'many'"), "\(odd.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/c.pdf"))
    }
}
