import Foundation
import QuireSupport

/// What a printer asks of a book's interior (`quire export pdf --print`): bleed around the
/// trim, the colour it prints in, and an inside margin that grows with the page count. The
/// trim size is the book's page size.
public struct PrintSettings: Sendable {
    /// How the pages are coloured for the press: CMYK for a colour interior, grey for a
    /// black-and-white one (the cheaper kind, where no colour may remain).
    public enum Color: NamedCases, Sendable {
        case cmyk, gray

        /// The word `--color` takes.
        package var name: String { self == .cmyk ? "cmyk" : "gray" }
    }

    /// Bleed on each side of the trim, in points (0 unless asked: journal pages rarely bleed).
    public var bleed: Double = 0
    public var color = Color.cmyk
    /// Embed each font whole rather than the glyphs the book uses (for printers that ask).
    public var fullFonts = false

    public init(bleed: Double = 0, color: Color = .cmyk, fullFonts: Bool = false) {
        self.bleed = bleed
        self.color = color
        self.fullFonts = fullFonts
    }

    /// The most bleed a printer asks for is 0.125 in (3.2 mm); half an inch is plenty.
    package static let maxBleed = 36.0

    /// Parses a length: `0.125in`, `3mm`, `0.3cm`, `9pt`; a bare number is in inches (the
    /// printers' unit). Nil for anything else, a negative length or more than `maxBleed`.
    package static func length(_ text: String) -> Double? {
        let lower = text.lowercased().trimmingCharacters(in: .whitespaces)
        var number = Substring(lower), unit = 72.0
        for (suffix, points) in [("mm", 72.0 / 25.4), ("cm", 72.0 / 2.54), ("in", 72.0), ("pt", 1.0)] where lower.hasSuffix(suffix) {
            number = lower.dropLast(suffix.count)
            unit = points
        }
        guard let value = Double(number), value.isFinite, value >= 0, value * unit <= maxBleed else { return nil }
        return value * unit
    }

    /// How much wider the inside margin must be for a book of `pages` pages than for a thin
    /// one, in points: the binding takes more of a thicker book's inner edge. From Amazon
    /// KDP's table of inside margins for paperbacks (24–150 pages 0.375 in, 151–300 0.5 in,
    /// 301–500 0.625 in, 501–700 0.75 in, 701–828 0.875 in), less its first row, which the
    /// book's own inner margin (0.74–0.81 in on the usual trims) already holds.
    static func extraGutter(pages: Int) -> Double {
        switch pages {
        case ...150: return 0
        case ...300: return 9
        case ...500: return 18
        case ...700: return 27
        default: return 36
        }
    }

    /// A page's boxes for a trim of `trim`, the sheet's left edge at `x`: the media box and
    /// the bleed box the whole sheet, the trim box inside it by the bleed.
    func boxes(trim: PageSize, at x: Double) -> String {
        func box(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> String {
            "[ " + [x0, y0, x1, y1].map(PDFCanvas.number).joined(separator: " ") + " ]"
        }
        let (b, w, h) = (bleed, trim.width, trim.height)
        let media = box(x, 0, x + w + 2 * b, h + 2 * b)
        return "/MediaBox \(media)\n   /BleedBox \(media)\n   /TrimBox " + box(x + b, b, x + b + w, b + h)
    }

    /// The least outside margin a printer keeps clear of the trim: 0.25 in, 0.375 in when the
    /// pages bleed (KDP's rule).
    var outsideFloor: Double { bleed > 0 ? 27 : 18 }
}
