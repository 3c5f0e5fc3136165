import Foundation
import Testing
@testable import QuireExport

/// The PNG photos go into a finished PDF in place of cairo's stand-ins; a photo whose stand-in
/// is not found (a cairo that writes images differently) fails the export loudly, never a
/// book with a grey box where a photo should be. The file is read through libqpdf and changed
/// by an incremental update, which a damaged file never gets.
@Suite struct PNGPassThroughTests {
    /// A photo drawn twice, once clipped, on two pages: each stand-in becomes the PNG's own
    /// compressed pixels, and the pages move, in updates qpdf checks clean.
    @Test(.enabled(if: ExternalTool.available("qpdf")))
    func eachStandInBecomesThePhotoAndThePagesMove() throws {
        let dir = TempDir()
        let file = ImportFixtures.media + "/photo.png"
        let png = try #require(PNGStream(path: file))
        let image = try #require(PageImage(path: file))
        let path = dir.path + "/book.pdf"
        let canvas = try PDFCanvas(path: path, width: 300, height: 400)
        canvas.passThroughMarker = "QuirePNG-test:"
        try canvas.draw(image, x: 10, y: 10, width: 100, height: 80)
        canvas.endPage()
        try canvas.draw(image, covering: 10, y: 10, width: 50, height: 50)
        canvas.endPage()
        try canvas.finish()
        try #require(canvas.passedThrough.count == 1)
        try PageOrder.moveLast(1, toAfter: 0, in: path)
        try PNGPassThrough.embed(canvas.passedThrough, marker: canvas.passThroughMarker, in: path)

        #expect(try ExternalTool.run("qpdf", ["--check", path]).status == 0)
        let pdf = try PDFReader(path: path)
        let pages = try pdf.pages()
        #expect(pages.count == 2)
        var images: [String] = []
        for page in pages {
            let objects = pdf.value("Resources", in: page).flatMap { pdf.value("XObject", in: $0) }
            for key in objects.map({ pdf.keys(of: $0) }) ?? [] {
                guard let object = objects.flatMap({ pdf.value(key, in: $0) }), pdf.value("Subtype", in: object).flatMap(pdf.name) == "/Image" else { continue }
                images.append(pdf.value("Filter", in: object).flatMap(pdf.name) ?? "none")
                #expect(pdf.value("Width", in: object).flatMap(pdf.integer) == png.width)
                #expect(try pdf.streamData(object, decoded: false).count == png.length, "the PNG's IDAT bytes, as they are")
            }
        }
        #expect(!images.isEmpty && images.allSatisfy { $0 == "/FlateDecode" }, "\(images)")
        // The clipped page, drawn last, now comes first.
        let first = try #require(pages.first)
        let content = String(decoding: try pdf.streamData(try #require(pdf.value("Contents", in: first)), decoded: true), as: UTF8.self)
        #expect(content.contains(" re") && content.contains("W"), "the first page is the clipped one")
    }

    /// A file cut short is refused, not repaired, and nothing is appended to it.
    @Test func aDamagedFileIsRefusedAndLeftAsItWas() throws {
        let dir = TempDir()
        let path = dir.path + "/book.pdf"
        let canvas = try PDFCanvas(path: path, width: 300, height: 400)
        canvas.endPage()
        canvas.endPage()
        try canvas.finish()
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try whole.prefix(whole.count - 200).write(to: URL(fileURLWithPath: path))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: PageOrder.Failure.self) { try PageOrder.moveLast(1, toAfter: 0, in: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

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
