import CLinux
import Foundation
import QuireStore

/// What `quire export pdf` was asked for.
public struct PDFOptions {
    public var filter = EntryFilter()
    /// Book title; "Journal" (or the one journal filtered on) when nil.
    public var title: String?
    public var author: String?
    /// A JPEG or PNG for the cover; a typeset cover when nil.
    public var cover: String?
    public var pageSize = PageSize.a5
    /// Photos on the pages; without them the book is text alone.
    public var withPhotos = true
    /// The book's language as a BCP 47 tag; when nil, its entries' or the environment's (`BookLanguage`).
    public var language: String?
    /// The interior for a printer (PDF/X-3, `PrintFile`): no cover, links or bookmarks,
    /// trim and bleed boxes, an inside margin for the page count, an even page count. Nil: a
    /// book to read on a screen.
    public var print: PrintSettings?

    public init() {}
}

/// Writes the journal as a book to print, typeset by Quire itself with Pango on cairo's PDF
/// surface: a cover, a title page, the contents by year and month with page numbers, and for
/// each year a calendar page, then each month from a right-hand page with its name as the
/// running head. Fonts are embedded and subset with their Unicode maps (text can be searched
/// and copied), the outline runs year → month → entry, and contents and calendar link to
/// their pages.
///
/// The book is set in one pass (see `BookSetter`); pages are written as they are made, so
/// memory does not grow with the journal. The same entries and options give the
/// same bytes (the dates inside are the newest entry's, or `SOURCE_DATE_EPOCH`); the file is
/// written under a temporary name beside `path` and renamed into place.
package struct PDFExporter {
    let store: Store
    let options: PDFOptions

    package init(store: Store, options: PDFOptions) {
        self.store = store
        self.options = options
    }

    /// Where each part of the book fell, learnt by the measuring pass.
    struct Places {
        var months: [String: Int] = [:]
        var years: [Int: Int] = [:]
        var pages = 0
    }

    /// What the book is made from, read once before it is set.
    struct Plan {
        let contents: BookContents
        let months: [BookContents.Month]
        let days: WrittenDays
        let entries: EntryIndex
        let title: String
        let author: String?
        let language: BookLanguage
        let cover: PageImage?
    }

    package func write(to path: String, progress: ProgressHandler? = nil) throws -> BookSummary {
        var months: [BookContents.Month] = []
        var days = WrittenDays()
        var ids: [CompactID] = []
        let contents = try BookContents(store: store, filter: options.filter) { entry, key in
            if months.last?.key != key { months.append(BookContents.Month(LocalDate(entry.created))) }
            days.add(entry)
            ids.append(CompactID(entry.id))
        }
        guard contents.entryCount > 0, let modified = contents.newestModified else {
            throw ExportError(.invalid, detail: "no entries to export" + (options.filter.isEmpty ? "" : " match the filters") + "; nothing was written")
        }
        if let print = options.print { _ = try PrintFile.profiles(print.color) }
        let language = try contents.language(requested: options.language)
        let cover = try options.cover.map { file -> PageImage in
            guard FileManager.default.isReadableFile(atPath: file) else { throw ExportError(.invalid, path: file, detail: "cannot read the cover image") }
            guard let image = PageImage(path: file) else {
                throw ExportError(.invalid, path: file, detail: PageImage.header(file) == nil ? "the cover must be a JPEG or PNG image"
                                  : "the cover claims more pixels than a book shows (at most \(PageImage.maxPixels / 1_000_000) megapixels, "
                                  + "\(PageImage.maxDecodedPixels / 1_000_000) for a PNG with a palette or transparency)")
            }
            return image
        }
        let title = BookTitle.title(options.title, contents: contents, words: language.words)
        let author = BookTitle.author(options.author)
        let plan = Plan(contents: contents, months: months, days: days, entries: EntryIndex(ids), title: title, author: author, language: language, cover: cover)
        ids = []  // the index holds its own, sorted

        let parent = PathText.parent(path)
        let folder = parent.isEmpty ? "." : parent
        try OutputFolder.check(folder)
        // The book is written in a private folder beside OUT (0700: the pages are the journal
        // in plaintext, and cairo makes its file as the umask says), removed if stopped.
        let work = try OutputFolder.workFolder(in: folder, prefix: ".quire-pdf-")
        defer { OutputFolder.removeWork(work) }
        let temp = work.path + "/book.pdf"
        let total = Int64(contents.entryCount)
        do {
            // Made 0600 before cairo opens it (it writes into a file that is there).
            let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw ExportError(.io, path: temp, detail: FileIO.errnoText()) }
            close(fd)
            let print = options.print
            var summary: BookSummary
            let move: BookSetter.Move
            let drawn: (pages: Int, passThroughPages: Set<Int>, passedThrough: [PNGStream], marker: String, links: LaterLinks)
            do {
                let canvas = try PDFCanvas(path: temp, width: options.pageSize.width, height: options.pageSize.height,
                                           bleed: print?.bleed ?? 0, interactive: print == nil)
                canvas.passThroughMarker = "QuirePNG-" + String(contents.idDigest.prefix(16)) + ":"
                canvas.printColor = print?.color
                canvas.setMetadata(title: title, author: author, date: Self.date(newest: modified))
                // The setter and its fonts go before the file is finished: cairo then reads each
                // font whole to subset it (a CJK face is 20 MB), and Pango's copy is no longer held.
                OutputFolder.hold(at: temp)
                (summary, move) = try BookSetter(store: store, options: options, plan: consume plan).set(on: canvas) { progress?($0, total) }
                // What the setter's two threads freed goes back too: the CJK face's outline table
                // is read whole on top of it.
                FontCaches.releaseUnused()
                malloc_trim(0)
                try canvas.finish()
                drawn = (canvas.pagesDrawn, canvas.passThroughPages, canvas.passedThrough, canvas.passThroughMarker, canvas.laterLinks)
            }
            // cairo's surface is gone with the canvas: what it held for the pages and the fonts
            // (the font files it kept open too) goes back to the system before qpdf reads the
            // file, or the two would stack up.
            FontCaches.releaseUnused()
            malloc_trim(0)
            let geometry = PageGeometry(options.pageSize, rightToLeft: language.isRightToLeft)
            try PageOrder.moveLast(move.count, toAfter: move.after, in: temp, rightToLeft: language.isRightToLeft,
                                   boxes: print.map { Self.boxes($0, geometry: geometry, pages: summary.pages) }, ink: print?.color)
            malloc_trim(0)
            let position = { PageOrder.position(ofDrawn: $0, movingLast: move.count, toAfter: move.after, of: drawn.pages) }
            try PNGPassThrough.embed(drawn.passedThrough, marker: drawn.marker, pages: Set(drawn.passThroughPages.map(position)), in: temp)
            try drawn.links.write(to: temp, pageHeight: options.pageSize.height, position: position)
            if let print { try PrintFile.finish(temp, color: print.color, wholeFonts: print.fullFonts, title: title, epoch: Self.epoch(newest: modified)) }
            summary.bytes = try OutputFolder.publish(temp, as: path, in: folder)
            progress?(total, total)
            return summary
        } catch {
            unlink(temp)
            throw OutputFolder.naming(path, for: error, temporary: temp)
        }
    }

    /// The book's date: `SOURCE_DATE_EPOCH` when set (reproducible builds' convention), else
    /// the newest entry's modification time, in UTC.
    static func date(newest: Timestamp) -> String {
        LocalDate(utcSeconds: epoch(newest: newest)).utcText
    }

    /// The book's date in seconds since 1970.
    static func epoch(newest: Timestamp) -> Int64 {
        sourceDateEpoch ?? floorDiv(newest.microseconds, 1_000_000)
    }

    /// `SOURCE_DATE_EPOCH` when it is set to a valid time.
    static var sourceDateEpoch: Int64? {
        ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil }
    }

    /// The boxes of the print file's page at `position`: the media box moved so the text
    /// block sits further from the binding by what the page count asks (`extraGutter`, taken
    /// from the outside margin down to the printer's floor, so the pages' text stays as set),
    /// the trim box the page's size inside the bleed, and the bleed box the whole sheet.
    static func boxes(_ print: PrintSettings, geometry: PageGeometry, pages: Int) -> (Int) -> String {
        let shift = max(0, min(PrintSettings.extraGutter(pages: pages), geometry.outer - print.outsideFloor))
        return { position in
            // Where the inner margin is on the left, the page moves left under its content.
            let x = shift == 0 ? 0 : geometry.left(page: position) == geometry.inner ? -shift : shift
            return print.boxes(trim: geometry.size, at: x)
        }
    }
}
