import CPango

/// A justified paragraph broken by total fit (`TotalFit`): Pango measures it on one line,
/// `TotalFit` picks the breaks, Pango is then allowed to break there alone (`allow_breaks`
/// off between them, at a width that holds the tightest line) and sets the lines, hyphens
/// included, and each line's spaces are then stretched or shrunk to the measure, as
/// Pango's own justification stretches them (it cannot shrink). Latin, Greek and Cyrillic
/// only: CJK and Arabic keep Pango's own rules.
extension TextLayout {
    /// A space stretches by half its width before a line counts as loose (TeX's), and
    /// shrinks by a quarter at most.
    static let totalFit = TotalFit.Settings(stretch: 0.5, shrink: 0.25)

    /// The breaks total fit chose: the byte offsets where lines after the first start, and
    /// the widest line at its spaces' own width (the first line's indent included).
    struct FitBreaks {
        let starts: [Int]
        let widest: Double
    }

    /// The longest paragraph total fit sets: measured on one line, a longer one (some thirty
    /// pages) would pass what Pango's Int32 widths hold. Pango's own breaking sets it.
    static let maxTotalFitBytes = 65_536

    /// Whether every letter of the paragraph is Latin, Greek or Cyrillic.
    static func isInTotalFitScripts(_ text: String) -> Bool {
        for scalar in text.unicodeScalars where scalar.properties.isAlphabetic {
            switch scalar.value {
            case 0..<0x0530, 0x1D00..<0x2000, 0x2C60..<0x2C80, 0xA720..<0xA800, 0xFB00..<0xFB07: continue
            default: return false
            }
        }
        return true
    }

    /// Lays out `layout` (its text, font and attributes set, its width not yet) on one line,
    /// and gives the byte offsets where total fit starts each line after the first: none
    /// when the paragraph fits on its first line; nil when Pango's own breaking should stand
    /// (right to left, a word too long, a hard line break). Leaves the layout unwrapped and
    /// unjustified. Called with the lock held.
    static func totalFitBreaks(_ layout: OpaquePointer?, width: Double, indent: Double, size: Double) -> FitBreaks? {
        guard indent >= 0 else { return nil }  // a hanging indent narrows every line but the first
        pango_layout_set_width(layout, -1)
        pango_layout_set_justify(layout, 0)
        guard pango_layout_get_line_count(layout) == 1, let line = pango_layout_get_line_readonly(layout, 0) else { return nil }
        var logical = PangoRectangle()
        pango_layout_line_get_extents(line, nil, &logical)
        guard Double(logical.width) / Double(PANGO_SCALE) + indent > width else { return FitBreaks(starts: [], widest: 0) }
        guard let measured = measuredBreaks(layout, size: size),
              let chosen = TotalFit.breaks(measured.breaks, width: width, indent: indent, spaceWidth: measured.spaceWidth, settings: totalFit)
        else { return nil }
        var widest = 0.0, lineStart = -indent
        for index in chosen {
            widest = max(widest, measured.breaks[index].lineEnd - lineStart)
            lineStart = measured.breaks[index].nextStart
        }
        return FitBreaks(starts: chosen.dropLast().map { measured.starts[$0] }, widest: widest)
    }

    /// The places an unwrapped, one-line `layout` may break, as `TotalFit` takes them, the
    /// byte offset each next line would start at, and the width of a space. Nil when it is
    /// not one left-to-right line. Called with the lock held.
    static func measuredBreaks(_ layout: OpaquePointer?, size: Double) -> (breaks: [TotalFit.Break], starts: [Int], spaceWidth: Double)? {
        let scale = Double(PANGO_SCALE)
        guard pango_layout_get_line_count(layout) == 1, let line = pango_layout_get_line_readonly(layout, 0),
              let text = pango_layout_get_text(layout) else { return nil }
        let length = Int(strlen(text))

        // Where each cluster starts, from the line's start (left to right only).
        var x = [Double](repeating: .nan, count: length + 1)
        var position = 0.0
        var node = line.pointee.runs
        while let run = node {
            guard let item = run.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self).pointee,
                  let analysis = item.item?.pointee, analysis.analysis.level % 2 == 0, let glyphs = item.glyphs?.pointee else { return nil }
            for index in 0..<Int(glyphs.num_glyphs) {
                let cluster = Int(analysis.offset) + Int(glyphs.log_clusters[index])
                if cluster >= 0, cluster <= length, x[cluster].isNaN { x[cluster] = position }
                position += Double(glyphs.glyphs[index].geometry.width) / scale
            }
            node = run.pointee.next
        }
        x[length] = position

        // The break opportunities, by character, and each character's byte offset.
        var count: Int32 = 0
        guard let attributes = pango_layout_get_log_attrs_readonly(layout, &count) else { return nil }
        var bytes: [Int] = [], isSoftHyphen: [Bool] = []
        var offset = 0
        while offset < length {
            bytes.append(offset)
            let lead = UInt8(bitPattern: text[offset])
            let width = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            isSoftHyphen.append(lead == 0xC2 && offset + 1 < length && UInt8(bitPattern: text[offset + 1]) == 0xAD)
            offset += width
        }
        bytes.append(length)
        guard Int(count) == bytes.count else { return nil }

        var breaks: [TotalFit.Break] = [], starts: [Int] = []
        var spaces = 0, spacesBefore = [Int](repeating: 0, count: bytes.count)
        var spaceWidth = size / 4
        for character in 0..<bytes.count {
            spacesBefore[character] = spaces
            // U+0020 alone: the spaces `justify` widens and narrows.
            if character < bytes.count - 1, attributes[character].is_expandable_space != 0, text[bytes[character]] == 0x20 {
                if spaces == 0, !x[bytes[character]].isNaN, !x[bytes[character + 1]].isNaN {
                    spaceWidth = max(x[bytes[character + 1]] - x[bytes[character]], size / 8)
                }
                spaces += 1
            }
        }
        for character in 1..<bytes.count {
            let isEnd = character == bytes.count - 1
            guard isEnd || attributes[character].is_line_break != 0 else { continue }
            if attributes[character].is_mandatory_break != 0 && !isEnd { return nil }
            // The line ends before the spaces that lead up to the break.
            var end = character
            while end > 0, attributes[end - 1].is_white != 0 { end -= 1 }
            let hyphen = !isEnd && isSoftHyphen[character - 1]
            let lineEnd = x[bytes[end]], nextStart = x[bytes[character]]
            guard !lineEnd.isNaN, !nextStart.isNaN else { continue }  // inside a ligature
            breaks.append(TotalFit.Break(lineEnd: lineEnd + (hyphen ? size * 0.4 : 0), nextStart: nextStart,
                                         spacesToEnd: spacesBefore[end], spacesToNext: spacesBefore[character], hyphen: hyphen))
            starts.append(bytes[character])
        }
        return (breaks, starts, spaceWidth)
    }

    /// Sets `layout` in the lines `fit` chose: Pango breaks only there, at a width that holds
    /// the widest, and each line but the last is then brought to `width` by its spaces (the
    /// last only when it is too wide). False, with the layout as it was, when Pango would not
    /// break there (measured otherwise than set), for the caller to let Pango justify.
    static func setLines(_ layout: OpaquePointer?, breaking fit: FitBreaks, width: Double, indent: Double, length: Int) -> Bool {
        let scale = Double(PANGO_SCALE)
        let original = pango_layout_get_attributes(layout).map { pango_attr_list_ref($0) }
        defer { if let original { pango_attr_list_unref(original) } }
        let list = original.map { pango_attr_list_copy($0) } ?? pango_attr_list_new()
        defer { pango_attr_list_unref(list) }
        var from = 0
        for start in fit.starts + [length] where start > from {
            if let attribute = pango_attr_allow_breaks_new(0) {
                attribute.pointee.start_index = UInt32(from)
                attribute.pointee.end_index = UInt32(start)
                pango_attr_list_insert(list, attribute)
            }
            from = start
        }
        pango_layout_set_width(layout, Int32((max(width, fit.widest) + 1) * scale))
        pango_layout_set_justify(layout, 0)
        pango_layout_set_attributes(layout, list)
        let lines = Self.lines(of: layout)
        guard lines.count == fit.starts.count + 1, zip(lines.dropFirst(), fit.starts).allSatisfy({ Int($0.pointee.start_index) == $1 }),
              let text = pango_layout_get_text(layout) else {
            pango_layout_set_attributes(layout, original ?? nil)
            return false
        }
        for (index, line) in lines.enumerated() {
            justify(line, to: width - (index == 0 ? indent : 0), text: text, last: index == lines.count - 1)
        }
        return true
    }

    /// Justifies `layout` (broken by Pango, at its width, unjustified) by widening the inner
    /// spaces of every line but the last of each paragraph. Pango's own justification spreads
    /// the letters of a line without a space (a lone "see" before an address too long for
    /// the line set "s   e   e"); here such a line stays as set, as a typesetter leaves it.
    /// Called with the lock held.
    static func justifyBySpaces(_ layout: OpaquePointer?, width: Double, indent: Double) {
        pango_layout_set_justify(layout, 0)
        let lines = Self.lines(of: layout)
        guard lines.count > 1, let text = pango_layout_get_text(layout) else { return }
        for (line, next) in zip(lines, lines.dropFirst()) where next.pointee.is_paragraph_start == 0 {
            // Pango's indent: the first line's when positive, every other line's when negative.
            let inset = line.pointee.is_paragraph_start != 0 ? max(indent, 0) : max(-indent, 0)
            justify(line, to: width - inset, text: text, last: false)
        }
    }

    /// The layout's lines, which Pango may then measure afresh, from its list: asked for one
    /// by one (`pango_layout_get_line`), each walks the list from its start, and a 1 MB word's
    /// 20,000 lines spent a second there.
    static func lines(of layout: OpaquePointer?) -> [UnsafeMutablePointer<PangoLayoutLine>] {
        var lines: [UnsafeMutablePointer<PangoLayoutLine>] = []
        var node = pango_layout_get_lines(layout)
        while let current = node {
            if let line = current.pointee.data?.assumingMemoryBound(to: PangoLayoutLine.self) { lines.append(line) }
            node = current.pointee.next
        }
        return lines
    }

    /// Brings `line` to `width` by widening or narrowing its inner spaces alike (a line from
    /// `pango_layout_get_line`, which Pango then measures afresh), as Pango's justification
    /// widens them; a last line only when it is too wide.
    private static func justify(_ line: UnsafeMutablePointer<PangoLayoutLine>, to width: Double, text: UnsafePointer<CChar>, last: Bool) {
        // The line's glyphs in order (left to right), and which of them are spaces.
        var glyphs: [(string: UnsafeMutablePointer<PangoGlyphString>, index: Int, space: Bool)] = []
        var natural: Int32 = 0, lastInk = -1
        var node = line.pointee.runs
        while let run = node {
            node = run.pointee.next
            guard let item = run.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self).pointee,
                  let offset = item.item?.pointee.offset, let string = item.glyphs else { continue }
            var previousCluster: Int32 = -1
            for index in 0..<Int(string.pointee.num_glyphs) {
                let cluster = string.pointee.log_clusters[index]
                let byte = UInt8(bitPattern: text[Int(offset + cluster)])
                let space = byte == 0x20 && cluster != previousCluster
                previousCluster = cluster
                glyphs.append((string, index, space))
                if !space { lastInk = glyphs.count - 1 }
            }
        }
        // Spaces after the last glyph do not count (Pango sets a break's space to nothing).
        for (at, glyph) in glyphs.enumerated() where at <= lastInk {
            natural += glyph.string.pointee.glyphs[glyph.index].geometry.width
        }
        let spaces = glyphs.indices.filter { $0 < lastInk && glyphs[$0].space }
        var extra = Int32((width * Double(PANGO_SCALE)).rounded(.down)) - natural
        if last { extra = min(extra, 0) }
        guard extra != 0, !spaces.isEmpty else { return }
        // Each space its share, the remainder spread one unit at a time.
        for (n, at) in spaces.enumerated() {
            let share = extra / Int32(spaces.count) + (Int32(n) < extra % Int32(spaces.count) ? (extra > 0 ? 1 : -1) : 0)
            glyphs[at].string.pointee.glyphs[glyphs[at].index].geometry.width += share
        }
    }
}
