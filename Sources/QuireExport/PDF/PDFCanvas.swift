import CPango
import QuireStore
import Foundation

/// The only file that draws with cairo: a PDF surface written page by page, text laid out
/// by Pango (`TextLayout`: HarfBuzz shaping, fribidi, UAX #14 line breaking, fontconfig
/// fallback) shown as its glyph runs, images, links, named positions and the outline. Units
/// are PDF points, origin top left. Used by one thread, the one that makes the pages.
final class PDFCanvas {
    private let surface: OpaquePointer
    private let cr: OpaquePointer
    /// The file cairo writes through, which keeps the reason (errno) a write failed.
    private let sink: FileSink
    /// PNG photos drawn as stand-ins, to be put in by `PNGPassThrough` once the file is done.
    private(set) var passedThrough: [PNGStream] = []
    private var passThroughIndex: [String: Int?] = [:]
    /// The pages (0 = the first drawn) a stand-in was drawn on, where `PNGPassThrough` looks.
    private(set) var passThroughPages = Set<Int>()
    /// Pages finished so far.
    private(set) var pagesDrawn = 0
    /// Links to entries, written into the file once it is finished.
    let laterLinks = LaterLinks()
    /// What each stand-in's comment starts with; one per book, so no two books' collide.
    var passThroughMarker = "QuirePNG:"
    let width: Double
    let height: Double
    /// Links, named places and bookmarks are written (a reading book); a print file has none.
    let interactive: Bool
    /// For a print file, the colour it prints in: its photos are made for the press first
    /// (`PrintPhoto`); nil for a reading book.
    var printColor: PrintSettings.Color?

    /// Opens a PDF file at `path` whose pages are `width` × `height` points, trimmed: with
    /// `bleed`, each page is that much larger on every side and drawing starts inside it.
    init(path: String, width: Double, height: Double, bleed: Double = 0, interactive: Bool = true) throws {
        // A page a whole number of points on both sides (6×9 in, letter) makes cairo 1.16 leave
        // out every structure element while its parent tree still names them (qpdf: "file is
        // damaged"); 1e-7 pt more, which cairo rounds away when it writes the media box, does not.
        let sink = try FileSink(path: path)
        let closure = Unmanaged.passUnretained(sink).toOpaque()
        guard let surface = cairo_pdf_surface_create_for_stream(FileSink.write, closure, width + 2 * bleed + 1e-7, height + 2 * bleed + 1e-7) else {
            throw ExportError(.io, path: path, detail: "cannot create the PDF")
        }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(surface) else {
            let reason = String(cString: cairo_status_to_string(cairo_surface_status(surface)))
            cairo_surface_destroy(surface)
            throw ExportError(.io, path: path, detail: reason)
        }
        self.sink = sink
        self.surface = surface
        self.cr = cr
        self.width = width
        self.height = height
        self.interactive = interactive
        // The page's state, this offset included, carries over from page to page.
        cairo_translate(cr, bleed, bleed)
        cairo_pdf_surface_restrict_to_version(surface, CAIRO_PDF_VERSION_1_5)
        // Links are structure elements in cairo 1.16; without a root element around them it
        // writes a parent tree pointing at objects it never wrote (qpdf: "file is damaged").
        cairo_tag_begin(cr, "Document", "")
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
        _ = sink.close()
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

    /// The context the book's text is laid out in, on two threads: cairo plays a page's
    /// glyphs into the file when the page ends (its PDF surface records them until then),
    /// under the lock Pango is called with (`FontContext`).
    var fonts: FontContext?

    /// Ends the page being drawn; the next drawing starts a new one.
    func endPage() {
        if let fonts { fonts.withLock { cairo_show_page(cr) } } else { cairo_show_page(cr) }
        pagesDrawn += 1
    }

    /// Writes what is left (fonts, subset at this point) and closes the file.
    func finish() throws {
        // A context in error has drawn nothing since: the book is refused rather than left
        // short of pages (after the disk's own words, when writing is what failed).
        let drawing = cairo_status(cr)
        cairo_tag_end(cr, "Document")
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        let closed = sink.close()
        if let failure = sink.failure ?? (closed == 0 ? nil : errno) {
            // The disk's own words for it (a full disk: "no space left on device"), with the file.
            throw ExportError(.io, path: sink.path, detail: "writing the PDF failed: " + FileIO.errnoText(failure))
        }
        guard drawing == CAIRO_STATUS_SUCCESS else {
            throw ExportError(.io, path: sink.path, detail: "drawing the book failed: " + String(cString: cairo_status_to_string(drawing)))
        }
        guard status == CAIRO_STATUS_SUCCESS else {
            throw ExportError(.io, path: sink.path, detail: "writing the PDF failed: " + String(cString: cairo_status_to_string(status)))
        }
    }

    // MARK: Drawing

    /// Draws the lines `lines` of `layout` with the top of the first at `y`, in `gray` (where
    /// the text sets no colour of its own), and tags its links.
    func draw(_ layout: TextLayout, lines: Range<Int>, x: Double, y: Double, gray: Double = 0) {
        cairo_set_source_rgb(cr, gray, gray, gray)
        let top = layout.lines[lines.lowerBound].top
        layout.utf8.withUnsafeBufferPointer { text in
            for index in lines {
                let line = layout.lines[index]
                // Where Pango's renderer starts a line: cairo's current point, held in 24.8 fixed point.
                let (lineX, baseline) = (Self.fixed(x + line.x), Self.fixed(y + line.baseline - top))
                for run in line.runs { show(run, text: text, x: lineX, baseline: baseline) }
            }
        }
        for index in lines {
            for (link, box) in layout.lines[index].linkBoxes {
                tagLink(target: layout.links[link].target, x: x + box.x, y: y + box.y - top, width: box.width, height: box.height)
            }
        }
    }

    private static func fixed(_ value: Double) -> Double { (value * 256).rounded(.toNearestOrEven) / 256 }

    /// One run of glyphs from the line's start at `x` on `baseline`, the arithmetic Pango's cairo
    /// renderer does, so the same layout gives the same file.
    private func show(_ run: TextLayout.Run, text: UnsafeBufferPointer<CChar>, x: Double, baseline: Double) {
        cairo_save(cr)
        defer { cairo_restore(cr) }
        let (baseX, baseY) = (x + run.start, baseline + run.shift)
        if let (box, color) = run.ground {
            cairo_save(cr)
            cairo_set_source_rgb(cr, color.red, color.green, color.blue)
            cairo_rectangle(cr, baseX + box.x, baseY + box.y, box.width, box.height)
            cairo_fill(cr)
            cairo_restore(cr)
        }
        if let color = run.color { cairo_set_source_rgba(cr, color.red, color.green, color.blue, 1) }
        if let font = run.font, !run.glyphs.isEmpty, let base = text.baseAddress, run.textRange.upperBound < text.count {
            cairo_set_scaled_font(cr, font)
            var glyphs = run.glyphs
            for index in glyphs.indices {
                glyphs[index].x = baseX + glyphs[index].x
                glyphs[index].y = glyphs[index].y == 0 ? baseY : baseY + glyphs[index].y
            }
            let flags = run.backward ? CAIRO_TEXT_CLUSTER_FLAG_BACKWARD : cairo_text_cluster_flags_t(0)
            func show(_ bytes: UnsafeBufferPointer<CChar>) {
                // Clusters cairo would refuse (it then stops drawing for good, and every page
                // after is left out of the file) become one cluster: the run's text still
                // copies and is found, only not glyph by glyph.
                var clusters = run.clusters
                if !TextLayout.clustersFit(clusters, bytes: bytes, glyphs: glyphs.count) {
                    clusters = [cairo_text_cluster_t(num_bytes: Int32(bytes.count), num_glyphs: Int32(glyphs.count))]
                }
                cairo_show_text_glyphs(cr, bytes.baseAddress, Int32(bytes.count), glyphs, Int32(glyphs.count), clusters, Int32(clusters.count), flags)
            }
            if let shown = run.shownText {
                shown.withUnsafeBufferPointer(show)
            } else {
                show(UnsafeBufferPointer(start: base + run.textRange.lowerBound, count: run.textRange.count))
            }
        }
        for box in run.missing {
            cairo_set_line_width(cr, 0.5)
            cairo_rectangle(cr, baseX + box.x, baseY + box.y, box.width, box.height)
            cairo_stroke(cr)
        }
        if let strike = run.strike {
            cairo_rectangle(cr, baseX + strike.x, baseY + strike.y, strike.width, strike.height)
            cairo_fill(cr)
        }
    }

    func fill(x: Double, y: Double, width: Double, height: Double, gray: Double) {
        fill(x: x, y: y, width: width, height: height, red: gray, green: gray, blue: gray)
    }

    /// A rectangle in a colour (components 0–1), `alpha` of it over what is below.
    func fill(x: Double, y: Double, width: Double, height: Double, red: Double, green: Double, blue: Double, alpha: Double = 1) {
        cairo_set_source_rgba(cr, red, green, blue, alpha)
        cairo_rectangle(cr, x, y, width, height)
        cairo_fill(cr)
    }

    /// Runs `body` with drawing kept inside the box.
    func clipped(x: Double, y: Double, width: Double, height: Double, _ body: () throws -> Void) rethrows {
        cairo_save(cr)
        defer { cairo_restore(cr) }
        cairo_rectangle(cr, x, y, width, height)
        cairo_clip(cr)
        try body()
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

    /// Runs `body` with the drawing turned a quarter clockwise about (`x`, `y`): what it sets
    /// along its x axis reads from top to bottom (a spine's title).
    func turned(quarterAt x: Double, y: Double, _ body: () -> Void) {
        cairo_save(cr)
        cairo_translate(cr, x, y)
        cairo_rotate(cr, Double.pi / 2)
        body()
        cairo_restore(cr)
    }

    /// Draws `image` scaled to cover the box, centred and cropped to it, never letterboxed.
    func draw(_ image: PageImage, covering x: Double, y: Double, width: Double, height: Double) throws {
        let scale = max(width / Double(image.shownWidth), height / Double(image.shownHeight))
        let w = Double(image.shownWidth) * scale, h = Double(image.shownHeight) * scale
        try clipped(x: x, y: y, width: width, height: height) {
            try draw(image, x: x + (width - w) / 2, y: y + (height - h) / 2, width: w, height: h)
        }
    }

    /// Draws `image` scaled into the box; a JPEG goes into the PDF as its own bytes unless a
    /// print file needs it changed.
    func draw(_ image: PageImage, x: Double, y: Double, width: Double, height: Double) throws {
        let source = try surface(of: image, width: width)
        defer { cairo_surface_destroy(source) }
        image.paint(source, on: cr, x: x, y: y, width: width, height: height)
    }

    /// Draws `surface` (an image surface) scaled into the box.
    func draw(surface: OpaquePointer, x: Double, y: Double, width: Double, height: Double) {
        cairo_save(cr)
        cairo_translate(cr, x, y)
        cairo_scale(cr, width / Double(cairo_image_surface_get_width(surface)), height / Double(cairo_image_surface_get_height(surface)))
        cairo_set_source_surface(cr, surface, 0, 0)
        cairo_paint(cr)
        cairo_restore(cr)
    }

    /// The surface `image` is drawn from when shown `width` points wide.
    private func surface(of image: PageImage, width: Double) throws -> OpaquePointer {
        guard let color = printColor else { return try passThroughSurface(image) ?? image.surface() }
        if color == .cmyk, PrintPhoto.target(image, shownWidth: width) == nil, let through = try passThroughSurface(image) { return through }
        return try PrintPhoto.surface(for: image, shownWidth: width, color: color) ?? image.surface()
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
        passThroughPages.insert(pagesDrawn)
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
        /// Where the entry of this number in the book's `EntryIndex` starts (`place`), before or
        /// after the link: written once the file is finished (`LaterLinks`).
        case entry(Int)
    }

    /// The entry of number `entry` starts at height `y` of this page, for links to it.
    func place(entry: Int, y: Double) {
        guard interactive else { return }
        laterLinks.place(entry, page: pagesDrawn, y: y)
    }

    /// Names the place at height `y` of this page, for links and bookmarks. (Links to a page
    /// by number that is not written yet make cairo 1.16 write a page tree with missing
    /// pages; named places are resolved when the file is finished.)
    func destination(_ name: String, y: Double) {
        guard interactive else { return }
        cairo_tag_begin(cr, "cairo.dest", "name='" + Self.quoted(name) + "' x=0 y=" + Self.number(y))
        cairo_tag_end(cr, "cairo.dest")
    }

    func tagLink(target: Target, x: Double, y: Double, width: Double, height: Double) {
        guard interactive else { return }
        let rect = "rect=[\(Self.number(x)) \(Self.number(y)) \(Self.number(width)) \(Self.number(height))]"
        let attributes: String
        switch target {
        case .uri(let uri):
            // A longer one is no address to follow (a pasted blob, data the text holds), and
            // each line it spans would write it again: its words stay, unlinked.
            guard uri.utf8.count <= Self.longestURI else { return }
            attributes = rect + " uri='" + Self.quoted(uri) + "'"
        case .destination(let name): attributes = rect + " dest='" + Self.quoted(name) + "'"
        case .entry(let entry):
            laterLinks.link(to: entry, page: pagesDrawn, x: x, y: y, width: width, height: height)
            return
        }
        cairo_tag_begin(cr, CAIRO_TAG_LINK, attributes)
        cairo_tag_end(cr, CAIRO_TAG_LINK)
    }

    /// Adds a bookmark under `parent` (0 for the top) leading to the named place;
    /// returns its id for children.
    @discardableResult
    func addOutline(parent: Int32, title: String, destination: String, open: Bool = false) -> Int32 {
        guard interactive else { return 0 }
        let flags = open ? CAIRO_PDF_OUTLINE_FLAG_OPEN : cairo_pdf_outline_flags_t(0)
        return cairo_pdf_surface_add_outline(surface, parent, title, "dest='" + Self.quoted(destination) + "'", flags)
    }

    /// The longest address a link is made for: what RFC 9110 (4.1) asks every client to take.
    static let longestURI = 8_000

    static func number(_ value: Double) -> String { String(format: "%.2f", value) }

    /// A string inside cairo's single-quoted attribute value: `\` and `'` escaped.
    static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }
}

extension PageImage {
    /// Paints `source`, this photo's stored pixels (perhaps fewer of them, for print), into the
    /// box on `cr` as it is shown: turned upright as the EXIF orientation says, and scaled.
    func paint(_ source: OpaquePointer, on cr: OpaquePointer, x: Double, y: Double, width: Double, height: Double) {
        cairo_save(cr)
        defer { cairo_restore(cr) }
        cairo_translate(cr, x, y)
        let (w, h) = (Double(cairo_image_surface_get_width(source)), Double(cairo_image_surface_get_height(source)))
        cairo_scale(cr, width / (isTurned ? h : w), height / (isTurned ? w : h))
        var turn = self.turn(width: w, height: h)
        cairo_transform(cr, &turn)
        cairo_set_source_surface(cr, source, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
        cairo_paint(cr)
    }

    /// What turns stored pixels `width` × `height` upright, as the EXIF orientation says.
    private func turn(width w: Double, height h: Double) -> cairo_matrix_t {
        var turn = cairo_matrix_t()
        switch orientation {
        case 2: cairo_matrix_init(&turn, -1, 0, 0, 1, w, 0)
        case 3: cairo_matrix_init(&turn, -1, 0, 0, -1, w, h)
        case 4: cairo_matrix_init(&turn, 1, 0, 0, -1, 0, h)
        case 5: cairo_matrix_init(&turn, 0, 1, 1, 0, 0, 0)
        case 6: cairo_matrix_init(&turn, 0, 1, -1, 0, h, 0)
        case 7: cairo_matrix_init(&turn, 0, -1, -1, 0, h, w)
        case 8: cairo_matrix_init(&turn, 0, -1, 1, 0, 0, w)
        default: cairo_matrix_init_identity(&turn)
        }
        return turn
    }

    /// A cairo surface of the image: for a JPEG, one of its size that carries the JPEG's bytes
    /// (cairo's PDF surface writes them as they are; the pixels are never decoded or touched,
    /// so their memory is never made resident); for a PNG, its decoded pixels.
    func surface() throws -> OpaquePointer {
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

/// A file cairo writes a PDF into, one buffer at a time; the first failed write's errno is
/// kept (cairo itself says only "error while writing to output stream").
final class FileSink {
    let path: String
    private var fd: Int32
    private(set) var failure: Int32?

    init(path: String) throws {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ExportError(.io, path: path, detail: FileIO.errnoText()) }
    }

    /// Closes the file once; 0, or -1 with errno set.
    func close() -> Int32 {
        guard fd >= 0 else { return 0 }
        let result = Glibc.close(fd)
        fd = -1
        return result
    }

    static let write: cairo_write_func_t = { closure, data, length in
        guard let closure else { return CAIRO_STATUS_WRITE_ERROR }
        let sink = Unmanaged<FileSink>.fromOpaque(closure).takeUnretainedValue()
        guard sink.failure == nil, sink.fd >= 0 else { return CAIRO_STATUS_WRITE_ERROR }
        var offset = 0
        while offset < Int(length) {
            let written = Glibc.write(sink.fd, data.map { $0 + offset }, Int(length) - offset)
            if written < 0 {
                if errno == EINTR { continue }
                sink.failure = errno
                return CAIRO_STATUS_WRITE_ERROR
            }
            offset += written
        }
        return CAIRO_STATUS_SUCCESS
    }
}
