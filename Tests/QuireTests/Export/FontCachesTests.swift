import CPango
import Testing
@testable import QuireExport

/// Once a book's pages are written, the fonts nobody holds leave cairo's cache of unused
/// fonts, and with them the font files they keep open (a scaled font holds its face); a font
/// someone still holds stays, usable: an app embedding QuireKit may be drawing with it.
@Suite struct FontCachesTests {
    @Test func fontsNobodyHoldsLeaveTheCacheAndHeldOnesStay() throws {
        let face = try #require(cairo_user_font_face_create())
        defer { cairo_font_face_destroy(face) }
        let options = try #require(cairo_font_options_create())
        defer { cairo_font_options_destroy(options) }
        var identity = cairo_matrix_t(), small = cairo_matrix_t(), large = cairo_matrix_t()
        cairo_matrix_init_identity(&identity)
        cairo_matrix_init_scale(&small, 9.5, 9.5)
        cairo_matrix_init_scale(&large, 21, 21)
        let alone = cairo_font_face_get_reference_count(face)
        let held = try #require(cairo_scaled_font_create(face, &large, &identity, options))
        defer { cairo_scaled_font_destroy(held) }
        let perFont = cairo_font_face_get_reference_count(face) - alone
        #expect(perFont > 0)
        let unused = try #require(cairo_scaled_font_create(face, &small, &identity, options))
        #expect(cairo_font_face_get_reference_count(face) == alone + 2 * perFont)
        cairo_scaled_font_destroy(unused)  // kept by cairo in case it is asked for again

        FontCaches.releaseUnused()

        // The face is held by this test and the held font alone: the unused one is gone.
        #expect(cairo_font_face_get_reference_count(face) == alone + perFont)
        #expect(cairo_scaled_font_get_reference_count(held) == 1)
        #expect(cairo_scaled_font_status(held) == CAIRO_STATUS_SUCCESS)
        var extents = cairo_font_extents_t()
        cairo_scaled_font_extents(held, &extents)
        #expect(cairo_scaled_font_status(held) == CAIRO_STATUS_SUCCESS)
    }
}
