import Foundation

/// Moves pages of a finished PDF in one incremental update (`PDFUpdate`): a new page tree
/// whose list of pages is in the new order, read through libqpdf (`PDFReader`). Nothing cairo
/// wrote is rewritten; only the objects that change are written again.
///
/// The book uses it for its contents: they are set after the body, when every page number is
/// known, and moved to their place at the front, so the book is typeset in one pass. For a
/// right-to-left book the same update rewrites the catalogue with `/ViewerPreferences
/// << /Direction /R2L >>`, so readers and imposition tools put its spreads right to left.
/// For a print file it also rewrites every page's boxes (`boxes`): the media box moved to
/// widen the inside margin, and the trim and bleed boxes a printer places the page by.
enum PageOrder {
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { "cannot reorder the PDF's pages: " + reason }
    }

    /// The page boxes `boxes` replaces.
    private static let boxKeys: Set<String> = ["MediaBox", "CropBox", "BleedBox", "TrimBox", "ArtBox"]

    /// Moves the last `count` pages of the PDF at `path` to just after page `after`; with
    /// `boxes`, gives the page at each position (1 = the first, in the new order) the boxes
    /// it returns in place of its own.
    /// With `ink` (a print file), each page's content stream goes in the same update with its
    /// neutral colours written as grey and the others as `ink` has them (`NeutralInk`), and
    /// with `boxes`, each page loses its transparency group (PDF/X-3 has none).
    static func moveLast(_ count: Int, toAfter after: Int, in path: String, rightToLeft: Bool = false,
                         boxes: ((_ position: Int) -> String)? = nil, ink: PrintSettings.Color? = nil) throws {
        guard count > 0 || rightToLeft || boxes != nil || ink != nil else { return }
        do {
            let pdf = try PDFReader(path: path)
            var update = PDFUpdate()
            let pages = try reordered(pdf, moving: count, toAfter: after, update: &update)
            if rightToLeft { try readRightToLeft(pdf, update: &update) }
            if let boxes {
                for (index, page) in pages.enumerated() {
                    guard let number = pdf.number(of: page) else { throw Failure(reason: "a page that is not an object of its own") }
                    let kept = pdf.keys(of: page).filter { !boxKeys.contains($0) && $0 != "Group" }
                    update.replace(number, with: pdf.rewritten(page, keeping: kept, adding: boxes(index + 1)))
                }
            }
            if let ink {
                for page in pages {
                    guard let contents = pdf.value("Contents", in: page), pdf.isStream(contents), let number = pdf.number(of: contents) else {
                        throw Failure(reason: "a page without one content stream")
                    }
                    // Made as it is written: a page's stream is read, inked and packed then, one at a time.
                    update.replace(number) {
                        guard let grey = NeutralInk.gray(try pdf.streamData(contents, decoded: true), others: ink) else {
                            return (pdf.text(contents, resolved: true), try pdf.streamData(contents, decoded: false))
                        }
                        let packed = try NeutralInk.deflate(grey)
                        return ("<< /Length \(packed.count) /Filter /FlateDecode >>", packed)
                    }
                }
            }
            try update.write(to: path, reading: pdf)
        } catch let failure as PDFReader.Failure {
            throw Failure(reason: failure.reason)
        }
    }

    /// Where page `drawn` (0 = the first) of a `pages`-page file stands once `moveLast` has
    /// moved its last `count` pages to just after page `after`.
    static func position(ofDrawn drawn: Int, movingLast count: Int, toAfter after: Int, of pages: Int) -> Int {
        let firstMoved = pages - count
        return drawn >= firstMoved ? after + drawn - firstMoved : drawn >= after ? drawn + count : drawn
    }

    /// The pages in their new order; the page tree rewritten to list them so, in `update`.
    private static func reordered(_ pdf: PDFReader, moving count: Int, toAfter after: Int, update: inout PDFUpdate) throws -> [PDFReader.Object] {
        // Listed, not read: a 52,000-page book's every page read through qpdf took 230 MB.
        var pages = try pdf.pagesListed()
        guard count > 0 else { return pages }
        guard let tree = pdf.value("Pages", in: pdf.root), let treeNumber = pdf.number(of: tree) else { throw Failure(reason: "no page tree") }
        // One level of pages, as cairo writes it: as many kids as pages, and the pages that
        // move (a few) and their neighbours children of the tree's root.
        let read = pages.suffix(count) + pages.prefix(after).suffix(1) + pages.dropFirst(after).prefix(1)
        guard count + after <= pages.count, pdf.value("Kids", in: tree).map(pdf.count) == pages.count,
              read.allSatisfy({ page in pdf.value("Parent", in: page).flatMap(pdf.number) == treeNumber }) else {
            throw Failure(reason: "a nested or odd page tree")
        }
        let moved = Array(pages.suffix(count))
        pages.removeLast(count)
        pages.insert(contentsOf: moved, at: after)
        let kept = pdf.keys(of: tree).filter { $0 != "Kids" && $0 != "Count" }
        let kids = "/Kids [ " + pages.map { pdf.text($0) }.joined(separator: " ") + " ]\n   /Count \(pages.count)"
        update.replace(treeNumber, with: pdf.rewritten(tree, keeping: kept, adding: kids))
        return pages
    }

    /// The catalogue, rewritten to ask readers for right-to-left spreads (unless it already says how).
    private static func readRightToLeft(_ pdf: PDFReader, update: inout PDFUpdate) throws {
        let catalog = pdf.root
        guard pdf.value("ViewerPreferences", in: catalog) == nil else { return }
        guard let number = pdf.number(of: catalog) else { throw Failure(reason: "an unexpected catalogue") }
        update.replace(number, with: pdf.rewritten(catalog, keeping: pdf.keys(of: catalog), adding: "/ViewerPreferences << /Direction /R2L >>"))
    }


    /// The page count of a print file and its first page's trim size in points, for the
    /// cover that goes around it.
    static func printSize(of path: String) throws -> (pages: Int, width: Double, height: Double) {
        do {
            let pdf = try PDFReader(path: path)
            let pages = try pdf.pages()
            guard let first = pages.first else { throw Failure(reason: "no pages") }
            guard let box = pdf.value("TrimBox", in: first) else {
                throw Failure(reason: "its first page has no trim box: give the file `quire export pdf --print` made")
            }
            guard let numbers = pdf.numbers(box), numbers.count == 4 else { throw Failure(reason: "an unreadable trim box") }
            return (pages.count, numbers[2] - numbers[0], numbers[3] - numbers[1])
        } catch let failure as PDFReader.Failure {
            throw Failure(reason: failure.reason)
        }
    }
}
