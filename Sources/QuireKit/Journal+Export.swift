import Foundation
import QuireExport
import QuireImport
import QuireStore

/// The journal out, and sources in: every export and import of the CLI goes through here.
extension Journal {
    /// Imports `path` as `format` (Day One, jrnl, a Markdown folder, Quire's JSON lines), every
    /// entry into `journal` when one is named. One transaction: a source refused part-way
    /// leaves the store as it was.
    @discardableResult
    public func importEntries(from path: String, format: ImportFormat, journal: String? = nil,
                              progress: ProgressHandler? = nil) throws -> ImportSummary {
        try format.run(path, into: store, journal: journal, progress: progress)
    }

    /// Writes the journal (or the entries `filter` picks) as Quire's JSON lines, with the
    /// attachments' files, into `folder`: what `importEntries(format: .jsonLines)` reads back.
    @discardableResult
    public func exportJSONLines(to folder: String, filter: EntryFilter = EntryFilter(), progress: ProgressHandler? = nil) throws -> ExportSummary {
        try store.exportJSON(to: folder, filter: filter, progress: progress)
    }

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
