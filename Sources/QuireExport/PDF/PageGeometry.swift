import Foundation

/// A page size: A5 (a journal's), A4, US Letter, 6×9 in (a trade paperback), or any
/// `WxH` with a unit (`mm`, `cm`, `in`, `pt`; millimetres when none is given).
public struct PageSize: Equatable, Sendable {
    /// Points (1/72 in).
    public let width: Double
    public let height: Double
    public let name: String

    public static let a5 = PageSize(width: 419.53, height: 595.28, name: "a5")
    public static let a4 = PageSize(width: 595.28, height: 841.89, name: "a4")
    public static let letter = PageSize(width: 612, height: 792, name: "letter")
    public static let sixByNine = PageSize(width: 432, height: 648, name: "6x9in")

    public init(width: Double, height: Double, name: String) {
        self.width = width
        self.height = height
        self.name = name
    }

    /// Parses `a5`, `a4`, `letter`, `6x9in`, `148x210mm`, `5.5x8.5in`; nil for anything else
    /// or a page smaller than 3×3 in or larger than 20×20 in.
    package init?(parsing text: String) {
        let lower = text.lowercased().trimmingCharacters(in: .whitespaces)
        switch lower {
        case "a5": self = .a5; return
        case "a4": self = .a4; return
        case "letter": self = .letter; return
        default: break
        }
        var number = lower
        var unit = 72.0 / 25.4
        for (suffix, points) in [("mm", 72.0 / 25.4), ("cm", 72.0 / 2.54), ("in", 72.0), ("pt", 1.0)] where lower.hasSuffix(suffix) {
            number = String(lower.dropLast(suffix.count))
            unit = points
        }
        let parts = number.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]), w.isFinite, h.isFinite else { return nil }
        let width = w * unit, height = h * unit
        guard (216...1440).contains(width), (216...1440).contains(height) else { return nil }
        self.init(width: (width * 100).rounded() / 100, height: (height * 100).rounded() / 100, name: lower)
    }
}

/// Where things go on a page of a given size: mirrored margins (wider inside, by the
/// binding), the text block between them, the running head above it and the folio below,
/// and the type sizes, which grow a little with the page. A right-to-left book is bound on
/// the right: its odd pages, still the first of each spread to be read, have the inner
/// margin on the right and the folio on the left.
struct PageGeometry: Sendable {
    let size: PageSize
    let rightToLeft: Bool
    let inner: Double
    let outer: Double
    let top: Double
    let bottom: Double
    /// Body text size in points.
    let bodySize: Double

    init(_ size: PageSize, rightToLeft: Bool = false) {
        self.size = size
        self.rightToLeft = rightToLeft
        inner = (size.width * BookStyle.innerMargin).rounded()
        outer = (size.width * BookStyle.outerMargin).rounded()
        top = (size.height * BookStyle.topMargin).rounded()
        bottom = (size.height * BookStyle.bottomMargin).rounded()
        bodySize = size.width < BookStyle.pageWidthForLargeBody ? BookStyle.smallBody : BookStyle.largeBody
    }

    var textWidth: Double { size.width - inner - outer }
    var textHeight: Double { size.height - top - bottom }
    /// Odd pages are right-hand pages (left-hand ones in a right-to-left book), their inner
    /// margin by the binding.
    func left(page: Int) -> Double { (page % 2 == 1) != rightToLeft ? inner : outer }

    /// The folio goes to the outer corner: right on a right-hand page.
    func folioOnRight(page: Int) -> Bool { (page % 2 == 1) != rightToLeft }
}
