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

    static var tools: Bool { ["qpdf", "pdffonts", "pdfimages"].allSatisfy(ExternalTool.available) }

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

    /// Every colour operator on the book's pages with its operands (`["0", "g"]`), read from
    /// the pages' content streams as qpdf decodes them.
    static func colourOperators(_ book: String) throws -> [[String]] {
        let pdf = try PDFReader(path: book)
        var found: [[String]] = []
        for page in try pdf.pages() {
            guard let contents = pdf.value("Contents", in: page) else { continue }
            let words = String(decoding: try pdf.streamData(contents, decoded: true), as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init)
            for (at, word) in words.enumerated() where ["g", "G", "rg", "RG", "k", "K"].contains(word) {
                let operands = word.count == 1 && word.lowercased() == "g" ? 1 : word.lowercased() == "rg" ? 3 : 4
                guard at >= operands else { continue }
                found.append(Array(words[(at - operands)...at]))
            }
        }
        return found
    }

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
        let operators = try Self.colourOperators(book)
        #expect(!operators.contains { ["rg", "RG", "k", "K"].contains($0.last ?? "") }, "\(operators.filter { $0.last != "g" && $0.last != "G" }.prefix(3))")
        let plain = dir.path + "/grey-plain.pdf"
        _ = try ExternalTool.run("qpdf", ["--qdf", "--object-streams=disable", book, plain])
        let text = String(decoding: try #require(FileManager.default.contents(atPath: plain)), as: UTF8.self)
        #expect(!text.contains("/DeviceRGB") && !text.contains("/DeviceCMYK"))
        #expect(operators.contains { $0.last == "g" }, "no grey at all: the check looks at the wrong text")
        let intent = try Self.objects(book).values.map(Self.value).first { $0["/S"]?.string == "/GTS_PDFX" }
        #expect(intent != nil)
    }

    /// Photos are made for the press before they are drawn: a 2400 × 1800 JPEG and an
    /// 1800 × 1200 PNG come down to 300 ppi at their printed size, a PNG's alpha and a colour
    /// emoji's are laid over the page (PDF/X-3 has no transparency), and in a grey interior
    /// every image is grey; in a CMYK one the RGB ones are defined as sRGB (`icc`).
    @Test(.enabled(if: tools))
    func photosAreBroughtTo300ppiMadeOpaqueAndGreyForThePress() throws {
        let folder = dir.path + "/press"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let script = #"""
            import struct, sys, zlib
            def chunk(kind, data): return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
            def png(name, w, h, mode):
                n = 3 if mode == 2 else 4
                raw = b"".join(b"\0" + bytes(v for x in range(w) for v in ((x * 255 // w, y * 255 // h, (x ^ y) & 255) + ((x * 255 // w,) if n == 4 else ()))) for y in range(h))
                open(sys.argv[1] + "/" + name, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, mode, 0, 0, 0))
                    + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))
            png("big.png", 1800, 1200, 2)
            png("alpha.png", 120, 90, 6)
            """#
        let made = try ExternalTool.run("python3", ["-c", script, folder])
        try #require(made.status == 0, "\(made.stderr)")
        let (w, h) = (2400, 1800)
        var bytes: [UInt8] = []
        for y in 0..<h {
            for x in 0..<w { bytes += [UInt8(x * 255 / w), UInt8(y * 255 / h), UInt8((x ^ y) & 255)] }
        }
        let pixels = JPEGCodec.Pixels(width: w, height: h, gray: false, bytes: bytes)
        try Data(try JPEGCodec.encode(pixels, quality: 92)).write(to: URL(fileURLWithPath: folder + "/big.jpg"))
        let add = try QuireBinary.run(["add", "--title", "For the press", "--date", "2026-11-11T11:00:00+01:00", "--body", "Three photos and an emoji 😀."], store: store)
        try #require(add.status == 0, "\(add.stderr)")
        for name in ["big.jpg", "big.png", "alpha.png"] {
            let attach = try QuireBinary.run(["attach", add.stdout.trimmingCharacters(in: .whitespacesAndNewlines), folder + "/" + name, "--kind", "photo"], store: store)
            try #require(attach.status == 0, "\(attach.stderr)")
        }
        for color in ["cmyk", "gray"] {
            let (run, book) = try export(["--from", "2026-11-11", "--to", "2026-11-11", "--color", color], to: "press-\(color).pdf")
            try #require(run.status == 0, "\(run.stderr)")
            #expect(try ExternalTool.run("qpdf", ["--check", book]).status == 0)
            let rows = try ExternalTool.run("pdfimages", ["-list", book]).stdout.split(separator: "\n").dropFirst(2).map { $0.split(separator: " ").map(String.init) }
            #expect(rows.count >= 4 && rows.allSatisfy { $0.count > 12 && $0[2] == "image" }, "a soft mask is left: \(rows)")
            #expect(rows.allSatisfy { $0[5] == (color == "gray" ? "gray" : "icc") }, "\(color): \(rows.map { $0[5] })")
            let ppi = rows.compactMap { Double($0[12]) }
            #expect(ppi.allSatisfy { $0 <= 301 } && ppi.filter { $0 >= 299 }.count == 2, "\(ppi)")
            // The JPEG stays a JPEG, brought down to 300 ppi.
            #expect(rows.contains { $0[8] == "jpeg" && Int($0[3]).map { $0 < w } == true }, "\(rows)")
        }
    }

    /// A CMYK interior sets its text on the black plate alone: the neutral colours cairo writes
    /// as RGB (`0 0 0 rg`) are written as grey, never as four-ink rich black, and no RGB
    /// operator is left; the photos keep their colour (tagged sRGB, or CMYK).
    @Test(.enabled(if: tools))
    func aCMYKInteriorPrintsItsTextInBlackInkAlone() throws {
        let (run, book) = try export([], to: "cmyk.pdf")
        try #require(run.status == 0, "\(run.stderr)")
        let operators = try Self.colourOperators(book)
        func numbers(_ words: [String]) -> [Double] { words.dropLast().compactMap { Double($0) } }
        #expect(!operators.contains { $0.last == "rg" || $0.last == "RG" }, "RGB colour is left")
        let fourInk = operators.filter { ($0.last == "k" || $0.last == "K") && numbers($0).count == 4 }.map(numbers)
        // A neutral made CMYK has cyan, magenta and yellow nearly equal and all present.
        let richBlack = fourInk.filter { $0[0] > 0.3 && abs($0[0] - $0[1]) < 0.1 && abs($0[1] - $0[2]) < 0.1 }
        #expect(richBlack.isEmpty, "neutrals in four inks: \(richBlack.prefix(3))")
        #expect(operators.contains { $0 == ["0", "g"] }, "black text as grey 0")
        let plain = dir.path + "/cmyk-plain.pdf"
        _ = try ExternalTool.run("qpdf", ["--qdf", "--object-streams=disable", book, plain])
        let text = String(decoding: try #require(FileManager.default.contents(atPath: plain)), as: UTF8.self)
        #expect(text.contains("/DeviceCMYK") || text.contains("/ICCBased"), "the photos are still in colour")
    }

    @Test func neutralColoursBecomeGreyAndNothingElseChanges() throws {
        let stream = Array("q 0 0 0 rg BT /f-0-0 9.5 Tf 0.35 0.35 0.35 RG 0.1 0.24 0.48 rg 1 1 1 rg (0 0 0 rgx) Tj 10 0 0 rg ET Q 5 0 0 0 rg".utf8)
        let grey = try #require(NeutralInk.gray(stream))
        #expect(String(decoding: grey, as: UTF8.self)
                == "q 0 g BT /f-0-0 9.5 Tf 0.35 G 0.1 0.24 0.48 rg 1 g (0 0 0 rgx) Tj 10 0 0 rg ET Q 5 0 g")
        #expect(NeutralInk.gray(Array("0.1 0.2 0.3 rg".utf8)) == nil)
        // For the press every other colour goes too: as CMYK with its grey on the black plate, or as grey.
        let tinted = Array("0.35 0.35 0.35 RG 1 0 0 rg 0.5 0.25 0 RG".utf8)
        #expect(NeutralInk.gray(tinted, others: .cmyk).map { String(decoding: $0, as: UTF8.self) } == "0.35 G 0.00 1.00 1.00 0.00 k 0.00 0.50 1.00 0.50 K")
        #expect(NeutralInk.gray(tinted, others: .gray).map { String(decoding: $0, as: UTF8.self) } == "0.35 G 0.30 g 0.30 G")
    }

    /// Bringing a photo down averages the pixels each new one covers, in parts.
    @Test func resamplingAveragesThePixelsCovered() {
        let row = JPEGCodec.Pixels(width: 3, height: 1, gray: true, bytes: [0, 90, 180])
        // Two from three: the first covers 0 and half of 90, the second the other half and 180.
        #expect(PrintPhoto.resample(row, to: 2, 1).bytes == [30, 150])
        let square = JPEGCodec.Pixels(width: 2, height: 2, gray: false, bytes: [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255])
        #expect(PrintPhoto.resample(square, to: 1, 1).bytes == [128, 128, 128])
        #expect(PrintPhoto.target(PageImage(path: "", kind: .jpeg, width: 4000, height: 3000), shownWidth: 288).map { [$0.width, $0.height] } == [1200, 900])
        #expect(PrintPhoto.target(PageImage(path: "", kind: .jpeg, width: 1000, height: 750), shownWidth: 288) == nil)
    }

    /// The interior and the cover are made by Quire alone, no Ghostscript on the PATH: the
    /// cover's title band is darkened into its photo (one opaque JPEG at 300 ppi), since
    /// PDF/X-3 has no transparency to lay it over with.
    @Test(.enabled(if: tools))
    func theInteriorAndTheCoverNeedNoGhostscript() throws {
        let (run, book) = try export([], to: "none.pdf", environment: ["PATH": dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: book))
        let cover = dir.path + "/cover-photo.pdf"
        let made = try QuireBinary.run(["export", "cover", cover, "--pages", "100", "--page-size", "6x9in", "--cover", VariedJournal.media + "/photo.jpg",
                                        "--title", "Год"], store: store, environment: ["PATH": dir.path])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try ExternalTool.run("qpdf", ["--check", cover]).status == 0)
        let rows = try ExternalTool.run("pdfimages", ["-list", cover]).stdout.split(separator: "\n").dropFirst(2).map { $0.split(separator: " ").map(String.init) }
        // One picture, opaque, a JPEG at 300 ppi over the front and its bleed: 6.125 × 9.25 in.
        #expect(rows.count == 1 && rows.first?[2] == "image" && rows.first?[8] == "jpeg", "\(rows)")
        #expect(rows.first.map { [$0[3], $0[4]] } == ["1838", "2775"], "\(rows)")
        let values = try Self.objects(cover).values.map(Self.value)
        #expect(!values.contains { $0["/CA"] != nil || $0["/ca"] != nil || $0["/SMask"] != nil }, "transparency is left")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.hasPrefix(".quire-pdf-") })
    }

    /// `--full-fonts`: every font whole (pdffonts: embedded, not a subset), the CJK face's
    /// CFF among them, and every page drawn exactly as with the subsets, pixel for pixel, by
    /// poppler; the same text; the cover too.
    @Test(.enabled(if: tools && ExternalTool.available("pdftoppm") && ExternalTool.available("pdftotext")))
    func wholeFontsPrintEveryPageAsTheSubsetsDid() throws {
        let (subsetRun, subset) = try export(["--page-size", "6x9in"], to: "subset.pdf")
        let (wholeRun, whole) = try export(["--page-size", "6x9in", "--full-fonts"], to: "whole.pdf")
        try #require(subsetRun.status == 0 && wholeRun.status == 0, "\(subsetRun.stderr) \(wholeRun.stderr)")
        #expect(try ExternalTool.run("qpdf", ["--check", whole]).status == 0)
        let rows = try ExternalTool.run("pdffonts", [whole]).stdout.split(separator: "\n").dropFirst(2).map { $0.split(separator: " ").map(String.init) }
        #expect(rows.count >= 6)
        for row in rows {
            #expect(row.count >= 7 && row[row.count - 5] == "yes" && row[row.count - 4] == "no", "not whole: \(row)")
            #expect(!row[0].contains("+"), "a subset's name: \(row)")
        }
        let kinds = Set(rows.map { $0.dropFirst().prefix { $0 != "Identity-H" && $0 != "WinAnsi" }.joined(separator: " ") })
        #expect(kinds.isSuperset(of: ["TrueType", "CID TrueType", "CID Type 0C"]), "\(kinds)")
        let sizes = [subset, whole].map { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0 }
        #expect(sizes[1] > sizes[0] * 5, "\(sizes)")

        let pages = dir.path + "/pages"
        try FileManager.default.createDirectory(atPath: pages, withIntermediateDirectories: true)
        for (book, prefix) in [(subset, "s"), (whole, "w")] {
            #expect(try ExternalTool.run("pdftoppm", ["-r", "40", "-gray", book, pages + "/" + prefix]).status == 0)
        }
        let drawn = try FileManager.default.contentsOfDirectory(atPath: pages).filter { $0.hasPrefix("s-") }.sorted()
        #expect(drawn.count >= 20)
        for page in drawn {
            let a = FileManager.default.contents(atPath: pages + "/" + page), b = FileManager.default.contents(atPath: pages + "/w" + page.dropFirst())
            #expect(a != nil && a == b, "page \(page) is drawn differently with whole fonts")
        }
        let text = try [subset, whole].map { try ExternalTool.run("pdftotext", [$0, "-"]).stdout }
        #expect(text[0] == text[1] && text[0].contains("東京"), "the text differs")

        let cover = dir.path + "/cover-whole.pdf"
        let made = try QuireBinary.run(["export", "cover", cover, "--pages", "100", "--title", "Год", "--full-fonts"], store: store)
        try #require(made.status == 0, "\(made.stderr)")
        let coverRows = try ExternalTool.run("pdffonts", [cover]).stdout.split(separator: "\n").dropFirst(2).map { $0.split(separator: " ").map(String.init) }
        #expect(!coverRows.isEmpty && coverRows.allSatisfy { $0.count >= 7 && $0[$0.count - 4] == "no" }, "\(coverRows)")
    }

    /// A CFF font given other CIDs keeps every glyph program and reads back with them; a
    /// TrueType font matched against itself finds each glyph (or one drawn the same).
    @Test func wholeFontsKeepEveryGlyph() throws {
        #expect(WholeFonts.unsubset("/ABCDEF+NotoSerif-Regular") == "NotoSerif-Regular")
        #expect(WholeFonts.unsubset("NotoSerif-Regular") == "NotoSerif-Regular" && WholeFonts.unsubset("Ab+C") == "Ab+C")
        #expect(WholeFonts.installed(postScriptName: "No-Such-Font-Here") == nil)
        let cjk = try #require(WholeFonts.installed(postScriptName: "NotoSerifCJKjp-Regular") ?? WholeFonts.installed(postScriptName: "NotoSansCJKjp-Regular"),
                               "fonts-noto-cjk is installed by ./scripts/test")
        let face = try FontFile([UInt8](try #require(FileManager.default.contents(atPath: cjk.path))), face: cjk.face)
        // A collection's face written out as a font of its own holds the same tables.
        let alone = try FontFile(try face.standalone(), face: 0)
        #expect(alone.tables.count == face.tables.count)
        #expect(try face.tables.keys.allSatisfy { try alone.table($0) == face.table($0) })
        let font = try CFFFont(try face.table("CFF "))
        #expect(font.isCIDKeyed && font.charStrings.count > 60_000)
        var cids = Array(0..<font.charStrings.count)
        cids[1...].reverse()
        let moved = try CFFFont(try font.recharted(cids))
        #expect(try moved.cids() == cids)
        #expect(moved.charStrings.count == font.charStrings.count)
        #expect(zip(moved.charStrings, font.charStrings).allSatisfy { moved.bytes[$0] == font.bytes[$1] })

        let serif = try #require(WholeFonts.installed(postScriptName: "NotoSerif-Regular"))
        let glyphs = try TrueTypeGlyphs(try FontFile([UInt8](try #require(FileManager.default.contents(atPath: serif.path))), face: serif.face))
        let map = try WholeFonts.match(subset: glyphs, whole: glyphs)
        func unpadded(_ glyph: Int) -> [UInt8]? { (try? glyphs.program(glyph)).map { Array($0.reversed().drop { $0 == 0 }.reversed()) } }
        #expect(map.count == glyphs.count)
        #expect(map.indices.allSatisfy { glyphs.advance(map[$0]) == glyphs.advance($0) })
        #expect(map.indices.filter { (try? TrueTypeGlyphs.componentIndexes(glyphs.program($0)))?.isEmpty == true }
            .allSatisfy { unpadded(map[$0]) == unpadded($0) }, "a simple glyph matched to another outline")
        #expect(Set(map).count > glyphs.count * 9 / 10, "most glyphs are their own")
    }

    @Test func printOptionsOutsidePrintOrOutOfRangeAreRefused() throws {
        for (arguments, said) in [(["--bleed", "0.125in"], "--bleed applies to `export pdf --print`"),
                                  (["--print", "--bleed", "2in"], "--bleed '2in' is not a length"),
                                  (["--print", "--color", "rgb"], "--color 'rgb': give cmyk or gray"),
                                  (["--full-fonts"], "--full-fonts applies to `export pdf --print`")] {
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
