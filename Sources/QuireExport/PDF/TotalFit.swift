/// Where a justified paragraph's lines break, chosen for the whole paragraph at once (Knuth
/// and Plass, "Breaking paragraphs into lines", 1981) rather than line by line as Pango
/// does: a line set loose to spare the one before it a tight fit is what keeps the spaces
/// even down a page. Pure: it takes the paragraph as measured (`Break`s) and returns which
/// breaks to take; `TextLayout` measures with Pango and has Pango set the lines.
///
/// The model is TeX's: a space may stretch by half its width before its line counts as
/// loose, and shrink by a quarter at most (TeX allows a third). A line's badness is
/// 100 × |stretch or shrink needed / what it has|³, uncapped (capped, as TeX caps it at
/// 10,000, one line set 275 pt loose per space cost no more than two lines at 5× stretch,
/// and was taken); its demerits (10 + badness)², plus a hyphen's penalty squared, plus more
/// when two lines in a row end in hyphens or when a loose line meets a tight one. The
/// paragraph's last line ends with infinite stretch.
enum TotalFit {
    /// A place the paragraph may break, in reading order; the last is its end.
    struct Break: Equatable {
        /// Where a line ending here ends: the text's width from the paragraph's start to this
        /// break, spaces before it left out and a hyphen's width added when it is one.
        var lineEnd: Double
        /// Where the line after it starts, from the paragraph's start (after the spaces).
        var nextStart: Double
        /// The stretchable spaces from the paragraph's start to `lineEnd`, and to `nextStart`.
        var spacesToEnd: Int
        var spacesToNext: Int
        /// A break inside a word, shown with a hyphen.
        var hyphen = false
    }

    struct Settings {
        /// How much a space may stretch, as a share of its width, before the line's badness
        /// reaches 100; and how much it may shrink at most.
        var stretch: Double
        var shrink: Double
        var linePenalty = 10.0
        var hyphenPenalty = 50.0
        var doubleHyphenDemerits = 3_000.0
        var fitnessDemerits = 3_000.0
    }

    /// The breaks to take (indices into `breaks`, the last always the paragraph's end), or
    /// nil when some stretch of the paragraph cannot be set in `width` (a word longer than
    /// the line), for the caller to keep Pango's own breaking.
    /// - Parameters:
    ///   - width: each line's width; the first line's is `width - indent`.
    ///   - spaceWidth: the width of one space, for the stretch each space gives.
    static func breaks(_ breaks: [Break], width: Double, indent: Double, spaceWidth: Double, settings: Settings) -> [Int]? {
        guard let last = breaks.indices.last, width > 0, spaceWidth > 0 else { return nil }
        // best[j]: the least demerits of a paragraph set up to break j, and the break before it.
        struct Node { var demerits: Double; var previous: Int; var lines: Int; var fitness: Int; var hyphen: Bool }
        let start = Node(demerits: 0, previous: -1, lines: 0, fitness: 1, hyphen: false)
        var best = [Node?](repeating: nil, count: breaks.count)
        let stretchPerSpace = spaceWidth * settings.stretch
        // Breaks are tried backwards from each j while the line still fits: lines are short.
        for j in 0...last {
            let end = breaks[j]
            let isLast = j == last
            var i = j - 1
            while i >= -1 {
                let from: Node
                let (lineStart, spacesAtStart): (Double, Int)
                if i < 0 {
                    from = start
                    (lineStart, spacesAtStart) = (-indent, 0)
                } else {
                    guard let node = best[i] else { i -= 1; continue }
                    from = node
                    (lineStart, spacesAtStart) = (breaks[i].nextStart, breaks[i].spacesToNext)
                }
                let natural = end.lineEnd - lineStart
                let spaces = end.spacesToEnd - spacesAtStart
                let shrinkable = Double(spaces) * spaceWidth * settings.shrink
                // An earlier start only makes the line longer, even with its spaces shrunk.
                if natural - shrinkable > width { break }
                let ratio: Double
                if natural > width {
                    ratio = (width - natural) / shrinkable  // -1...0
                } else if isLast {
                    ratio = 0
                } else if spaces > 0 {
                    ratio = (width - natural) / (Double(spaces) * stretchPerSpace)
                } else {
                    ratio = natural >= width - 0.01 ? 0 : 10  // no space to stretch: as loose as it gets
                }
                let badness = 100 * abs(ratio * ratio * ratio)
                let penalty = end.hyphen ? settings.hyphenPenalty : 0
                var demerits = (settings.linePenalty + badness) * (settings.linePenalty + badness) + penalty * penalty
                if end.hyphen && from.hyphen { demerits += settings.doubleHyphenDemerits }
                // Fitness classes: 0 tight, 1 decent, 2 loose, 3 very loose; neighbours more
                // than one apart look uneven.
                let fitness = ratio > 1 ? 3 : ratio > 0.5 ? 2 : ratio >= -0.5 ? 1 : 0
                if abs(fitness - from.fitness) > 1 && i >= 0 { demerits += settings.fitnessDemerits }
                let total = from.demerits + demerits
                if best[j].map({ total < $0.demerits }) ?? true {
                    best[j] = Node(demerits: total, previous: i, lines: from.lines + 1, fitness: fitness, hyphen: end.hyphen)
                }
                i -= 1
            }
        }
        guard best[last] != nil else { return nil }
        var chosen: [Int] = []
        var at = last
        while at >= 0, let node = best[at] {
            chosen.append(at)
            at = node.previous
        }
        return chosen.reversed()
    }
}
