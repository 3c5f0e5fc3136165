import Foundation
/// Fills pages from top to bottom, the way a compositor would, with blocks handed over one
/// at a time (nothing of the book is held but the page being made):
/// - a paragraph is laid out by Pango at the text block's width, then its lines are set
///   while they fit; the rest goes to the top of the next page, never leaving one line of a
///   paragraph alone at the foot or the head of a page (no orphans, no widows: a paragraph
///   of two or three lines moves whole);
/// - a heading keeps with what follows: it goes to the next page unless two lines fit below it;
/// - a photo is scaled to the text block (never enlarged past 150 dpi) and never split: when
///   it does not fit what is left of the page, it is shrunk to fit if it keeps enough of its
///   size, or else starts the next page;
/// - each page gets its running head and folio when it ends: the head it began with, so a
///   month's last page names that month though the next one is already known.
/// With no canvas the flow only measures (how many pages the contents will take).
final class PageFlow {
    let geometry: PageGeometry
    let fonts: FontContext
    let canvas: PDFCanvas?
    /// The page being filled (1 = the first, a right-hand page); 0 before the first.
    private(set) var page = 0
    /// The cursor, from the top of the page.
    private(set) var y = 0.0
    /// Nothing has been set on the current page yet.
    private(set) var pageIsEmpty = true
    /// The month title printed at the head of the pages started from now on, and whether
    /// this page shows its own.
    var runningHead: String?
    /// The head of the page being filled: `runningHead` when it began.
    private var pageHead: String?
    var showsHead = true
    var showsFolio = true
    var headLanguage: String?
    /// Page numbers in the book's digits (`٣` in ar-EG).
    var numeral: (Int) -> String = { String($0) }

    init(geometry: PageGeometry, fonts: FontContext, canvas: PDFCanvas?) {
        self.geometry = geometry
        self.fonts = fonts
        self.canvas = canvas
    }

    var left: Double { geometry.left(page: page) }
    var width: Double { geometry.textWidth }
    var bottom: Double { geometry.size.height - geometry.bottom }
    var room: Double { bottom - y }

    // MARK: Pages

    /// A page has been started and not yet handed to the PDF.
    private var isOpen = false

    /// Ends the current page (if any) and starts the next.
    func newPage() {
        endPage()
        isOpen = true
        page += 1
        y = geometry.top
        pageIsEmpty = true
        pageHead = runningHead
        showsHead = true
        showsFolio = true
    }

    /// Starts a new page that is a right-hand one, leaving a blank left-hand page if needed.
    func newRightHandPage() { newPage(onRight: true) }

    /// Starts a new left-hand page (one that faces the next), leaving a blank right-hand page if needed.
    func newLeftHandPage() { newPage(onRight: false) }

    private func newPage(onRight: Bool) {
        newPage()
        if (page % 2 == 1) != onRight {
            showsHead = false
            showsFolio = false
            newPage()
        }
    }

    /// Draws the current page's head and folio, and hands the page to the PDF.
    func endPage() {
        guard isOpen else { return }
        isOpen = false
        guard let canvas else { return }
        if showsHead, let runningHead = pageHead, !pageIsEmpty {
            var style = TextStyle(font: BookFonts.sans(headLanguage), size: geometry.bodySize * BookStyle.runningHead, alignment: .center)
            style.language = headLanguage
            let head = TextLayout(StyledText(runningHead.uppercased(with: headLanguage.map { Locale(identifier: $0) })), style: style, width: width, in: fonts)
            canvas.draw(head, lines: 0..<head.lines.count, x: left, y: geometry.top * BookStyle.headDrop, gray: BookStyle.headGray)
        }
        if showsFolio {
            let onRight = geometry.folioOnRight(page: page)
            let style = TextStyle(font: BookFonts.serif(headLanguage), size: geometry.bodySize * BookStyle.folio, alignment: onRight ? .end : .natural)
            // Left to right whatever the digits, so the alignment means what it says.
            let folio = TextLayout(StyledText("\u{200E}" + numeral(page)), style: style, width: width, in: fonts)
            canvas.draw(folio, lines: 0..<folio.lines.count, x: left, y: bottom + geometry.bottom * BookStyle.folioDrop, gray: BookStyle.folioGray)
        }
        canvas.endPage()
    }

    /// Ends the current page and goes on as if `page` had just been ended: the next page
    /// is numbered `page + 1` (for pages set out of order, such as the contents).
    func jump(to page: Int) {
        endPage()
        self.page = page
        y = geometry.top
        pageIsEmpty = true
        pageHead = runningHead
    }

    /// Moves the cursor down by `points`, unless the page is still empty (space at the top
    /// of a page is never wanted) or the space would not fit (then the next page starts).
    func space(_ points: Double) {
        guard !pageIsEmpty else { return }
        if points >= room { newPage() } else { y += points }
    }

    /// Moves the cursor to `offset` from the top of the page if it is above that.
    func move(toAtLeast offset: Double) {
        y = max(y, offset)
        pageIsEmpty = false
    }

    // MARK: Text

    struct Decoration: Sendable {
        /// Indent from the left of the text block (and narrower width).
        var indent = 0.0
        /// Drawn at the first line, right-aligned in the indent (a bullet, a number, a time).
        var marker: StyledText?
        var markerStyle: TextStyle?
        /// A grey bar down the left of the indent (a block quote).
        var bar = false
        /// A grey ground behind the text (code).
        var ground = false
        /// Keep with the next block (a heading).
        var keepWithNext = false
        var gray = 0.0
        /// A name for the place of the first line, for links and the outline.
        var destination: String?
        /// The entry (its number in the book's `EntryIndex`) whose heading this is, for links to it.
        var entry: Int?
    }

    /// Indents, bars and markers go on the right of the text block (a right-to-left entry's).
    var indentsFromRight = false


    /// A paragraph laid out at the text block's width (less its indent), and its marker: made
    /// anywhere (`EntryScript` makes them ahead of the pages), placed by `place`.
    struct Laid: Sendable {
        let layout: TextLayout
        let marker: TextLayout?
        let decoration: Decoration
    }

    static func lay(_ text: StyledText, style: TextStyle, _ decoration: Decoration = Decoration(), in block: TextBlock) -> Laid? {
        guard !text.isEmpty else { return nil }
        let layout = TextLayout(text, style: style, width: block.geometry.textWidth - decoration.indent, in: block.fonts)
        var marker: TextLayout?
        if let text = decoration.marker, let style = decoration.markerStyle {
            marker = TextLayout(text, style: style, width: max(decoration.indent - BookStyle.markerGap, 8), in: block.fonts)
        }
        return Laid(layout: layout, marker: marker, decoration: decoration)
    }

    var block: TextBlock { TextBlock(geometry: geometry, fonts: fonts) }

    @discardableResult
    func paragraph(_ text: StyledText, style: TextStyle, _ decoration: Decoration = Decoration()) -> TextLayout? {
        guard let laid = Self.lay(text, style: style, decoration, in: block) else { return nil }
        place(laid)
        return laid.layout
    }

    /// Sets a laid-out paragraph from the cursor on, across pages where it must.
    func place(_ laid: Laid) {
        let (layout, decoration) = (laid.layout, laid.decoration)
        if page == 0 { newPage() }
        let lines = layout.lines
        guard !lines.isEmpty else { return }
        let lineHeight = lines[0].bottom - lines[0].top
        if decoration.keepWithNext, !pageIsEmpty, layout.height + lineHeight * BookStyle.keepWithNextLines > room { newPage() }
        var first = 0
        while first < lines.count {
            let top = lines[first].top
            var fit = first
            while fit < lines.count, lines[fit].bottom - top <= room + 0.01 { fit += 1 }
            let count = lines.count - first
            var take = fit - first
            if count >= 4 {
                if take == 1 { take = 0 }                              // no orphan at the foot
                if count - take == 1, take >= 3 { take -= 1 }          // no widow at the head
            } else if take < count, count >= 2 {
                take = 0                                               // two or three lines go whole
            }
            if take == 0 {
                if pageIsEmpty { take = 1 } else { newPage(); continue }   // a line taller than a page still goes somewhere
            }
            if first == 0, let name = decoration.destination { canvas?.destination(name, y: y) }
            if first == 0, let entry = decoration.entry { canvas?.place(entry: entry, y: y) }
            let range = first..<(first + take)
            let height = lines[range.upperBound - 1].bottom - top
            draw(laid, range, height: height, markerHere: first == 0)
            y += height
            pageIsEmpty = false
            first += take
            if first < lines.count { newPage() }
        }
    }

    private func draw(_ laid: Laid, _ range: Range<Int>, height: Double, markerHere: Bool) {
        guard let canvas else { return }
        let (layout, decoration) = (laid.layout, laid.decoration)
        let fromRight = indentsFromRight
        let x = fromRight ? left : left + decoration.indent
        let edge = fromRight ? left + width - decoration.indent : left + decoration.indent  // where the text meets the indent
        if decoration.ground {
            let (pad, padV) = (BookStyle.groundPadding, BookStyle.groundPaddingV)
            canvas.fill(x: x - pad, y: y - padV, width: width - decoration.indent + 2 * pad, height: height + 2 * padV, gray: BookStyle.groundGray)
        }
        if decoration.bar {
            canvas.fill(x: fromRight ? edge + BookStyle.barGapRTL : edge - BookStyle.barGap, y: y, width: BookStyle.barWidth, height: height, gray: BookStyle.barGray)
        }
        canvas.draw(layout, lines: range, x: x, y: y, gray: decoration.gray)
        if markerHere, let box = laid.marker {
            if let line = box.lines.first, let first = layout.lines.first {
                // Beside the text: right-aligned in a left indent, left-aligned in a right one.
                let markerX = fromRight ? edge + BookStyle.markerGap - line.x : edge - BookStyle.markerGap - box.naturalWidth - line.x
                canvas.draw(box, lines: 0..<1, x: markerX, y: y + first.baseline - line.baseline, gray: BookStyle.markerGray)
            }
        }
    }

    // MARK: Photos and rows

    /// Sets a photo in the text block; returns how many of its pixels fall on an inch of the page.
    @discardableResult
    func photo(_ image: PageImage) throws -> Double {
        if page == 0 { newPage() }
        let natural = Double(image.shownWidth) * 72 / BookStyle.photoPPI
        var w = min(width, natural)
        var h = w * Double(image.shownHeight) / Double(image.shownWidth)
        let tallest = geometry.textHeight * BookStyle.photoTallest
        if h > tallest { w *= tallest / h; h = tallest }
        if h > room {
            // Shrunk to what is left of the page when it keeps three quarters of its size, or
            // half of it and a quarter of the page's height (`BookStyle`): a photo stays with
            // the end of its entry rather than leave the page half empty above the next title.
            if room >= h * BookStyle.photoKeeps || (room >= h * BookStyle.photoKeepsAtLeast && room >= geometry.textHeight * BookStyle.photoRoomAtLeast) {
                w *= room / h
                h = room
            } else {
                newPage()
            }
        }
        try canvas?.draw(image, x: left + (width - w) / 2, y: y, width: w, height: h)
        y += h
        pageIsEmpty = false
        return Double(image.shownWidth) * 72 / w
    }

    /// A table row laid out: a cell per column, each wrapped in its column; or, for a row
    /// taller than a page, its cells as paragraphs one after another.
    enum LaidRow: Sendable {
        case cells([TextLayout], header: Bool)
        case paragraphs([Laid])
    }

    static let columnGap = BookStyle.columnGap

    static func lay(row cells: [StyledText], style: TextStyle, header: Bool, in block: TextBlock) -> LaidRow? {
        guard !cells.isEmpty else { return nil }
        let column = (block.geometry.textWidth - columnGap * Double(cells.count - 1)) / Double(cells.count)
        var cellStyle = style
        cellStyle.justify = false
        let layouts = cells.map { cell -> TextLayout in
            var text = cell
            if header { text.styleAll(.bold) }
            return TextLayout(text.isEmpty ? StyledText(" ") : text, style: cellStyle, width: column, in: block.fonts)
        }
        guard (layouts.map(\.height).max() ?? 0) <= block.geometry.textHeight else {
            return .paragraphs(cells.compactMap { lay($0, style: style, in: block) })
        }
        return .cells(layouts, header: header)
    }

    /// Sets a table row, never split across pages.
    func place(_ row: LaidRow) {
        guard case .cells(let layouts, let header) = row else {
            if case .paragraphs(let cells) = row { cells.forEach(place) }
            return
        }
        if page == 0 { newPage() }
        let gap = Self.columnGap
        let column = (width - gap * Double(layouts.count - 1)) / Double(layouts.count)
        let height = layouts.map(\.height).max() ?? 0
        if height + BookStyle.rowGap > room { newPage() }
        if let canvas {
            for (index, layout) in layouts.enumerated() where !layout.lines.isEmpty {
                canvas.draw(layout, lines: 0..<layout.lines.count, x: left + Double(index) * (column + gap), y: y)
            }
            canvas.line(x1: left, y1: y + height + BookStyle.rowGap / 2, x2: left + width, y2: y + height + BookStyle.rowGap / 2,
                        width: header ? BookStyle.headerRule : BookStyle.rowRule, gray: header ? BookStyle.headerRuleGray : BookStyle.rowRuleGray)
        }
        y += height + BookStyle.rowGap
        pageIsEmpty = false
    }

    /// A row of the contents: its label, and the page number at the outer edge (the right, or
    /// the left in a right-to-left book), dot leaders between; the whole row links to that page.
    /// (Measured before any page number is known: the row's height is the same.)
    func entryRow(_ label: StyledText, page target: Int?, destination: String, style: TextStyle, indent: Double) {
        let rtl = geometry.rightToLeft
        var numberStyle = style
        numberStyle.alignment = rtl ? .natural : .end
        let numberWidth = geometry.bodySize * BookStyle.contentsNumberWidth
        let number = TextLayout(StyledText("\u{200E}" + numeral(target ?? 0)), style: numberStyle, width: numberWidth, in: fonts)
        let labelLayout = TextLayout(label, style: style, width: width - indent - numberWidth, in: fonts)
        if page == 0 { newPage() }
        let height = max(labelLayout.height, number.height)
        if height > room { newPage() }
        if let canvas {
            let labelX = rtl ? left + numberWidth : left + indent, numberX = rtl ? left : left + width - numberWidth
            canvas.draw(labelLayout, lines: 0..<labelLayout.lines.count, x: labelX, y: y)
            canvas.draw(number, lines: 0..<number.lines.count, x: numberX, y: y)
            if let last = labelLayout.lines.last, let figures = number.lines.first {
                if rtl {
                    canvas.dots(x1: numberX + figures.x + number.naturalWidth + 5, x2: labelX + last.x - 6, y: y + last.baseline, gray: BookStyle.leaderGray)
                } else {
                    canvas.dots(x1: labelX + last.x + labelLayout.naturalWidth + 6, x2: numberX + figures.x - 5, y: y + last.baseline, gray: BookStyle.leaderGray)
                }
            }
            canvas.tagLink(target: .destination(destination), x: rtl ? left : left + indent, y: y, width: width - indent, height: height)
        }
        y += height
        pageIsEmpty = false
    }

    /// A short centred rule (a thematic break).
    func rule() {
        space(geometry.bodySize * BookStyle.spaceAroundRule)
        canvas?.line(x1: left + width * BookStyle.ruleFrom, y1: y, x2: left + width * BookStyle.ruleTo, y2: y,
                     width: BookStyle.ruleWidth, gray: BookStyle.ruleGray)
        space(geometry.bodySize * BookStyle.spaceAroundRule)
    }
}

/// The families the book is set in, with fallbacks fontconfig walks for each script. The CJK
/// family follows the text's language so Han characters take its glyph forms, and comes last
/// for other languages: a symbol (★, ●) that the Latin font lacks is then taken from DejaVu,
/// not from a 20 MB CJK face that cairo would load whole to subset.
enum BookFonts {
    static func serif(_ language: String?) -> String {
        families("Noto Serif", cjk("Serif", language), "Noto Naskh Arabic, Noto Serif Hebrew, " + scripts("Serif") + ", DejaVu Serif", "serif", language)
    }

    static func sans(_ language: String?) -> String {
        families("Noto Sans", cjk("Sans", language), "Noto Sans Arabic, Noto Sans Hebrew, " + scripts("Sans") + ", DejaVu Sans", "sans-serif", language)
    }

    /// Noto's faces for the scripts of South and Southeast Asia, the Caucasus and Ethiopia,
    /// named so a Hindi or Tamil entry is set in the serif beside Latin text in Noto Serif
    /// (fontconfig's own fallback took the sans). None of them has ★ or ●, which still
    /// come from DejaVu.
    private static func scripts(_ kind: String) -> String {
        ["Thai", "Devanagari", "Bengali", "Tamil", "Telugu", "Kannada", "Malayalam", "Gujarati", "Gurmukhi", "Oriya", "Sinhala",
         "Lao", "Khmer", "Myanmar", "Georgian", "Armenian", "Ethiopic"].map { "Noto \(kind) \($0)" }.joined(separator: ", ")
    }

    private static func families(_ main: String, _ cjk: String, _ others: String, _ generic: String, _ language: String?) -> String {
        isCJK(language) ? [main, cjk, others, generic].joined(separator: ", ") : [main, others, cjk, generic].joined(separator: ", ")
    }

    /// An entry's headings: the sans in bold; for CJK text the serif face it is set in, larger
    /// and not bold. Each Noto CJK face costs some 20 MB of memory once HarfBuzz has read its
    /// glyph outlines' table, so CJK text stays in one face (bold only where the text asks).
    static func heading(_ language: String?) -> String { isCJK(language) ? serif(language) : sans(language) + " Bold" }

    /// Date lines and labels: the sans; for CJK text its one serif face.
    static func label(_ language: String?) -> String { isCJK(language) ? serif(language) : sans(language) }

    static func isCJK(_ language: String?) -> Bool { ["ja", "zh", "ko"].contains(language?.prefix(2) ?? "") }

    private static func cjk(_ kind: String, _ language: String?) -> String {
        switch language?.prefix(2) {
        case "zh":
            // Han takes the glyph forms of where it is read: Taiwan's, Hong Kong's, else China's.
            let subtags = (language ?? "").lowercased().split(separator: "-").dropFirst()
            if subtags.contains("hk") || subtags.contains("mo") { return "Noto \(kind) CJK HK" }
            if subtags.contains("hant") || subtags.contains("tw") { return "Noto \(kind) CJK TC" }
            return "Noto \(kind) CJK SC"
        case "ko": return "Noto \(kind) CJK KR"
        default: return "Noto \(kind) CJK JP"
        }
    }
}
