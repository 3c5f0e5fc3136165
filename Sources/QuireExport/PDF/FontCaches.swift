import CPango

/// cairo keeps the last 256 scaled fonts nobody holds any more, in case they are asked for
/// again, and each keeps its font file open: FreeType maps the file, and the pages cairo read
/// to subset it stay in the process's memory (24 MiB of a CJK face in a 100,000-entry book).
/// Once a book's pages are written nothing asks for its fonts again, and qpdf then reads the
/// whole file beside them.
enum FontCaches {
    /// Pushes the book's fonts out of cairo's cache of unused scaled fonts by passing as many
    /// fonts of an empty user font through it, so those holding font files are let go. Only
    /// unused fonts leave the cache: what anyone still holds (an app embedding QuireKit that
    /// draws with cairo, another export running) is untouched, unlike cairo's own reset.
    static func releaseUnused() {
        guard let face = cairo_user_font_face_create() else { return }
        defer { cairo_font_face_destroy(face) }
        guard let options = cairo_font_options_create() else { return }
        defer { cairo_font_options_destroy(options) }
        var identity = cairo_matrix_t()
        cairo_matrix_init_identity(&identity)
        for size in 0..<cacheSize {
            // A different size each: a font equal to one in the cache would take its place.
            var matrix = cairo_matrix_t()
            cairo_matrix_init_scale(&matrix, 1 + Double(size) / 64, 1 + Double(size) / 64)
            if let font = cairo_scaled_font_create(face, &matrix, &identity, options) { cairo_scaled_font_destroy(font) }
        }
    }

    /// Twice `CAIRO_SCALED_FONT_MAX_HOLDOVERS` (256 in cairo 1.16, cairo-scaled-font.c).
    static let cacheSize = 512
}
