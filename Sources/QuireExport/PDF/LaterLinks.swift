import Foundation

/// Links to entries (a calendar's days, a link in an entry's text), written into the finished
/// file rather than through cairo. cairo 1.16 makes every link a structure element with its
/// annotation, and every link target a named destination, and holds them all until the file
/// is finished: in a book of 100,000 entries, one calendar cell and one destination for
/// each, 25 MiB of the export's peak. Here a link is 24 bytes and an entry's place 8 until
/// the pages are written; then each page that has links gains its `/Annots` in one
/// incremental update (`PDFUpdate`), each link an annotation whose `/Dest` names the page
/// and height where its entry's heading starts.
final class LaterLinks {
    private struct Link {
        let page: Int32
        let x: Float, y: Float, width: Float, height: Float
        let entry: Int32
    }

    private var links: [Link] = []
    /// Where each entry's heading starts, by its number in the book's `EntryIndex`: the page
    /// as drawn (-1 while not drawn yet) and the height from the page's top.
    private var pages: [Int32] = []
    private var heights: [Float] = []

    /// Entry `entry` starts on drawn page `page`, `y` points from its top (the first place wins).
    func place(_ entry: Int, page: Int, y: Double) {
        guard entry >= 0 else { return }
        if entry >= pages.count {
            pages += [Int32](repeating: -1, count: entry + 1 - pages.count)
            heights += [Float](repeating: 0, count: entry + 1 - heights.count)
        }
        guard pages[entry] < 0 else { return }
        (pages[entry], heights[entry]) = (Int32(page), Float(y))
    }

    /// A link on drawn page `page`, in the box at `x`, `y` from the page's top left, to `entry`.
    func link(to entry: Int, page: Int, x: Double, y: Double, width: Double, height: Double) {
        links.append(Link(page: Int32(page), x: Float(x), y: Float(y), width: Float(width), height: Float(height), entry: Int32(entry)))
    }

    /// Writes the links into the finished file at `path`, whose pages are `pageHeight` points
    /// high; `position` gives a drawn page's place in the file (the contents were moved). A
    /// link to an entry that was never drawn is left out.
    func write(to path: String, pageHeight: Double, position: (Int) -> Int) throws {
        guard !links.isEmpty else { return }
        var onPage: [Int: [Int]] = [:]
        for (index, link) in links.enumerated() where Int(link.entry) < pages.count && pages[Int(link.entry)] >= 0 {
            onPage[position(Int(link.page)), default: []].append(index)
        }
        guard !onPage.isEmpty else { return }
        let pdf = try PDFReader(path: path)
        let listed = try pdf.pagesListed()
        let numbers = try listed.map { page -> Int in
            guard let number = pdf.number(of: page) else { throw PDFReader.Failure(reason: "a page that is not an object of its own") }
            return number
        }
        var update = PDFUpdate()
        for (page, indexes) in onPage.sorted(by: { $0.key < $1.key }) {
            guard numbers.indices.contains(page) else { throw PDFReader.Failure(reason: "a link on page \(page + 1) of \(numbers.count)") }
            // Each link's target page, as an object number; the annotations' text is made as
            // the update is written.
            let targets = try indexes.map { index -> Int in
                let target = position(Int(pages[Int(links[index].entry)]))
                guard numbers.indices.contains(target) else { throw PDFReader.Failure(reason: "a link to page \(target + 1) of \(numbers.count)") }
                return numbers[target]
            }
            let first = try update.add(count: indexes.count, to: pdf) { [links, heights] k in
                let link = links[indexes[k]]
                let rect = [Double(link.x), pageHeight - Double(link.y + link.height), Double(link.x + link.width), pageHeight - Double(link.y)]
                return "<< /Type /Annot /Subtype /Link /Border [ 0 0 0 ] /Rect [ " + rect.map(PDFCanvas.number).joined(separator: " ")
                    + " ] /Dest [ \(targets[k]) 0 R /XYZ 0 " + PDFCanvas.number(pageHeight - Double(heights[Int(link.entry)])) + " null ] >>"
            }
            pdf.scoped {
                let object = listed[page]
                let kept = pdf.value("Annots", in: object).map { pdf.items(of: $0).map { pdf.text($0) } } ?? []
                let added = (first..<(first + indexes.count)).map { "\($0) 0 R" }
                update.replace(numbers[page], with: pdf.rewritten(object, keeping: pdf.keys(of: object).filter { $0 != "Annots" },
                                                                  adding: "/Annots [ " + (kept + added).joined(separator: " ") + " ]"))
            }
        }
        try update.write(to: path, reading: pdf)
    }
}
