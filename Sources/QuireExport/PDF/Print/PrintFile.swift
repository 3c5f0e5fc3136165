import Foundation
import QuireSupport

/// Makes a finished interior or cover a PDF/X-3:2002 file in one incremental update (`PDFUpdate`),
/// read through libqpdf (`PDFReader`): what cairo wrote is kept, and only what PDF/X-3 asks
/// to differ is written again. Ghostscript's `pdfwrite -dPDFX` did this before, re-interpreting
/// every page at ~30 pages a second (a 4,766-page book took 216 s and 5 GiB); the update
/// takes a second or two.
///
/// What changes, after the pages' own rewrite (`PageOrder`: boxes, no transparency group,
/// colour operators as grey or CMYK through `NeutralInk`):
/// - RGB photos are defined as sRGB: the resources that draw them gain `/DefaultRGB`, the
///   sRGB profile (device-independent colour, which PDF/X-3 allows: the press converts it
///   through the output intent), and the photos' bytes are not written twice. A grey
///   interior has none left: its photos were made grey before they were drawn (`PrintPhoto`).
/// - Forms lose their transparency groups; graphics states their opacity keys, all 1
///   (cairo writes `/CA 1 /ca 1` on every page). Real transparency is refused.
/// - The catalogue gains the output intent with its profile embedded; the information
///   dictionary says `GTS_PDFXVersion`, `Trapped` and the dates; the trailer an `/ID`
///   drawn from the file's bytes, so the same book gives the same file.
/// - The header says PDF 1.3, the version PDF/X-3:2002 is built on.
enum PrintFile {
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { "cannot make the PDF/X file: " + reason }
    }

    static let version = "PDF/X-3:2002"

    /// The output profile for `color` and the sRGB one; refuses in one line, before anything
    /// is set, when they are not installed. Ghostscript's own: `default_cmyk.icc` (SWOP-like
    /// coated stock, what US printers' defaults assume) or `default_gray.icc`, and `srgb.icc`.
    static func profiles(_ color: PrintSettings.Color) throws -> (output: String, rgb: String) {
        guard let output = profile(named: color == .cmyk ? "default_cmyk.icc" : "default_gray.icc"), let rgb = profile(named: "srgb.icc") else {
            throw ExportError(.invalid, detail: "a print file embeds Ghostscript's colour profiles, which are not installed: apt install libgs-common")
        }
        return (output, rgb)
    }

    /// One of Ghostscript's ICC profiles: Debian's `libgs-common` puts them in
    /// /usr/share/color/icc/ghostscript, and Ghostscript's own tree links to them.
    static func profile(named name: String) -> String? {
        let root = "/usr/share/ghostscript"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted().reversed()
        let places = ["/usr/share/color/icc/ghostscript"] + versions.map { "\(root)/\($0)/iccprofiles" }
        return places.map { "\($0)/\(name)" }.first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// A PDF text string in hex, which needs no escaping: UTF-16BE with its mark.
    static func hexText(_ text: String) -> String {
        let bytes: [UInt8] = [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        return "<" + bytes.map { String(format: "%02X", $0) }.joined() + ">"
    }

    /// Finishes the file at `path` (the interior, or the cover) for `color`.
    static func finish(_ path: String, color: PrintSettings.Color, wholeFonts: Bool = false, title: String, epoch: Int64) throws {
        let (profile, rgbProfile) = try profiles(color)
        do {
            let pdf = try PDFReader(path: path)
            var update = PDFUpdate()
            var walk = Walk(pdf: pdf, color: color, rgbProfile: rgbProfile)
            if wholeFonts { walk.fonts = WholeFonts(pdf: pdf) }
            for page in try pdf.pagesListed() {
                try pdf.scoped {
                    guard let resources = pdf.value("Resources", in: page) else { return }
                    guard pdf.number(of: resources) != nil else { throw Failure(reason: "a page whose resources are not an object of their own") }
                    try walk.resources(resources, update: &update)
                }
            }
            let output = try profileStream(profile, components: color == .cmyk ? 4 : 1, update: &update, pdf: pdf)
            let intent = try update.add(outputIntent(color, profile: output), to: pdf)
            let catalog = pdf.root
            guard let catalogNumber = pdf.number(of: catalog) else { throw Failure(reason: "an unexpected catalogue") }
            let kept = pdf.keys(of: catalog).filter { !["OutputIntents", "Outlines", "OpenAction", "AA", "AcroForm"].contains($0) }
            update.replace(catalogNumber, with: pdf.rewritten(catalog, keeping: kept, adding: "/OutputIntents [ \(intent) 0 R ]"))
            update.info = try update.add(information(pdf, title: title, epoch: epoch), to: pdf)
            update.identifier = try identifier(of: path, title: title, epoch: epoch)
            try update.write(to: path, reading: pdf)
            try declareVersion(path)
        } catch let failure as PDFReader.Failure {
            throw Failure(reason: failure.reason)
        }
    }

    /// The objects reached from the pages' resources, each seen once.
    private struct Walk {
        let pdf: PDFReader
        let color: PrintSettings.Color
        /// The sRGB profile's file; embedded once, when a photo first needs it.
        let rgbProfile: String
        var seen = Set<Int>()
        /// Set when each font's whole font replaces its subset.
        var fonts: WholeFonts?
        private var srgb: Int?

        init(pdf: PDFReader, color: PrintSettings.Color, rgbProfile: String) {
            (self.pdf, self.color, self.rgbProfile) = (pdf, color, rgbProfile)
        }

        /// Checks and mends a resource dictionary and what it reaches. Where its images are RGB
        /// it gains `/DefaultRGB`, the sRGB profile, which PDF/X-3 takes as RGB defined
        /// (the photos are not written again, so the file does not hold them twice).
        mutating func resources(_ resources: PDFReader.Object, update: inout PDFUpdate) throws {
            if let number = pdf.number(of: resources) {
                guard seen.insert(number).inserted else { return }
            }
            var rgb = false
            if let objects = pdf.value("XObject", in: resources) {
                for key in pdf.keys(of: objects) {
                    guard let object = pdf.value(key, in: objects) else { continue }
                    rgb = try xobject(object, update: &update) || rgb
                }
            }
            for key in ["Pattern", "Shading"] where pdf.value(key, in: resources).map({ !pdf.keys(of: $0).isEmpty }) == true {
                throw Failure(reason: "a page draws a \(key.lowercased()), which the print file does not convert")
            }
            if let fonts = pdf.value("Font", in: resources) {
                for key in pdf.keys(of: fonts) {
                    guard let font = pdf.value(key, in: fonts) else { continue }
                    try self.fonts?.embed(font, update: &update)
                    guard pdf.name(pdf.value("Subtype", in: font) ?? font) == "/Type3", let inner = pdf.value("Resources", in: font) else { continue }
                    try self.resources(inner, update: &update)
                }
            }
            var entries: [String] = []
            var replaced: Set<String> = []
            if let states = try graphicsStates(resources) {
                entries.append("/ExtGState << " + states.joined(separator: " ") + " >>")
                replaced.insert("ExtGState")
            }
            if rgb {
                let spaces = pdf.value("ColorSpace", in: resources)
                let kept = spaces.map { spaces in pdf.keys(of: spaces).filter { $0 != "DefaultRGB" }.compactMap { key in pdf.value(key, in: spaces).map { "/\(key) " + pdf.text($0) } } } ?? []
                entries.append("/ColorSpace << " + (kept + ["/DefaultRGB [ /ICCBased \(try profile(&update)) 0 R ]"]).joined(separator: " ") + " >>")
                replaced.insert("ColorSpace")
            }
            guard !entries.isEmpty else { return }
            guard let number = pdf.number(of: resources) else { throw Failure(reason: "resources that are not an object of their own") }
            let others = pdf.keys(of: resources).filter { !replaced.contains($0) }
            update.replace(number, with: pdf.rewritten(resources, keeping: others, adding: entries.joined(separator: "\n   ")))
        }

        /// The sRGB profile's object, added the first time it is asked for.
        private mutating func profile(_ update: inout PDFUpdate) throws -> Int {
            if let srgb { return srgb }
            let number = try PrintFile.profileStream(rgbProfile, components: 3, update: &update, pdf: pdf)
            srgb = number
            return number
        }

        /// The graphics states written again when PDF/X-3 wants them to differ, else nil:
        /// opacity keys go when they are 1; any other is transparency, and refused.
        private func graphicsStates(_ resources: PDFReader.Object) throws -> [String]? {
            guard let states = pdf.value("ExtGState", in: resources) else { return nil }
            var rewritten: [String] = []
            var changed = false
            for key in pdf.keys(of: states) {
                guard let state = pdf.value(key, in: states) else { continue }
                var kept: [String] = []
                for entry in pdf.keys(of: state) {
                    guard let value = pdf.value(entry, in: state) else { continue }
                    switch entry {
                    case "CA", "ca":
                        guard pdf.real(value) == 1 else { throw Failure(reason: "a page uses transparency (an opacity of \(pdf.text(value))), which PDF/X-3 does not allow") }
                        changed = true
                    case "SMask":
                        guard pdf.name(value) == "/None" else { throw Failure(reason: "a page uses a soft mask, which PDF/X-3 does not allow") }
                        changed = true
                    case "BM":
                        guard ["/Normal", "/Compatible"].contains(pdf.name(value) ?? "") else { throw Failure(reason: "a page uses a blend mode, which PDF/X-3 does not allow") }
                        changed = true
                    case "AIS", "TK": changed = true
                    case "Type": break
                    default: kept.append("/\(entry) " + pdf.text(value))
                    }
                }
                rewritten.append("/\(key) << " + (["/Type /ExtGState"] + kept).joined(separator: " ") + " >>")
            }
            return changed ? rewritten : nil
        }

        /// Checks and mends an image or form; whether it is an RGB image.
        private mutating func xobject(_ object: PDFReader.Object, update: inout PDFUpdate) throws -> Bool {
            guard let number = pdf.number(of: object), pdf.isStream(object) else { throw Failure(reason: "an image or form that is not a stream of its own") }
            let subtype = pdf.value("Subtype", in: object).flatMap(pdf.name)
            let space = pdf.value("ColorSpace", in: object)
            let rgb = subtype == "/Image" && space.flatMap(pdf.name) == "/DeviceRGB"
            guard seen.insert(number).inserted else { return rgb && color == .cmyk }
            switch subtype {
            case "/Image":
                guard pdf.value("Mask", in: object) == nil else { throw Failure(reason: "a masked image, which PDF/X-3 does not allow") }
                if let mask = pdf.value("SMask", in: object) { return try flatten(object, number: number, mask: mask, update: &update) }
                if rgb {
                    guard color == .cmyk else { throw Failure(reason: "a photo in colour in a grey interior") }
                    return true
                }
                if let space, pdf.text(space, resolved: true).contains("RGB") {
                    throw Failure(reason: "a photo in a colour space the print file does not convert (\(pdf.text(space, resolved: true)))")
                }
                return false
            case "/Form":
                if let inner = pdf.value("Resources", in: object) { try resources(inner, update: &update) }
                let content = try pdf.streamData(object, decoded: true)
                let inked = NeutralInk.gray(content, others: color)
                guard inked != nil || pdf.value("Group", in: object) != nil else { return false }
                let packed = try NeutralInk.deflate(inked ?? content)
                let kept = pdf.keys(of: object).filter { !["Group", "Length", "Filter", "DecodeParms"].contains($0) }
                update.replace(number, dictionary: pdf.rewritten(object, keeping: kept, adding: "/Length \(packed.count) /Filter /FlateDecode")) {
                    try $0.write(contentsOf: Data(packed))
                }
                return false
            default:
                throw Failure(reason: "an external object of an unknown kind")
            }
        }

        /// An image cairo drew with an alpha channel (a colour emoji's glyph: photos are made
        /// opaque before they are drawn) laid over the white page, as it prints, without its
        /// soft mask; grey in a grey interior. Whether it stays RGB.
        private func flatten(_ image: PDFReader.Object, number: Int, mask: PDFReader.Object, update: inout PDFUpdate) throws -> Bool {
            let space = pdf.value("ColorSpace", in: image).flatMap(pdf.name)
            let channels = space == "/DeviceRGB" ? 3 : space == "/DeviceGray" ? 1 : 0
            guard channels > 0, let width = pdf.value("Width", in: image).flatMap(pdf.integer), let height = pdf.value("Height", in: image).flatMap(pdf.integer),
                  [image, mask].allSatisfy({ pdf.value("BitsPerComponent", in: $0).flatMap(pdf.integer) == 8 }),
                  pdf.value("Width", in: mask).flatMap(pdf.integer) == width, pdf.value("Height", in: mask).flatMap(pdf.integer) == height else {
                throw Failure(reason: "an image with transparency the print file cannot lay over the page")
            }
            let pixels = try pdf.streamData(image, decoded: true), alpha = try pdf.streamData(mask, decoded: true)
            guard pixels.count == width * height * channels, alpha.count == width * height else { throw Failure(reason: "an image of the wrong size") }
            let gray = color == .gray || channels == 1
            var out = [UInt8]()
            out.reserveCapacity(width * height * (gray ? 1 : 3))
            for i in 0..<(width * height) {
                let a = Int(alpha[i])
                let over = { (v: UInt8) in (Int(v) * a + 255 * (255 - a) + 127) / 255 }
                if channels == 1 { out.append(UInt8(over(pixels[i]))); continue }
                let (r, g, b) = (over(pixels[3 * i]), over(pixels[3 * i + 1]), over(pixels[3 * i + 2]))
                if gray { out.append(PrintPhoto.luma(r, g, b)) } else { out += [UInt8(r), UInt8(g), UInt8(b)] }
            }
            let packed = try NeutralInk.deflate(out)
            let kept = pdf.keys(of: image).filter { !["SMask", "ColorSpace", "Length", "Filter", "DecodeParms", "Decode"].contains($0) }
            let dictionary = pdf.rewritten(image, keeping: kept, adding: "/ColorSpace \(gray ? "/DeviceGray" : "/DeviceRGB") /Length \(packed.count) /Filter /FlateDecode")
            update.replace(number, dictionary: dictionary) { try $0.write(contentsOf: Data(packed)) }
            return !gray
        }
    }

    /// An ICC profile's stream, compressed; its number.
    fileprivate static func profileStream(_ path: String, components: Int, update: inout PDFUpdate, pdf: PDFReader) throws -> Int {
        guard let data = FileManager.default.contents(atPath: path), data.count > 128 else { throw Failure(reason: "cannot read the colour profile \(path)") }
        let packed = try NeutralInk.deflate([UInt8](data))
        return try update.add(dictionary: "<< /N \(components) /Length \(packed.count) /Filter /FlateDecode >>", body: packed, to: pdf)
    }

    /// The output intent: the condition the press prints to, its profile embedded.
    static func outputIntent(_ color: PrintSettings.Color, profile: Int) -> String {
        let (condition, identifier) = color == .cmyk ? ("Coated paper, Ghostscript's default CMYK (SWOP-like)", "CGATS TR 001") : ("Grey, Ghostscript's default grey", "Custom")
        return "<< /Type /OutputIntent /S /GTS_PDFX /OutputCondition (\(condition)) /OutputConditionIdentifier (\(identifier))\n"
            + "   /RegistryName (http://www.color.org) /Info (\(condition)) /DestOutputProfile \(profile) 0 R >>"
    }

    /// The information dictionary PDF/X asks for: title, dates, `Trapped`, the version.
    private static func information(_ pdf: PDFReader, title: String, epoch: Int64) -> String {
        let date = "(D:" + LocalDate(utcSeconds: epoch).pdfText + ")"
        var fields = ["/Title " + hexText(title), "/Creator (Quire)", "/Producer (Quire with cairo)",
                      "/CreationDate " + date, "/ModDate " + date, "/Trapped /False", "/GTS_PDFXVersion (\(version))"]
        if let old = pdf.value("Info", in: pdf.trailer), let author = pdf.value("Author", in: old) { fields.insert("/Author " + pdf.text(author), at: 1) }
        return "<< " + fields.joined(separator: "\n   ") + "\n>>"
    }

    /// Two copies of the first 16 bytes of the SHA-256 of the file, its title and date: the
    /// same book gives the same identifier, another book another.
    private static func identifier(of path: String, title: String, epoch: Int64) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Failure(reason: "cannot read \(path)") }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { chunk.withUnsafeBytes { hasher.update($0) } }
        hasher.update(Array("\(title)\n\(epoch)".utf8))
        let id = "<" + hasher.finalizeHex().prefix(32).uppercased() + ">"
        return "[ \(id) \(id) ]"
    }

    /// Writes `1.3` over the header's version, in place (the same length, so nothing moves).
    private static func declareVersion(_ path: String) throws {
        guard let handle = FileHandle(forUpdatingAtPath: path) else { throw Failure(reason: "cannot open \(path)") }
        defer { try? handle.close() }
        guard let head = try handle.read(upToCount: 8), head.count == 8, String(decoding: head.prefix(7), as: UTF8.self) == "%PDF-1." else {
            throw Failure(reason: "not a PDF header")
        }
        try handle.seek(toOffset: 7)
        try handle.write(contentsOf: Data("3".utf8))
    }

}
