import CPango
import Foundation

/// The only file that talks to Pango and cairo: a PDF surface written page by page, text
/// laid out by Pango (HarfBuzz shaping, fribidi, UAX #14 line breaking, fontconfig fallback),
/// images, links, named positions and the outline. Units are PDF points, origin top left.
final class PDFCanvas {
    private let surface: OpaquePointer
    private let cr: OpaquePointer
    /// PNG photos drawn as stand-ins, to be put in by `PNGPassThrough` once the file is done.
    private(set) var passedThrough: [PNGStream] = []
    private var passThroughIndex: [String: Int?] = [:]
    /// What each stand-in's comment starts with; one per book, so no two books' collide.
    var passThroughMarker = "QuirePNG:"
    let width: Double
    let height: Double

    /// Opens a PDF file at `path` whose pages are `width` × `height` points.
    init(path: String, width: Double, height: Double) throws {
        guard let surface = cairo_pdf_surface_create(path, width, height) else {
            throw ExportError(.io, path: path, detail: "cannot create the PDF")
        }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(surface) else {
            let reason = String(cString: cairo_status_to_string(cairo_surface_status(surface)))
            cairo_surface_destroy(surface)
            throw ExportError(.io, path: path, detail: reason)
        }
        self.surface = surface
        self.cr = cr
        self.width = width
        self.height = height
        cairo_pdf_surface_restrict_to_version(surface, CAIRO_PDF_VERSION_1_5)
        // Links are structure elements in cairo 1.16; without a root element around them it
        // writes a parent tree pointing at objects it never wrote (qpdf: "file is damaged").
        cairo_tag_begin(cr, "Document", "")
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    /// Title, author and creator, and one date for both creation and modification (the
    /// newest entry's), so equal journals give equal bytes.
    func setMetadata(title: String, author: String?, date: String) {
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, title)
        if let author { cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_AUTHOR, author) }
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "Quire")
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, date)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_MOD_DATE, date)
    }

    /// Ends the page being drawn; the next drawing starts a new one.
    func endPage() { cairo_show_page(cr) }

    /// Writes what is left (fonts, subset at this point) and closes the file.
    func finish() throws {
        cairo_tag_end(cr, "Document")
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw ExportError(.io, detail: "writing the PDF failed: " + String(cString: cairo_status_to_string(status)))
        }
    }

    // MARK: Drawing

    func draw(_ layout: TextLayout, lines: Range<Int>, x: Double, y: Double, gray: Double = 0) {
        cairo_set_source_rgb(cr, gray, gray, gray)
        let top = layout.lines[lines.lowerBound].top
        for index in lines {
            let line = layout.lines[index]
            guard let pangoLine = pango_layout_get_line_readonly(layout.layout, Int32(index)) else { continue }
            cairo_move_to(cr, x + line.x, y + line.baseline - top)
            pango_cairo_show_layout_line(cr, pangoLine)
        }
        for link in layout.links {
            for rect in layout.rectangles(of: link.range, lines: lines) {
                tagLink(target: link.target, x: x + rect.x, y: y + rect.y - top, width: rect.width, height: rect.height)
            }
        }
    }

    func fill(x: Double, y: Double, width: Double, height: Double, gray: Double) {
        cairo_set_source_rgb(cr, gray, gray, gray)
        cairo_rectangle(cr, x, y, width, height)
        cairo_fill(cr)
    }

    func circle(x: Double, y: Double, radius: Double, gray: Double) {
        cairo_set_source_rgb(cr, gray, gray, gray)
        cairo_new_sub_path(cr)
        cairo_arc(cr, x, y, radius, 0, 2 * Double.pi)
        cairo_fill(cr)
    }

    func line(x1: Double, y1: Double, x2: Double, y2: Double, width: Double, gray: Double) {
        cairo_set_source_rgb(cr, gray, gray, gray)
        cairo_set_line_width(cr, width)
        cairo_move_to(cr, x1, y1)
        cairo_line_to(cr, x2, y2)
        cairo_stroke(cr)
    }

    /// A row of dots from x1 to x2 at height y (a leader in the contents).
    func dots(x1: Double, x2: Double, y: Double, gray: Double) {
        guard x2 > x1 else { return }
        cairo_save(cr)
        cairo_set_source_rgb(cr, gray, gray, gray)
        cairo_set_line_width(cr, 0.7)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        var pattern: [Double] = [0, 3]
        cairo_set_dash(cr, &pattern, 2, 0)
        cairo_move_to(cr, x1, y)
        cairo_line_to(cr, x2, y)
        cairo_stroke(cr)
        cairo_restore(cr)
    }

    /// Draws `image` scaled into the box; a JPEG goes into the PDF as its own bytes.
    func draw(_ image: PageImage, x: Double, y: Double, width: Double, height: Double) throws {
        let source = try passThroughSurface(image) ?? image.surface()
        defer { cairo_surface_destroy(source) }
        cairo_save(cr)
        cairo_translate(cr, x, y)
        // The box is the photo as shown; turn the stored pixels into it (EXIF orientation).
        let (w, h) = (Double(image.width), Double(image.height))
        cairo_scale(cr, width / Double(image.shownWidth), height / Double(image.shownHeight))
        var turn = cairo_matrix_t()
        switch image.orientation {
        case 2: cairo_matrix_init(&turn, -1, 0, 0, 1, w, 0)
        case 3: cairo_matrix_init(&turn, -1, 0, 0, -1, w, h)
        case 4: cairo_matrix_init(&turn, 1, 0, 0, -1, 0, h)
        case 5: cairo_matrix_init(&turn, 0, 1, 1, 0, 0, 0)
        case 6: cairo_matrix_init(&turn, 0, 1, -1, 0, h, 0)
        case 7: cairo_matrix_init(&turn, 0, -1, -1, 0, h, w)
        case 8: cairo_matrix_init(&turn, 0, -1, 1, 0, 0, w)
        default: cairo_matrix_init_identity(&turn)
        }
        cairo_transform(cr, &turn)
        cairo_set_source_surface(cr, source, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
        cairo_paint(cr)
        cairo_restore(cr)
    }

    /// For a PNG whose pixels can go into the PDF as they are (`PNGStream`), a surface of its
    /// size carrying a stand-in JPEG, which cairo embeds in place of pixels; else nil.
    private func passThroughSurface(_ image: PageImage) throws -> OpaquePointer? {
        guard image.kind == .png, image.orientation == 1 else { return nil }
        let index: Int
        if let known = passThroughIndex[image.path] {
            guard let known else { return nil }
            index = known
        } else {
            guard let stream = PNGStream(path: image.path), stream.width == image.width, stream.height == image.height else {
                passThroughIndex[image.path] = .some(nil)
                return nil
            }
            index = passedThrough.count
            passedThrough.append(stream)
            passThroughIndex[image.path] = index
        }
        let comment = passThroughMarker + "\(index);"
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(image.width), Int32(image.height)),
              cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else { throw ExportError(.invalid, path: image.path, detail: "cannot embed the photo") }
        for (type, bytes) in [(CAIRO_MIME_TYPE_JPEG, passedThrough[index].standIn(marker: comment)), (CAIRO_MIME_TYPE_UNIQUE_ID, Array(comment.utf8))] {
            let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes.count, 1))
            copy.initialize(from: bytes, count: bytes.count)
            guard cairo_surface_set_mime_data(surface, type, copy, UInt(bytes.count), { $0?.deallocate() }, copy) == CAIRO_STATUS_SUCCESS else {
                copy.deallocate()
                cairo_surface_destroy(surface)
                throw ExportError(.invalid, path: image.path, detail: "cannot embed the photo")
            }
        }
        return surface
    }

    // MARK: Links and outline

    enum Target: Equatable {
        case uri(String)
        /// A place named with `destination(_:y:)`, before or after the link.
        case destination(String)
    }

    /// Names the place at height `y` of this page, for links and bookmarks. (Links to a page
    /// by number that is not written yet make cairo 1.16 write a page tree with missing
    /// pages; named places are resolved when the file is finished.)
    func destination(_ name: String, y: Double) {
        cairo_tag_begin(cr, "cairo.dest", "name='" + Self.quoted(name) + "' x=0 y=" + Self.number(y))
        cairo_tag_end(cr, "cairo.dest")
    }

    func tagLink(target: Target, x: Double, y: Double, width: Double, height: Double) {
        let rect = "rect=[\(Self.number(x)) \(Self.number(y)) \(Self.number(width)) \(Self.number(height))]"
        let attributes: String
        switch target {
        case .uri(let uri): attributes = rect + " uri='" + Self.quoted(uri) + "'"
        case .destination(let name): attributes = rect + " dest='" + Self.quoted(name) + "'"
        }
        cairo_tag_begin(cr, CAIRO_TAG_LINK, attributes)
        cairo_tag_end(cr, CAIRO_TAG_LINK)
    }

    /// Adds a bookmark under `parent` (0 for the top) leading to the named place;
    /// returns its id for children.
    @discardableResult
    func addOutline(parent: Int32, title: String, destination: String, open: Bool = false) -> Int32 {
        let flags = open ? CAIRO_PDF_OUTLINE_FLAG_OPEN : cairo_pdf_outline_flags_t(0)
        return cairo_pdf_surface_add_outline(surface, parent, title, "dest='" + Self.quoted(destination) + "'", flags)
    }

    static func number(_ value: Double) -> String { String(format: "%.2f", value) }

    /// A string inside cairo's single-quoted attribute value: `\` and `'` escaped.
    static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }
}

/// The fonts and the Pango context every layout of a book is made in: metrics unhinted
/// (a PDF is not a screen), 72 dpi so font sizes are points.
final class FontContext {
    fileprivate let context: OpaquePointer
    /// Parsed font descriptions by their text and size (a book uses a handful, a layout each).
    private var descriptions: [String: OpaquePointer] = [:]

    fileprivate func description(_ font: String, size: Double) -> OpaquePointer? {
        let key = font + "\u{0}" + String(size)
        if let known = descriptions[key] { return known }
        guard let made = pango_font_description_from_string(font) else { return nil }
        pango_font_description_set_absolute_size(made, size * Double(PANGO_SCALE))
        descriptions[key] = made
        return made
    }

    init() {
        let map = pango_cairo_font_map_get_default()
        context = pango_font_map_create_context(map)
        pango_cairo_context_set_resolution(context, 72)
        let options = cairo_font_options_create()
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        pango_cairo_context_set_font_options(context, options)
        cairo_font_options_destroy(options)
    }

    deinit {
        for description in descriptions.values { pango_font_description_free(description) }
        g_object_unref(UnsafeMutableRawPointer(context))
    }
}

/// One block of text laid out by Pango at a width: its lines (where each sits, for splitting
/// a paragraph across pages), its height, and the link areas inside it.
final class TextLayout {
    struct Line {
        /// Top of the line box and its baseline, from the layout's top; x of its start.
        let top: Double
        let baseline: Double
        let bottom: Double
        let x: Double
    }

    struct Rect {
        let x, y, width, height: Double
    }

    fileprivate let layout: OpaquePointer
    let lines: [Line]
    let links: [StyledText.Link]
    /// Characters no installed font has a glyph for.
    let unknownGlyphs: Int

    var height: Double { lines.last?.bottom ?? 0 }

    init(_ text: StyledText, style: TextStyle, width: Double, in fonts: FontContext) {
        layout = pango_layout_new(fonts.context)
        pango_layout_set_text(layout, text.text, Int32(text.text.utf8.count))
        pango_layout_set_font_description(layout, fonts.description(style.font, size: style.size))
        pango_layout_set_width(layout, Int32(width * Double(PANGO_SCALE)))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        pango_layout_set_auto_dir(layout, 1)
        pango_layout_set_line_spacing(layout, Float(style.leading))
        pango_layout_set_justify(layout, style.justify ? 1 : 0)
        switch style.alignment {
        case .natural: pango_layout_set_alignment(layout, PANGO_ALIGN_LEFT)
        case .center: pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
        case .end: pango_layout_set_alignment(layout, PANGO_ALIGN_RIGHT)
        }
        if style.indent != 0 { pango_layout_set_indent(layout, Int32(style.indent * Double(PANGO_SCALE))) }

        let attributes = pango_attr_list_new()
        if let language = text.language ?? style.language {
            Self.insert(pango_attr_language_new(pango_language_from_string(language)), into: attributes, 0, text.text.utf8.count)
        }
        if style.letterSpacing != 0 {
            Self.insert(pango_attr_letter_spacing_new(Int32(style.letterSpacing * Double(PANGO_SCALE))), into: attributes, 0, text.text.utf8.count)
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
            }
            Self.insert(attribute, into: attributes, span.start, span.end)
        }
        pango_layout_set_attributes(layout, attributes)
        pango_attr_list_unref(attributes)

        var lines: [Line] = []
        if let iterator = pango_layout_get_iter(layout) {
            repeat {
                var logical = PangoRectangle()
                pango_layout_iter_get_line_extents(iterator, nil, &logical)
                let scale = Double(PANGO_SCALE)
                lines.append(Line(top: Double(logical.y) / scale, baseline: Double(pango_layout_iter_get_baseline(iterator)) / scale,
                                  bottom: Double(logical.y + logical.height) / scale, x: Double(logical.x) / scale))
            } while pango_layout_iter_next_line(iterator) != 0
            pango_layout_iter_free(iterator)
        }
        self.lines = text.text.isEmpty ? [] : lines
        links = text.links
        unknownGlyphs = Int(pango_layout_get_unknown_glyphs_count(layout))
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(layout)) }

    /// The width the text would take on one line, unbroken.
    var naturalWidth: Double {
        var logical = PangoRectangle()
        pango_layout_get_extents(layout, nil, &logical)
        return Double(logical.width) / Double(PANGO_SCALE)
    }

    private static func insert(_ attribute: UnsafeMutablePointer<PangoAttribute>?, into list: OpaquePointer?, _ start: Int, _ end: Int) {
        guard let attribute else { return }
        attribute.pointee.start_index = UInt32(start)
        attribute.pointee.end_index = UInt32(end)
        pango_attr_list_insert(list, attribute)
    }

    /// The boxes the bytes `range` of the text take on `lines`, in layout coordinates.
    fileprivate func rectangles(of range: Range<Int>, lines wanted: Range<Int>) -> [Rect] {
        var result: [Rect] = []
        for index in wanted {
            guard let line = pango_layout_get_line_readonly(layout, Int32(index)) else { continue }
            let start = Int(line.pointee.start_index), end = start + Int(line.pointee.length)
            guard range.lowerBound < end, range.upperBound > start else { continue }
            var ranges: UnsafeMutablePointer<Int32>?
            var count: Int32 = 0
            pango_layout_line_get_x_ranges(line, Int32(max(start, range.lowerBound)), Int32(min(end, range.upperBound)), &ranges, &count)
            guard let ranges else { continue }
            let box = lines[index]
            for pair in 0..<Int(count) {
                let x0 = Double(ranges[2 * pair]) / Double(PANGO_SCALE), x1 = Double(ranges[2 * pair + 1]) / Double(PANGO_SCALE)
                result.append(Rect(x: x0, y: box.top, width: x1 - x0, height: box.bottom - box.top))
            }
            g_free(ranges)
        }
        return result
    }
}

extension PageImage {
    /// A cairo surface of the image: for a JPEG, one of its size that carries the JPEG's bytes
    /// (cairo's PDF surface writes them as they are; the pixels are never decoded or touched,
    /// so their memory is never made resident); for a PNG, its decoded pixels.
    fileprivate func surface() throws -> OpaquePointer {
        switch kind {
        case .jpeg:
            guard let data = FileManager.default.contents(atPath: path),
                  let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)),
                  cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS
            else { throw ExportError(.invalid, path: path, detail: "cannot read the photo") }
            let bytes = UnsafeMutableRawPointer.allocate(byteCount: max(data.count, 1), alignment: 1)
            data.copyBytes(to: bytes.assumingMemoryBound(to: UInt8.self), count: data.count)
            let status = cairo_surface_set_mime_data(surface, CAIRO_MIME_TYPE_JPEG, bytes.assumingMemoryBound(to: UInt8.self),
                                                     UInt(data.count), { $0?.deallocate() }, bytes)
            guard status == CAIRO_STATUS_SUCCESS else {
                bytes.deallocate()
                cairo_surface_destroy(surface)
                throw ExportError(.invalid, path: path, detail: "cannot embed the photo")
            }
            return surface
        case .png:
            guard let surface = cairo_image_surface_create_from_png(path) else { throw ExportError(.invalid, path: path, detail: "cannot decode the PNG") }
            guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, cairo_image_surface_get_width(surface) > 0 else {
                cairo_surface_destroy(surface)
                throw ExportError(.invalid, path: path, detail: "cannot decode the PNG")
            }
            return surface
        }
    }
}
