import CPango
import Foundation
import QuireSupport
import QuireStore

/// What `quire export cover` was asked for: the cover of a printed book, one sheet with
/// the back, the spine and the front side by side.
public struct CoverOptions: Sendable {
    /// The paper the interior is printed on; it sets how thick each page is.
    public enum Paper: NamedCases, Sendable {
        case white, cream

        /// The word `--paper` takes.
        package var name: String { self == .white ? "white" : "cream" }
    }

    /// The interior's page count (an even number, as `export pdf --print` makes it).
    public var pages = 0
    public var pageSize = PageSize.sixByNine
    public var bleed = 9.0
    public var paper = Paper.white
    public var color = PrintSettings.Color.cmyk
    /// Embed each font whole (`PrintSettings.fullFonts`).
    public var fullFonts = false
    public var title = "Journal"
    public var author: String?
    /// A JPEG or PNG to cover the front; a field of colour when nil.
    public var image: String?

    public init() {}

    /// The page count and trim size of a print interior made by `export pdf --print`.
    /// - Throws: `.invalid` naming the file when it is not one.
    package static func reading(_ interior: String) throws -> (pages: Int, pageSize: PageSize) {
        do {
            let size = try PageOrder.printSize(of: interior)
            let name = String(format: "%.2fx%.2fin", size.width / 72, size.height / 72)
            guard size.pages >= 2, size.width > 0, size.height > 0 else { throw PageOrder.Failure(reason: "no pages") }
            return (size.pages, PageSize(width: size.width, height: size.height, name: name))
        } catch let failure as PageOrder.Failure {
            throw ExportError(.invalid, path: interior, detail: "not a print interior: " + failure.reason)
        }
    }

    /// The spine's width in points: pages × the paper's thickness. Amazon KDP's published
    /// figures for its paperbacks: white paper 0.002252 in a page, cream 0.0025 in.
    package var spineWidth: Double {
        Double(pages) * (paper == .white ? 0.002252 : 0.0025) * 72
    }

    /// The whole sheet: back and front at the trim size, the spine between, bleed around.
    package var sheetWidth: Double { 2 * pageSize.width + spineWidth + 2 * bleed }
    package var sheetHeight: Double { pageSize.height + 2 * bleed }

    /// Title and author go on the spine only from 0.25 in wide (about 110 pages): a printer
    /// keeps text 0.0625 in clear of each fold, and narrower type is not read.
    package var spineHoldsText: Bool { spineWidth >= 18 }
}

/// Draws the cover sheet with cairo, then makes it PDF/X-3 as the interior is (`PrintFile`).
/// Left to right: the back (a field of the cover's colour and a white box, 2 × 1.2 in, where
/// the printer puts the barcode), the spine (title and author turned to read top to bottom,
/// as English-language books do), the front (the title on the field, or the photo scaled to
/// cover the front with the title on a dark band).
package struct CoverSpread {
    let options: CoverOptions

    package init(options: CoverOptions) { self.options = options }

    package func write(to path: String) throws -> Int64 {
        guard options.pages >= 2 else { throw ExportError(.invalid, detail: "--pages must be the interior's page count, 2 or more") }
        _ = try PrintFile.profiles(options.color)
        let image = try options.image.map { file -> PageImage in
            guard let image = PageImage(path: file) else { throw ExportError(.invalid, path: file, detail: "the cover must be a readable JPEG or PNG image") }
            return image
        }
        let parent = PathText.parent(path)
        let folder = parent.isEmpty ? "." : parent
        try OutputFolder.check(folder)
        let work = try OutputFolder.workFolder(in: folder, prefix: ".quire-pdf-")
        defer { OutputFolder.removeWork(work) }
        let temp = work.path + "/cover.pdf"
        let print = PrintSettings(bleed: options.bleed, color: options.color)
        let trim = PageSize(width: options.sheetWidth - 2 * options.bleed, height: options.pageSize.height, name: "cover")
        do {
            let canvas = try PDFCanvas(path: temp, width: options.sheetWidth, height: options.sheetHeight, interactive: false)
            canvas.printColor = print.color
            canvas.setMetadata(title: options.title, author: options.author, date: LocalDate(utcSeconds: Self.epoch).utcText)
            try draw(on: canvas, image: image)
            canvas.endPage()
            try canvas.finish()
            try PageOrder.moveLast(0, toAfter: 0, in: temp, boxes: { _ in print.boxes(trim: trim, at: 0) }, ink: print.color)
            try PrintFile.finish(temp, color: print.color, wholeFonts: options.fullFonts, title: options.title, epoch: Self.epoch)
            return try OutputFolder.publish(temp, as: path, in: folder)
        } catch {
            throw OutputFolder.naming(path, for: error, temporary: temp)
        }
    }

    /// The cover's date: `SOURCE_DATE_EPOCH`, else 2000-01-01 (a cover holds no entry to date it by).
    static var epoch: Int64 { PDFExporter.sourceDateEpoch ?? 946_684_800 }

    private func draw(on canvas: PDFCanvas, image: PageImage?) throws {
        let fonts = FontContext()
        let (page, spine, b) = (options.pageSize, options.spineWidth, options.bleed)
        let field = BookStyle.coverField
        // The whole sheet in the cover's colour, bleed included (drawing starts at the sheet's corner).
        canvas.fill(x: 0, y: 0, width: options.sheetWidth, height: options.sheetHeight, red: field.red, green: field.green, blue: field.blue)
        let frontX = b + page.width + spine
        let size = PageGeometry(page).bodySize
        if let image {
            // The front and its bleed covered by the photo, cropped, never letterboxed, the
            // title's band darkened into it (one opaque picture: PDF/X-3 has no transparency).
            let picture = try PrintPhoto.covering(image, width: page.width + b, height: options.sheetHeight,
                                                  band: b + page.height * 0.6, page.height * 0.25, shade: 0.5, color: options.color)
            defer { cairo_surface_destroy(picture) }
            canvas.draw(surface: picture, x: frontX, y: 0, width: page.width + b, height: options.sheetHeight)
        }
        // The front's title and author, white, centred in the trim with margins.
        let margin = (page.width * 0.1).rounded()
        let titleStyle = TextStyle(font: BookFonts.serif(nil), size: size * 2.6, leading: 1.1, alignment: .center)
        let title = TextLayout(StyledText(options.title), style: titleStyle, width: page.width - 2 * margin, in: fonts)
        let titleY = b + page.height * (image == nil ? 0.3 : 0.64)
        canvas.draw(title, lines: 0..<title.lines.count, x: frontX + margin, y: titleY, gray: 1)
        if let author = options.author {
            let style = TextStyle(font: BookFonts.serif(nil), size: size * 1.4, alignment: .center)
            let layout = TextLayout(StyledText(author), style: style, width: page.width - 2 * margin, in: fonts)
            canvas.draw(layout, lines: 0..<layout.lines.count, x: frontX + margin, y: image == nil ? b + page.height * 0.78 : titleY + title.height + size, gray: 1)
        }
        // The spine, read top to bottom: turned a quarter clockwise about its top.
        if options.spineHoldsText {
            let words = [options.title, options.author].compactMap { $0 }.joined(separator: "  ·  ")
            let style = TextStyle(font: BookFonts.sans(nil), size: min(size * 1.1, (spine - 9) * 0.6), alignment: .center)
            let layout = TextLayout(StyledText(words), style: style, width: page.height - 2 * margin, in: fonts)
            if layout.lines.count == 1 {
                let centreX = b + page.width + spine / 2
                canvas.turned(quarterAt: centreX, y: b + margin) {
                    canvas.draw(layout, lines: 0..<1, x: 0, y: -layout.height / 2, gray: 1)
                }
            }
        }
        // The back: the barcode's white box, 2 × 1.2 in, 0.25 in in from the spine's side and the foot.
        canvas.fill(x: b + page.width - 18 - 144, y: b + page.height - 18 - 86.4, width: 144, height: 86.4, gray: 1)
    }
}
