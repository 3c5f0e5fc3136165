/// One entry made ready for the page, away from it: what `EntryTypesetter` decided, in
/// order: its paragraphs laid out by Pango at the text block's width (`PageFlow.Laid`),
/// spaces, photos, table rows, rules. Nothing in a script depends on where the entry will
/// fall (every page's text block is as wide), so scripts are made on a thread of their own,
/// ahead of the page flow (`BookSetter`), and played into it one after another: the page
/// thread only places lines and draws them with cairo.
struct EntryScript: Sendable {
    enum Step: Sendable {
        case space(Double)
        case paragraph(PageFlow.Laid)
        /// A photo and its file's name (to say it was left out when it cannot be drawn).
        case photo(PageImage, name: String)
        case row(PageFlow.LaidRow)
        case rule
    }

    /// Where the paragraphs are laid out.
    let block: TextBlock
    let id: String
    /// The entry's bookmark in the outline.
    let outlineTitle: String
    /// Indents, bars and markers on the right (a right-to-left entry).
    let rightToLeft: Bool
    /// Characters of its text no installed font has (counted as its paragraphs are laid out).
    private(set) var unknownGlyphs = 0
    /// The Debian package whose fonts the entry's script needs, when it has such characters.
    var fontPackage: String?
    private(set) var steps: [Step] = []
    /// Photos that are not JPEG or PNG, or whose header cannot be read, by file name.
    var leftOut: [String] = []
    var recordings = 0

    init(block: TextBlock, id: String, outlineTitle: String, rightToLeft: Bool) {
        self.block = block
        self.id = id
        self.outlineTitle = outlineTitle
        self.rightToLeft = rightToLeft
    }

    // The page flow's own words, recorded.
    mutating func space(_ points: Double) { steps.append(.space(points)) }

    mutating func paragraph(_ text: StyledText, style: TextStyle, _ decoration: PageFlow.Decoration = PageFlow.Decoration()) {
        guard let laid = PageFlow.lay(text, style: style, decoration, in: block) else { return }
        unknownGlyphs += laid.layout.unknownGlyphs
        steps.append(.paragraph(laid))
    }

    mutating func photo(_ image: PageImage, name: String) { steps.append(.photo(image, name: name)) }
    mutating func row(_ cells: [StyledText], style: TextStyle, header: Bool) {
        guard let row = PageFlow.lay(row: cells, style: style, header: header, in: block) else { return }
        switch row {
        case .cells(let layouts, _): unknownGlyphs += layouts.reduce(0) { $0 + $1.unknownGlyphs }
        case .paragraphs(let cells): unknownGlyphs += cells.reduce(0) { $0 + $1.layout.unknownGlyphs }
        }
        steps.append(.row(row))
    }
    mutating func rule() { steps.append(.rule) }

    /// What playing scripts came to, summed over the book.
    struct Tally {
        var photos = 0
        var recordings = 0
        var leftOut: [String] = []
        /// Photos printed at under 300 pixels an inch, and at how many (a printer's floor).
        var coarse: [(name: String, ppi: Int)] = []
    }

    /// Sets the steps into `flow`, in order; a photo cairo cannot draw is left out and named.
    func play(into flow: PageFlow, tally: inout Tally) {
        flow.indentsFromRight = rightToLeft
        defer { flow.indentsFromRight = false }
        tally.recordings += recordings
        tally.leftOut += leftOut
        for step in steps {
            switch step {
            case .space(let points): flow.space(points)
            case .paragraph(let laid): flow.place(laid)
            case .photo(let image, let name):
                do {
                    let ppi = try flow.photo(image)
                    tally.photos += 1
                    if ppi < 300 { tally.coarse.append((name, Int(ppi))) }
                } catch {
                    tally.leftOut.append(name)
                }
            case .row(let row): flow.place(row)
            case .rule: flow.rule()
            }
        }
    }
}

/// What laying out text for a page needs: the page's geometry (the text block's width and
/// height) and the fonts.
struct TextBlock: Sendable {
    let geometry: PageGeometry
    let fonts: FontContext
}
