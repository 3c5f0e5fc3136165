import CPango
import Foundation

/// Puts the whole of each font in a print file in place of the subset cairo embedded
/// (`export pdf --print --full-fonts`, for printers that ask for whole fonts). cairo 1.16
/// always subsets; this takes each subset, finds the installed font it came from (by its
/// PostScript name, through fontconfig), and matches each of the subset's glyphs to the
/// whole font's by its outline program, so the page's glyph codes stay as cairo wrote them:
/// - a TrueType font with WinAnsi codes: codes reach glyphs through the font's own
///   character map, which the whole font has too;
/// - a CID TrueType font: the whole font, and a `/CIDToGIDMap` from each CID (the subset's
///   glyph number) to the whole font's glyph;
/// - a CID CFF font (the CJK faces): the whole CFF, with a charset that gives each glyph
///   the CID it had in the subset.
/// A glyph that cannot be matched, or a font of another kind, fails the export in one line:
/// a print file never goes out with a wrong or missing glyph.
struct WholeFonts {
    private let pdf: PDFReader
    private var done = Set<Int>()

    init(pdf: PDFReader) { self.pdf = pdf }

    /// Replaces the subset behind font dictionary `font`, once.
    mutating func embed(_ font: PDFReader.Object, update: inout PDFUpdate) throws {
        guard let number = pdf.number(of: font), done.insert(number).inserted else { return }
        let subtype = pdf.value("Subtype", in: font).flatMap(pdf.name)
        guard subtype != "/Type3" else { return }
        let base = pdf.value("BaseFont", in: font).flatMap(pdf.name) ?? "?"
        let name = Self.unsubset(base)
        do {
            switch subtype {
            case "/TrueType":
                guard let descriptor = pdf.value("FontDescriptor", in: font) else { throw FontFile.Failure(reason: "no font descriptor") }
                let file = try fontFile(name)
                guard let stream = pdf.value("FontFile2", in: descriptor), let streamNumber = pdf.number(of: stream) else {
                    throw FontFile.Failure(reason: "not a TrueType font file")
                }
                try Self.replaceTrueType(streamNumber, with: file, update: &update)
                try rename(descriptor, font, name: name, update: &update)
            case "/Type0":
                guard let descendant = pdf.value("DescendantFonts", in: font).flatMap({ pdf.items(of: $0).first }),
                      let descriptor = pdf.value("FontDescriptor", in: descendant) else { throw FontFile.Failure(reason: "no descendant font") }
                try cidFont(descendant, descriptor: descriptor, name: name, update: &update)
                try rename(descriptor, font, name: name, update: &update)
            default:
                throw FontFile.Failure(reason: "a font of a kind whose whole font cannot be embedded")
            }
        } catch let failure as FontFile.Failure {
            throw PrintFile.Failure(reason: "cannot embed the whole font \(name): \(failure.reason)")
        }
    }

    /// A CID font's whole font: TrueType with a CID-to-glyph map, or CFF with its charset
    /// renumbered.
    private func cidFont(_ cidFont: PDFReader.Object, descriptor: PDFReader.Object, name: String, update: inout PDFUpdate) throws {
        guard let cidNumber = pdf.number(of: cidFont) else { throw FontFile.Failure(reason: "a CID font that is not an object of its own") }
        let file = try fontFile(name)
        if let stream = pdf.value("FontFile2", in: descriptor), let streamNumber = pdf.number(of: stream) {
            guard pdf.value("CIDToGIDMap", in: cidFont).flatMap(pdf.name) ?? "/Identity" == "/Identity" else {
                throw FontFile.Failure(reason: "a subset that maps its CIDs already")
            }
            let subset = try TrueTypeGlyphs(try FontFile(pdf.streamData(stream, decoded: true), face: 0))
            let map = try Self.match(subset: subset, whole: try TrueTypeGlyphs(file))
            try Self.replaceTrueType(streamNumber, with: file, update: &update)
            let table = try NeutralInk.deflate(map.flatMap { [UInt8($0 >> 8 & 0xFF), UInt8($0 & 0xFF)] })
            let mapNumber = try update.add(dictionary: "<< /Length \(table.count) /Filter /FlateDecode >>", body: table, to: pdf)
            let kept = pdf.keys(of: cidFont).filter { !["BaseFont", "CIDToGIDMap"].contains($0) }
            update.replace(cidNumber, with: pdf.rewritten(cidFont, keeping: kept, adding: "/BaseFont /\(name) /CIDToGIDMap \(mapNumber) 0 R"))
        } else if let stream = pdf.value("FontFile3", in: descriptor), pdf.value("Subtype", in: stream).flatMap(pdf.name) == "/CIDFontType0C",
                  let streamNumber = pdf.number(of: stream) {
            let subset = try CFFFont(pdf.streamData(stream, decoded: true))
            let whole = try CFFFont(try file.table("CFF "))
            guard whole.isCIDKeyed else { throw FontFile.Failure(reason: "the installed font is not CID-keyed") }
            let cids = try Self.charset(subset: subset, whole: whole)
            let packed = try NeutralInk.deflate(try whole.recharted(cids))
            update.replace(streamNumber, dictionary: "<< /Subtype /CIDFontType0C /Length \(packed.count) /Filter /FlateDecode >>") { try $0.write(contentsOf: Data(packed)) }
            let kept = pdf.keys(of: cidFont).filter { $0 != "BaseFont" }
            update.replace(cidNumber, with: pdf.rewritten(cidFont, keeping: kept, adding: "/BaseFont /\(name)"))
        } else {
            throw FontFile.Failure(reason: "a CID font of a kind whose whole font cannot be embedded")
        }
    }

    /// Puts the whole face of `file`, compressed, in place of TrueType font file stream `number`.
    private static func replaceTrueType(_ number: Int, with file: FontFile, update: inout PDFUpdate) throws {
        let whole = try file.standalone()
        let packed = try NeutralInk.deflate(whole)
        update.replace(number, dictionary: "<< /Length \(packed.count) /Length1 \(whole.count) /Filter /FlateDecode >>") { try $0.write(contentsOf: Data(packed)) }
    }

    /// The font dictionary and its descriptor named without the subset's tag.
    private func rename(_ descriptor: PDFReader.Object, _ font: PDFReader.Object, name: String, update: inout PDFUpdate) throws {
        guard let descriptorNumber = pdf.number(of: descriptor), let fontNumber = pdf.number(of: font) else {
            throw FontFile.Failure(reason: "a font that is not an object of its own")
        }
        update.replace(descriptorNumber, with: pdf.rewritten(descriptor, keeping: pdf.keys(of: descriptor).filter { $0 != "FontName" }, adding: "/FontName /\(name)"))
        update.replace(fontNumber, with: pdf.rewritten(font, keeping: pdf.keys(of: font).filter { $0 != "BaseFont" }, adding: "/BaseFont /\(name)"))
    }

    /// The installed font whose PostScript name is `name`, and its face in its file.
    private func fontFile(_ name: String) throws -> FontFile {
        guard let (path, face) = Self.installed(postScriptName: name) else { throw FontFile.Failure(reason: "it is not installed here") }
        return try FontFile(path: path, face: face)
    }

    /// `ABCDEF+Name` → `Name`: the tag PDF puts before a subset's name.
    static func unsubset(_ name: String) -> String {
        let bare = name.hasPrefix("/") ? String(name.dropFirst()) : name
        let parts = bare.split(separator: "+", maxSplits: 1)
        guard parts.count == 2, parts[0].count == 6, parts[0].allSatisfy({ $0.isASCII && $0.isUppercase }) else { return bare }
        return String(parts[1])
    }

    /// The file and face fontconfig knows by PostScript name `name`.
    static func installed(postScriptName name: String) -> (path: String, face: Int)? {
        guard let pattern = FcPatternCreate() else { return nil }
        defer { FcPatternDestroy(pattern) }
        _ = name.withCString { FcPatternAddString(pattern, "postscriptname", UnsafeRawPointer($0).assumingMemoryBound(to: FcChar8.self)) }
        guard let objects = FcObjectSetCreate() else { return nil }
        defer { FcObjectSetDestroy(objects) }
        _ = FcObjectSetAdd(objects, "file")
        _ = FcObjectSetAdd(objects, "index")
        guard let list = FcFontList(nil, pattern, objects) else { return nil }
        defer { FcFontSetDestroy(list) }
        guard list.pointee.nfont > 0, let font = list.pointee.fonts[0] else { return nil }
        var file: UnsafeMutablePointer<FcChar8>?
        var index: Int32 = 0
        guard FcPatternGetString(font, "file", 0, &file) == FcResultMatch, let file else { return nil }
        _ = FcPatternGetInteger(font, "index", 0, &index)
        return (String(cString: UnsafeRawPointer(file).assumingMemoryBound(to: CChar.self)), Int(index))
    }

    /// For each glyph of a TrueType subset, a glyph of the whole font with the same outline
    /// program and advance. A composite glyph names its parts by number, which differ
    /// between the two: in both, each part is first taken to the one glyph that stands for
    /// all drawn alike, and the programs are compared with those numbers.
    static func match(subset: TrueTypeGlyphs, whole: TrueTypeGlyphs) throws -> [Int] {
        struct Key: Hashable { let program: [UInt8]; let advance: Int }
        var standsFor: [Key: Int] = [:]
        func canonical(_ glyphs: TrueTypeGlyphs, _ glyph: Int, _ known: inout [Int?], depth: Int, resolve: (Key, Int) throws -> Int) throws -> Int {
            if let found = known[glyph] { return found }
            guard depth < 16 else { throw FontFile.Failure(reason: "glyph \(glyph) is made of itself") }
            var program = try glyphs.program(glyph)
            for at in try TrueTypeGlyphs.componentIndexes(program) {
                let part = Int(program[at]) << 8 | Int(program[at + 1])
                guard part < glyphs.count else { throw FontFile.Failure(reason: "glyph \(glyph) names a part it does not hold") }
                let found = try canonical(glyphs, part, &known, depth: depth + 1, resolve: resolve)
                program[at] = UInt8(found >> 8 & 0xFF)
                program[at + 1] = UInt8(found & 0xFF)
            }
            while program.last == 0 { program.removeLast() }  // padding, which a subset may add or drop
            let found = try resolve(Key(program: program, advance: glyphs.advance(glyph)), glyph)
            known[glyph] = found
            return found
        }
        var wholeKnown = [Int?](repeating: nil, count: whole.count)
        for glyph in 0..<whole.count {
            _ = try canonical(whole, glyph, &wholeKnown, depth: 0) { key, glyph in
                if let first = standsFor[key] { return first }
                standsFor[key] = glyph
                return glyph
            }
        }
        var subsetKnown = [Int?](repeating: nil, count: subset.count)
        return try (0..<subset.count).map { glyph in
            try canonical(subset, glyph, &subsetKnown, depth: 0) { key, glyph in
                guard let found = standsFor[key] else {
                    throw FontFile.Failure(reason: "glyph \(glyph) of the subset is not in the installed font (another version?)")
                }
                return found
            }
        }
    }

    /// The whole CFF font's charset that gives each of its glyphs the CID the same glyph has
    /// in the subset (matched by its program); its other glyphs take the CIDs left over.
    static func charset(subset: CFFFont, whole: CFFFont) throws -> [Int] {
        var byProgram: [ArraySlice<UInt8>: [Int]] = [:]
        for (glyph, range) in whole.charStrings.enumerated() { byProgram[whole.bytes[range], default: []].append(glyph) }
        var cids = [Int](repeating: -1, count: whole.charStrings.count)
        var used = Set<Int>()
        for (glyph, cid) in zip(subset.charStrings.indices, try subset.cids()) {
            guard cid < whole.charStrings.count else { throw FontFile.Failure(reason: "CID \(cid) is beyond the installed font's glyphs") }
            guard let found = byProgram[subset.bytes[subset.charStrings[glyph]]]?.first(where: { cids[$0] < 0 }) else {
                throw FontFile.Failure(reason: "glyph \(glyph) of the subset is not in the installed font (another version?)")
            }
            cids[found] = cid
            used.insert(cid)
        }
        guard cids[0] == 0 else { throw FontFile.Failure(reason: "the subset's first glyph is not the installed font's") }
        var spare = 0
        for glyph in cids.indices where cids[glyph] < 0 {
            while used.contains(spare) { spare += 1 }
            cids[glyph] = spare
            spare += 1
        }
        return cids
    }
}
