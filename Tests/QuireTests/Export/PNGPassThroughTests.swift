import Foundation
import Testing
@testable import QuireExport

/// The PNG photos go into a finished PDF in place of cairo's stand-ins; a photo whose stand-in
/// is not found (a cairo that writes images differently) fails the export loudly, never a
/// book with a grey box where a photo should be.
@Suite struct PNGPassThroughTests {
    @Test func aPhotoWhoseStandInIsMissingFailsTheBook() throws {
        let dir = TempDir()
        let png = try #require(PNGStream(path: ImportFixtures.media + "/photo.png"), "the fixture is a PNG that passes through")
        // A PDF with no stand-in in it: one page, drawn without the photo.
        let path = dir.path + "/book.pdf"
        let canvas = try PDFCanvas(path: path, width: 300, height: 400)
        canvas.endPage()
        try canvas.finish()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            try PNGPassThrough.embed([png], marker: "QuirePNG-test:", in: path)
        } throws: { error in
            "\(error)".contains("PNG photo 1 of 1 was not where cairo should have put it")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "nothing was appended to the file")
    }
}
