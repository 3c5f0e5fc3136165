import CPango
import Foundation

/// The fonts and the Pango context every layout of a book is made in: metrics unhinted and
/// positions unrounded (a PDF is not a screen), 72 dpi so font sizes are points, and a font map of the book's own,
/// so that once the book is set its fonts and Pango's caches go before cairo subsets the
/// fonts into the file.
///
/// Text is laid out on two threads (entries ahead of the pages, the pages' own words on the
/// page thread), and Pango is not thread-safe: every call into it holds `lock`. So does the
/// end of each page (`PDFCanvas.endPage`), where cairo plays the page's glyphs into the file,
/// looking each up in the same caches Pango fills while it lays text out. Without it one
/// export in five of a book of Japanese, Russian and odd text crashed in cairo 1.16 (an
/// assertion or a segmentation fault in `cairo_surface_finish`), whichever thread won; with
/// it none did in 120. Those caches are the whole process's, so the lock is one for every
/// context: two books made at once by an app are kept apart the same way.
final class FontContext: @unchecked Sendable {  // every Pango call holds `lock`
    private static let processLock = NSLock()
    fileprivate var lock: NSLock { Self.processLock }
    private let map: UnsafeMutablePointer<PangoFontMap>
    fileprivate let context: OpaquePointer
    /// Parsed font descriptions by their text and size (a book uses a handful, a layout each).
    private var descriptions: [String: OpaquePointer] = [:]

    init() {
        map = pango_cairo_font_map_new()
        context = pango_font_map_create_context(map)
        pango_cairo_context_set_resolution(context, 72)
        let options = cairo_font_options_create()
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        pango_cairo_context_set_font_options(context, options)
        cairo_font_options_destroy(options)
        // Glyphs where the font puts them: Pango rounds each advance to a whole pixel unless
        // told not to, and at 72 dpi a pixel is a point (an 'n' of 9.5 pt set 6.000 wide
        // rather than 6.128: letters unevenly spaced on every line).
        pango_context_set_round_glyph_positions(context, 0)
    }

    deinit {
        for description in descriptions.values { pango_font_description_free(description) }
        g_object_unref(UnsafeMutableRawPointer(context))
        g_object_unref(UnsafeMutableRawPointer(map))
    }

    /// `body` with `lock` held: what plays glyphs of this context's fonts into a file.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Called with `lock` held.
    fileprivate func description(_ font: String, size: Double) -> OpaquePointer? {
        let key = font + "\u{0}" + String(size)
        if let known = descriptions[key] { return known }
        guard let made = pango_font_description_from_string(font) else { return nil }
        pango_font_description_set_absolute_size(made, size * Double(PANGO_SCALE))
        descriptions[key] = made
        return made
    }
}

/// One block of text laid out by Pango at a width, kept as what a page needs of it and
/// nothing of Pango's: its lines (where each sits, for splitting a paragraph across pages),
/// each line's glyph runs (cairo's scaled font, glyphs, and the clusters that map them back
/// to the text, so the PDF can be searched and copied), its height, and the link areas.
/// Made on any thread; drawn on the page's (`PDFCanvas.draw`), with cairo alone: cairo's
/// scaled fonts are safe to share between threads, Pango's objects are not.
final class TextLayout: @unchecked Sendable {  // made on one thread, then only read (cairo fonts are thread-safe)
    struct Line {
        /// Top of the line box and its baseline, from the layout's top; x of its start.
        let top: Double
        let baseline: Double
        let bottom: Double
        let x: Double
        /// The runs in visual order, positioned from the line's start on its baseline.
        fileprivate(set) var runs: [Run] = []
        /// Link areas on this line: which link, and its box in layout coordinates.
        fileprivate(set) var linkBoxes: [(link: Int, box: Rect)] = []
    }

    /// Glyphs of one font and direction, as `cairo_show_text_glyphs` takes them.
    struct Run {
        /// Owned: a reference taken, given back when the layout goes.
        let font: OpaquePointer?
        /// Where the run starts from the line's start, and its baseline's shift (a rise).
        let start: Double
        let shift: Double
        /// Each glyph from the run's start, and its own offset from the baseline (0 for most).
        let glyphs: [cairo_glyph_t]
        let clusters: [cairo_text_cluster_t]
        let backward: Bool
        /// The run's text, bytes of `TextLayout.utf8`.
        let textRange: Range<Int>
        /// The text cairo is given for the run when it differs from `textRange`'s bytes: soft
        /// hyphens inside a cluster of glyphs (a ligature, "f\u{AD}f" in "cof\u{AD}fee") left
        /// out, so a viewer copies and finds "coffee"; `clusters` count these bytes.
        var shownText: [CChar]? = nil
        /// The run's own colour (a link's), else the drawing's.
        let color: (red: Double, green: Double, blue: Double)?
        /// A line through the run (strikethrough): its box from the run's start and baseline.
        let strike: Rect?
        /// Glyphs no font has, drawn as empty boxes.
        let missing: [Rect]
        /// A colour behind the run (a highlight): its box from the run's start and baseline.
        var ground: (box: Rect, color: (red: Double, green: Double, blue: Double))? = nil
    }

    struct Rect {
        let x, y, width, height: Double
    }

    let lines: [Line]
    let links: [StyledText.Link]
    /// Characters no installed font has a glyph for.
    let unknownGlyphs: Int
    /// The width the text would take on one line, unbroken.
    let naturalWidth: Double
    /// The text, NUL-terminated, as the runs' clusters count it.
    let utf8: [CChar]

    var height: Double { lines.last?.bottom ?? 0 }

    init(_ text: StyledText, style: TextStyle, width: Double, in fonts: FontContext) {
        fonts.lock.lock()
        defer { fonts.lock.unlock() }
        let layout = Self.layout(text, style: style, in: fonts)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        pango_layout_set_width(layout, Int32(width * Double(PANGO_SCALE)))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        pango_layout_set_line_spacing(layout, Float(style.leading))
        pango_layout_set_justify(layout, style.justify ? 1 : 0)
        switch style.alignment {
        case .natural: pango_layout_set_alignment(layout, PANGO_ALIGN_LEFT)
        case .center: pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
        case .end: pango_layout_set_alignment(layout, PANGO_ALIGN_RIGHT)
        }
        if style.indent != 0 { pango_layout_set_indent(layout, Int32(style.indent * Double(PANGO_SCALE))) }
        // A justified paragraph's breaks chosen for the whole paragraph, where that is ours to
        // do; one that fits its first line stays as measured, unwrapped (its last line is not
        // justified, and it starts at the left either way). Where total fit does not set it
        // (a word too long for a line, a hard line break, a paragraph too long), Pango breaks
        // the lines and only their spaces are widened (`justifyBySpaces`).
        if style.justify, style.alignment == .natural, width > 0, Self.isInTotalFitScripts(text.text) {
            let fit = text.text.utf8.count <= Self.maxTotalFitBytes ? Self.totalFitBreaks(layout, width: width, indent: style.indent, size: style.size) : nil
            if fit?.starts.isEmpty != true {
                let set = fit.map { Self.setLines(layout, breaking: $0, width: width, indent: style.indent, length: text.text.utf8.count) } ?? false
                if !set {
                    pango_layout_set_width(layout, Int32(width * Double(PANGO_SCALE)))
                    Self.justifyBySpaces(layout, width: width, indent: style.indent)
                }
            }
        }

        let scale = Double(PANGO_SCALE)
        utf8 = Array(text.text.utf8CString)
        var lines: [Line] = []
        if let iterator = pango_layout_get_iter(layout) {
            repeat {
                var logical = PangoRectangle()
                pango_layout_iter_get_line_extents(iterator, nil, &logical)
                var line = Line(top: Double(logical.y) / scale, baseline: Double(pango_layout_iter_get_baseline(iterator)) / scale,
                                bottom: Double(logical.y + logical.height) / scale, x: Double(logical.x) / scale)
                if let pangoLine = pango_layout_iter_get_line_readonly(iterator) {
                    line.runs = Self.runs(of: pangoLine, text: pango_layout_get_text(layout))
                    for (index, link) in text.links.enumerated() {
                        for box in Self.boxes(of: link.range, on: pangoLine, top: line.top, bottom: line.bottom) {
                            line.linkBoxes.append((index, box))
                        }
                    }
                }
                lines.append(line)
            } while pango_layout_iter_next_line(iterator) != 0
            pango_layout_iter_free(iterator)
        }
        self.lines = text.text.isEmpty ? [] : lines
        links = text.links
        unknownGlyphs = Int(pango_layout_get_unknown_glyphs_count(layout))
        var logical = PangoRectangle()
        pango_layout_get_extents(layout, nil, &logical)
        naturalWidth = Double(logical.width) / scale
    }

    /// A paragraph measured on one line as a justified one is for total fit: its breaks and
    /// the width of a space (for tests and benchmarks to set it both ways).
    static func measuredForTotalFit(_ text: StyledText, style: TextStyle, in fonts: FontContext)
        -> (breaks: [TotalFit.Break], spaceWidth: Double)? {
        fonts.lock.lock()
        defer { fonts.lock.unlock() }
        let layout = Self.layout(text, style: style, in: fonts)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        return measuredBreaks(layout, size: style.size).map { ($0.breaks, $0.spaceWidth) }
    }

    /// A new layout of `text` in `style`'s font and attributes, its direction its own, not
    /// yet given a width. Called with the lock held; the caller unrefs it.
    private static func layout(_ text: StyledText, style: TextStyle, in fonts: FontContext) -> OpaquePointer? {
        let layout = pango_layout_new(fonts.context)
        pango_layout_set_text(layout, text.text, Int32(text.text.utf8.count))
        pango_layout_set_font_description(layout, fonts.description(style.font, size: style.size))
        pango_layout_set_auto_dir(layout, 1)
        setAttributes(of: text, style: style, on: layout)
        return layout
    }

    deinit {
        for line in lines { for run in line.runs { cairo_scaled_font_destroy(run.font) } }
    }

    private static func setAttributes(of text: StyledText, style: TextStyle, on layout: OpaquePointer?) {
        let attributes = pango_attr_list_new()
        if let language = text.language ?? style.language {
            insert(pango_attr_language_new(pango_language_from_string(language)), into: attributes, 0, text.text.utf8.count)
        }
        if style.letterSpacing != 0 {
            insert(pango_attr_letter_spacing_new(Int32(style.letterSpacing * Double(PANGO_SCALE))), into: attributes, 0, text.text.utf8.count)
        }
        for span in text.spans {
            let attribute: UnsafeMutablePointer<PangoAttribute>?
            switch span.style {
            case .italic: attribute = pango_attr_style_new(PANGO_STYLE_ITALIC)
            case .bold: attribute = pango_attr_weight_new(PANGO_WEIGHT_BOLD)
            case .mono: attribute = pango_attr_family_new("Noto Sans Mono, DejaVu Sans Mono, monospace")
            case .strike: attribute = pango_attr_strikethrough_new(1)
            case .link: attribute = pango_attr_foreground_new(0x1a00, 0x3c00, 0x7a00)
            case .gray: attribute = pango_attr_foreground_new(0x5500, 0x5500, 0x5500)
            case .small: attribute = pango_attr_scale_new(0.85)
            case .highlight: attribute = pango_attr_background_new(0xff00, 0xec00, 0x8b00)
            case .address: attribute = pango_attr_insert_hyphens_new(0)
            case .superscript:
                insert(pango_attr_rise_new(Int32(style.size * 0.33 * Double(PANGO_SCALE))), into: attributes, span.start, span.end)
                attribute = pango_attr_scale_new(0.7)
            }
            insert(attribute, into: attributes, span.start, span.end)
        }
        // A run Pango cannot break at a space is set in pieces of its own (an attribute that
        // changes nothing starts a new item at each piece): Pango shapes again the rest of an
        // item at every line it breaks it into, so a 50 KB word took 3.5 s and a 1 MB one
        // some twenty minutes. Shaping still sees the whole paragraph around each piece.
        var from = 0
        for cut in itemCuts(in: text.text) + [text.text.utf8.count] where cut > from {
            insert(pango_attr_fallback_new(1), into: attributes, from, cut)
            from = cut
        }
        pango_layout_set_attributes(layout, attributes)
        pango_attr_list_unref(attributes)
    }

    /// A run without white space longer than this is cut into pieces of about `itemPiece`.
    static let longestRun = 1_024
    static let itemPiece = 256

    /// Byte offsets, between characters, that cut every run of `text` without white space
    /// longer than `longestRun` bytes into pieces of `itemPiece` bytes or a little more (a
    /// character is never cut). None for text of words.
    static func itemCuts(in text: String) -> [Int] {
        // Most text has a space every few bytes: told by its bytes, without its characters.
        var sinceSpace = 0, longest = 0
        for byte in text.utf8 {
            sinceSpace = byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D ? 0 : sinceSpace + 1
            longest = max(longest, sinceSpace)
        }
        guard longest > longestRun else { return [] }
        var cuts: [Int] = []
        var runStart = 0, runCuts: [Int] = [], lastCut = 0, offset = 0
        func endRun(at end: Int) {
            if end - runStart > longestRun { cuts += runCuts }
            runCuts.removeAll(keepingCapacity: true)
        }
        for character in text {
            let length = character.utf8.count
            if character.isWhitespace {
                endRun(at: offset)
                runStart = offset + length
                lastCut = runStart
            } else if offset - lastCut >= itemPiece {
                runCuts.append(offset)
                lastCut = offset
            }
            offset += length
        }
        endRun(at: offset)
        return cuts
    }

    private static func insert(_ attribute: UnsafeMutablePointer<PangoAttribute>?, into list: OpaquePointer?, _ start: Int, _ end: Int) {
        guard let attribute else { return }
        attribute.pointee.start_index = UInt32(start)
        attribute.pointee.end_index = UInt32(end)
        pango_attr_list_insert(list, attribute)
    }

    /// A line's runs as Pango's cairo renderer would show them (`pango_renderer_draw_layout_line`
    /// and `pango_cairo_renderer_draw_glyph_item` of Pango 1.50, for the attributes a book uses).
    private static func runs(of line: UnsafeMutablePointer<PangoLayoutLine>, text: UnsafePointer<CChar>?) -> [Run] {
        let scale = Double(PANGO_SCALE)
        var runs: [Run] = []
        // Pango's widths are Int32 in 1/1024 pt: a run of a line Pango could not break may
        // add up past Int32, so sums are kept wider.
        var xOffset = 0
        var node = line.pointee.runs
        while let current = node {
            node = current.pointee.next
            guard let run = current.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self),
                  let item = run.pointee.item, let glyphString = run.pointee.glyphs else { continue }
            let font = item.pointee.analysis.font
            var color: (red: Double, green: Double, blue: Double)?
            var struck = false
            var ground: (red: Double, green: Double, blue: Double)?
            var attributes = item.pointee.analysis.extra_attrs
            while let attribute = attributes {
                attributes = attribute.pointee.next
                guard let pointer = attribute.pointee.data?.assumingMemoryBound(to: PangoAttribute.self) else { continue }
                switch pointer.pointee.klass.pointee.type {
                case PANGO_ATTR_FOREGROUND:
                    let value = UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: PangoAttrColor.self).pointee.color
                    color = (Double(value.red) / 65535, Double(value.green) / 65535, Double(value.blue) / 65535)
                case PANGO_ATTR_BACKGROUND:
                    let value = UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: PangoAttrColor.self).pointee.color
                    ground = (Double(value.red) / 65535, Double(value.green) / 65535, Double(value.blue) / 65535)
                case PANGO_ATTR_STRIKETHROUGH:
                    struck = UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: PangoAttrInt.self).pointee.value != 0
                default: break
                }
            }
            var stringWidth = pango_glyph_string_get_width(glyphString)
            var strikeMetrics: (position: Int32, thickness: Int32)?
            var marked: Rect?
            if ground != nil {
                // The marker covers the run's logical box: from ascent to descent, its full advance.
                var logical = PangoRectangle()
                pango_glyph_string_extents(glyphString, font, nil, &logical)
                marked = Rect(x: 0, y: Double(logical.y) / scale, width: Double(logical.width) / scale, height: Double(logical.height) / scale)
            }
            if struck {
                var logical = PangoRectangle()
                pango_glyph_string_extents(glyphString, font, nil, &logical)
                stringWidth = logical.width
                if let metrics = pango_font_get_metrics(font, item.pointee.analysis.language) {
                    strikeMetrics = (pango_font_metrics_get_strikethrough_position(metrics), pango_font_metrics_get_strikethrough_thickness(metrics))
                    pango_font_metrics_unref(metrics)
                }
            }
            xOffset += Int(run.pointee.start_x_offset)
            let shift = -Double(run.pointee.y_offset) / scale
            let start = Double(xOffset) / scale
            let scaled = font.flatMap { pango_cairo_font_get_scaled_font(OpaquePointer($0)) }
            let usable = scaled.map { cairo_scaled_font_status($0) == CAIRO_STATUS_SUCCESS } ?? false

            var glyphs: [cairo_glyph_t] = [], missing: [Rect] = []
            var position = 0
            let count = Int(glyphString.pointee.num_glyphs)
            let infos = UnsafeBufferPointer(start: glyphString.pointee.glyphs, count: count)
            for info in infos {
                defer { position += Int(info.geometry.width) }
                guard info.glyph != PANGO_GLYPH_EMPTY else { continue }
                let x = Double(position + Int(info.geometry.x_offset)) / scale
                let y = Double(info.geometry.y_offset) / scale
                if !usable || info.glyph & PANGO_GLYPH_UNKNOWN_FLAG != 0 {
                    if info.glyph != (0x20 | PANGO_GLYPH_UNKNOWN_FLAG) {
                        let width = Double(info.geometry.width) / scale
                        missing.append(Rect(x: x + width * 0.1, y: y - width, width: width * 0.8, height: width * 1.1))
                    }
                } else {
                    glyphs.append(cairo_glyph_t(index: UInt(info.glyph), x: x, y: y))
                }
            }
            let backward = item.pointee.analysis.level & 1 != 0
            var clusters = usable ? Self.clusters(of: run, text: text, backward: backward, infos: infos) : []
            let offset = Int(item.pointee.offset)
            let shown = text.flatMap { Self.withoutInnerSoftHyphens(UnsafeBufferPointer(start: $0 + offset, count: Int(item.pointee.length)), clusters: &clusters, backward: backward) }
            var strike: Rect?
            if let strikeMetrics {
                strike = Rect(x: 0, y: -Double(strikeMetrics.position) / scale,
                              width: Double(stringWidth) / scale, height: Double(strikeMetrics.thickness) / scale)
            }
            runs.append(Run(font: usable ? cairo_scaled_font_reference(scaled) : nil, start: start, shift: shift, glyphs: glyphs, clusters: clusters, backward: backward,
                            textRange: offset..<(offset + Int(item.pointee.length)), shownText: shown, color: color, strike: strike, missing: missing,
                            ground: marked.flatMap { box in ground.map { (box, $0) } }))
            xOffset += Int(stringWidth) + Int(run.pointee.end_x_offset)
        }
        return runs
    }

    /// How many bytes and glyphs each cluster of a run has, glyphs that are not drawn not counted.
    /// A run's bytes with each soft hyphen (U+00AD) that shares a cluster with other
    /// characters left out, and those clusters' byte counts made to match; nil when there is
    /// none. A soft hyphen that is a cluster of its own stays: at a line's end it is the
    /// hyphen drawn there, elsewhere it has no glyph and no text of its own in the PDF.
    static func withoutInnerSoftHyphens(_ bytes: UnsafeBufferPointer<CChar>, clusters: inout [cairo_text_cluster_t], backward: Bool) -> [CChar]? {
        let (first, second) = (CChar(bitPattern: 0xC2), CChar(bitPattern: 0xAD))
        guard !clusters.isEmpty, zip(bytes, bytes.dropFirst()).contains(where: { $0 == first && $1 == second }) else { return nil }
        // Clusters come in glyph order; a backward run's take its bytes from the end.
        var pieces: [[CChar]] = []
        var end = backward ? bytes.count : 0
        var changed = false
        for index in clusters.indices {
            let count = Int(clusters[index].num_bytes)
            let range = backward ? max(0, end - count)..<end : end..<min(bytes.count, end + count)
            end = backward ? range.lowerBound : range.upperBound
            var piece = Array(bytes[range])
            if clusters[index].num_glyphs > 0, piece.count > 2 {
                var kept: [CChar] = [], at = 0
                while at < piece.count {
                    if at + 1 < piece.count, piece[at] == first, piece[at + 1] == second { at += 2; continue }
                    kept.append(piece[at])
                    at += 1
                }
                if kept.count != piece.count, !kept.isEmpty {
                    piece = kept
                    clusters[index].num_bytes = Int32(kept.count)
                    changed = true
                }
            }
            pieces.append(piece)
        }
        guard changed else { return nil }
        return (backward ? pieces.reversed() : pieces).flatMap { $0 }
    }

    /// Whether cairo takes `clusters` for `bytes` and `glyphs` glyphs, by its own rules
    /// (`_cairo_validate_text_clusters`): counts not negative, none empty of both, adding up
    /// to the bytes and the glyphs, and each cluster's bytes whole characters, counted from
    /// the text's start as cairo counts them, for a backward run too.
    static func clustersFit(_ clusters: [cairo_text_cluster_t], bytes: UnsafeBufferPointer<CChar>, glyphs: Int) -> Bool {
        var byteCount = 0, glyphCount = 0
        for cluster in clusters {
            let (b, g) = (Int(cluster.num_bytes), Int(cluster.num_glyphs))
            guard b >= 0, g >= 0, b + g > 0, byteCount + b <= bytes.count else { return false }
            // Neither end may fall inside a character.
            for edge in [byteCount, byteCount + b] where edge < bytes.count && UInt8(bitPattern: bytes[edge]) & 0xC0 == 0x80 { return false }
            byteCount += b
            glyphCount += g
        }
        return byteCount == bytes.count && glyphCount == glyphs
    }

    private static func clusters(of run: UnsafeMutablePointer<PangoGlyphItem>, text: UnsafePointer<CChar>?, backward: Bool,
                                 infos: UnsafeBufferPointer<PangoGlyphInfo>) -> [cairo_text_cluster_t] {
        var clusters: [cairo_text_cluster_t] = []
        var iterator = PangoGlyphItemIter()
        guard pango_glyph_item_iter_init_start(&iterator, run, text) != 0 else { return [] }
        repeat {
            let bytes = iterator.end_index - iterator.start_index
            var glyphs = backward ? iterator.start_glyph - iterator.end_glyph : iterator.end_glyph - iterator.start_glyph
            for index in Int(min(iterator.start_glyph, iterator.end_glyph + 1))..<Int(max(iterator.start_glyph + 1, iterator.end_glyph))
            where index >= 0 && index < infos.count {
                if infos[index].glyph == PANGO_GLYPH_EMPTY || infos[index].glyph & PANGO_GLYPH_UNKNOWN_FLAG != 0 { glyphs -= 1 }
            }
            clusters.append(cairo_text_cluster_t(num_bytes: bytes, num_glyphs: glyphs))
        } while pango_glyph_item_iter_next_cluster(&iterator) != 0
        return clusters
    }

    /// The boxes the bytes `range` of the text take on a line, in layout coordinates.
    private static func boxes(of range: Range<Int>, on line: UnsafeMutablePointer<PangoLayoutLine>, top: Double, bottom: Double) -> [Rect] {
        let start = Int(line.pointee.start_index), end = start + Int(line.pointee.length)
        guard range.lowerBound < end, range.upperBound > start else { return [] }
        var ranges: UnsafeMutablePointer<Int32>?
        var count: Int32 = 0
        pango_layout_line_get_x_ranges(line, Int32(max(start, range.lowerBound)), Int32(min(end, range.upperBound)), &ranges, &count)
        guard let ranges else { return [] }
        defer { g_free(ranges) }
        return (0..<Int(count)).map { pair in
            let x0 = Double(ranges[2 * pair]) / Double(PANGO_SCALE), x1 = Double(ranges[2 * pair + 1]) / Double(PANGO_SCALE)
            return Rect(x: x0, y: top, width: x1 - x0, height: bottom - top)
        }
    }
}
