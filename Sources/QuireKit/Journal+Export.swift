import Foundation
import QuireExport
import QuireStore

/// The journal as a book and as Markdown (the JSON-lines dump is `Store.exportJSON`).
extension Journal {
    /// Writes the journal (or the entries `filter` picks) as an EPUB 3 book at `path`.
    @discardableResult
    public func exportBook(to path: String, options: EPUBOptions = EPUBOptions(), templates: TemplateSet? = nil,
                           progress: ProgressHandler? = nil) throws -> BookSummary {
        try EPUBExporter(store: store, options: options, templates: try templates ?? TemplateSet()).write(to: path, progress: progress)
    }

    /// Writes the journal (or the entries `options.filter` picks) as a PDF book to print at `path`.
    @discardableResult
    public func exportPDF(to path: String, options: PDFOptions = PDFOptions(), progress: ProgressHandler? = nil) throws -> BookSummary {
        try PDFExporter(store: store, options: options).write(to: path, progress: progress)
    }

    /// Writes the cover of a printed book (back, spine and front on one PDF/X-3 sheet) at
    /// `path`; returns its size in bytes. It needs no journal: the title and page count are given.
    @discardableResult
    public static func exportCover(to path: String, options: CoverOptions) throws -> Int64 {
        try CoverSpread(options: options).write(to: path)
    }

    /// Writes one Markdown file per entry, with its attachments, into `folder`; headings, dates
    /// and the index in `language` (BCP 47; nil: the entries', else the environment's).
    @discardableResult
    public func exportMarkdown(to folder: String, filter: EntryFilter = EntryFilter(), language: String? = nil,
                               templates: TemplateSet? = nil, progress: ProgressHandler? = nil) throws -> MarkdownSummary {
        try MarkdownExporter(store: store, filter: filter, templates: try templates ?? TemplateSet(), language: language)
            .write(to: folder, progress: progress)
    }
}
