import Foundation
import QuireStore

/// What `quire export epub` was asked for.
public struct EPUBOptions {
    public var filter = EntryFilter()
    /// Book title; "Journal" (or the one journal filtered on) when nil.
    public var title: String?
    public var author: String?
    /// An image file for the cover; a generated title page when nil.
    public var cover: String?
    /// Embed voice notes in core audio formats, with media overlays where segments exist.
    public var withAudio = false
    /// The book's language as a BCP 47 tag; when nil, its entries' or the environment's (`BookLanguage`).
    public var language: String?

    public init() {}
}

/// What an export wrote.
public struct BookSummary: Sendable {
    public var entries = 0
    public var chapters = 0
    public var images = 0
    public var recordings = 0
    public var overlays = 0
    public var bytes: Int64 = 0
    /// Pages of a PDF book.
    public var pages = 0
    /// The language the book was written around (BCP 47), and how it was chosen.
    public var language = ""
    public var languageSource = ""
    /// What was left out or could not be done well, one line each (a damaged photo, a script
    /// no installed font shows); the book was still made.
    public var warnings: [String] = []
}

/// Writes an EPUB 3 book of the journal: a cover, a contents page (year → month → entry)
/// with landmarks, a chapter per month, photos and (optionally) voice notes embedded, every
/// transcript printed, media overlays for timed transcripts, accessibility metadata.
/// The same data gives the same bytes: names, identifier, dates and zip times all come from
/// the entries. The book is written to a temporary file beside `path` and renamed into place.
package struct EPUBExporter {
    let store: Store
    let options: EPUBOptions
    let templates: TemplateSet

    package init(store: Store, options: EPUBOptions, templates: TemplateSet) {
        self.store = store
        self.options = options
        self.templates = templates
    }

    static let package = "EPUB/"

    package func write(to path: String, progress: ProgressHandler? = nil) throws -> BookSummary {
        var monthOf: [String: String] = [:]  // entry id → its chapter, for links between entries
        var days = WrittenDays()
        let contents = try BookContents(store: store, filter: options.filter) { entry, month in
            monthOf[entry.id] = month
            days.add(entry)
        }
        guard contents.entryCount > 0, let modified = contents.newestModified else {
            throw ExportError(.invalid, detail: "no entries to export" + (options.filter.isEmpty ? "" : " match the filters") + "; nothing was written")
        }
        let language = try contents.language(requested: options.language)
        let cover = try options.cover.map(coverImage)
        let parent = PathText.parent(path)
        let folder = parent.isEmpty ? "." : parent
        try OutputFolder.check(folder)
        // The book and its chapters (waiting as files until libzip writes the book, so none
        // stays in memory) are written in a private folder beside OUT, removed if stopped.
        let work = try OutputFolder.workFolder(in: folder, prefix: ".quire-epub-")
        defer { OutputFolder.removeWork(work) }
        let temp = work.path + "/book.epub"
        let staging = work.path + "/pages"
        let zipTime = LocalDate(utcSeconds: floorDiv(modified.microseconds, 1_000_000))
        do {
            try FileIO.makeFolder(staging)
            let zip = try ZipWriter(path: temp, time: zipTime)
            var summary = try fill(zip, contents: contents, language: language, days: days, cover: cover, modified: zipTime, staging: staging,
                                   entryLink: { id in monthOf[id].map { $0 + ".xhtml#e-" + id } }, progress: progress)
            let total = Int64(contents.entryCount) * 2
            OutputFolder.hold(at: staging)
            try zip.close { fraction in progress?(Int64(contents.entryCount) + Int64(fraction * Double(contents.entryCount)), total) }
            summary.bytes = try OutputFolder.publish(temp, as: path, in: folder)
            progress?(total, total)
            return summary
        } catch {
            unlink(temp)
            // Whatever in the private folder failed (a chapter staged, the book), OUT is named.
            throw OutputFolder.naming(path, for: error, temporary: work.path)
        }
    }

    private struct Cover {
        let source: String
        let format: MediaFormat
    }

    private func coverImage(_ path: String) throws -> Cover {
        guard FileManager.default.isReadableFile(atPath: path) else { throw ExportError(.invalid, path: path, detail: "cannot read the cover image") }
        let format = MediaFormat.detect(path: path, declaredMime: path.lowercased().hasSuffix(".svg") ? "image/svg+xml" : "")
        if let pixels = PageImage.pixelCount(path), pixels > PageImage.maxPixels {
            throw ExportError(.invalid, path: path, detail: "the cover claims more pixels than a book shows (at most \(PageImage.maxPixels / 1_000_000) megapixels)")
        }
        guard format.isCore, format.mediaType.hasPrefix("image/") else {
            throw ExportError(.invalid, path: path, detail: "the cover must be a JPEG, PNG, GIF, WebP or SVG image")
        }
        return Cover(source: path, format: format)
    }

    /// Adds every file of the book to `zip` (which writes them at close).
    private func fill(_ zip: ZipWriter, contents: BookContents, language: BookLanguage, days: WrittenDays, cover: Cover?,
                      modified: LocalDate, staging: String, entryLink: (String) -> String?, progress: ProgressHandler?) throws -> BookSummary {
        var summary = BookSummary()
        (summary.language, summary.languageSource) = (language.code, language.source.rawValue)
        let (words, dates) = (language.words, language.dates)
        let title = BookTitle.title(options.title, contents: contents, words: words, clean: XMLText.clean)
        let author = BookTitle.author(options.author, clean: XMLText.clean)

        try zip.add("mimetype", text: "application/epub+zip", compress: false)
        try zip.add("META-INF/container.xml", text: """
            <?xml version="1.0" encoding="UTF-8"?>
            <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
              <rootfiles>
                <rootfile full-path="EPUB/package.opf" media-type="application/oebps-package+xml"/>
              </rootfiles>
            </container>

            """)

        var manifest: [MustacheValue] = []
        var spine: [MustacheValue] = []
        var overlayMeta: [MustacheValue] = []
        var totalDuration = 0.0
        var assets = EPUBAssets()
        var years: [(year: Int, months: [MustacheValue], firstHref: String)] = []
        let base: [String: MustacheValue] = [
            "title": .string(title), "language": .string(language.code), "direction": .string(language.direction),
            "words": .object(words.all.mapValues { .string($0) }),
        ]

        // Cover.
        var coverData = base
        coverData["author"] = author.map { .string($0) } ?? .null
        coverData["dateRange"] = .string(contents.dateRange(in: dates))
        coverData["entryCount"] = .string(words.text("entries", count: contents.entryCount, formatted: dates.count(contents.entryCount)))
        coverData["coverOf"] = .string(words.text("coverOf", ["title": title]))
        if let cover {
            let href = "images/cover." + cover.format.fileExtension
            try zip.add(Self.package + href, file: cover.source)
            manifest.append(item("cover-image", href, cover.format.mediaType, properties: "cover-image"))
            coverData["image"] = .object(["src": .string(href)])
        }
        try add(zip, "cover.xhtml", render: "epub/cover.xhtml", coverData)
        manifest.append(item("cover", "cover.xhtml", "application/xhtml+xml"))
        spine.append(.object(["idref": .string("cover")]))
        manifest.append(item("nav", "nav.xhtml", "application/xhtml+xml", properties: "nav"))
        spine.append(.object(["idref": .string("nav")]))
        try zip.add(Self.package + "style.css", text: try templates.source("epub/style.css"))
        manifest.append(item("css", "style.css", "text/css"))

        // A chapter per month.
        var done: Int64 = 0
        try contents.forEachMonth(in: store) { month, monthEntries in
            if years.last?.year != month.year {
                // Each year opens with its calendar.
                let calendar = EPUBCalendar(year: month.year, days: days, language: language)
                try stage(calendar.page(entryLink: entryLink), as: calendar.href, in: zip, staging: staging)
                manifest.append(item("cal-\(month.year)", calendar.href, "application/xhtml+xml", properties: "svg"))
                spine.append(.object(["idref": .string("cal-\(month.year)")]))
                years.append((month.year, [], calendar.href))
            }
            let page = "text/" + month.key + ".xhtml"
            var overlay = MediaOverlay()
            var entries: [MustacheValue] = []
            var navEntries: [MustacheValue] = []
            let listsEntries = contents.listsEntries
            for entry in monthEntries {
                let anchor = "e-" + entry.id
                let data = EntryData(entry, language: TextLanguage(of: entry), anchor: anchor, book: language, withAudio: options.withAudio,
                                     entryLink: entryLink, store: store, assets: &assets, overlay: &overlay)
                entries.append(data.value)
                if listsEntries {
                    navEntries.append(.object(["title": data.value.member("title") ?? .string(""), "href": .string(page + "#" + anchor)]))
                }
                done += 1
                if done % 200 == 0 { progress?(done, Int64(contents.entryCount) * 2) }
            }
            var chapter = base
            chapter["key"] = .string(month.key)
            chapter["monthTitle"] = .string(month.title(in: dates))
            chapter["entries"] = .list(entries)
            try add(zip, page, render: "epub/chapter.xhtml", chapter, partialData: ("epub/entry.xhtml", entries), stagingIn: staging)
            let chapterID = "ch-" + month.key
            var overlayID: String?
            if !overlay.isEmpty {
                let smil = "overlays/" + month.key + ".smil"
                overlayID = "mo-" + month.key
                try add(zip, smil, render: "epub/overlay.smil", overlay.data(page: page))
                manifest.append(item(overlayID ?? "", smil, "application/smil+xml"))
                overlayMeta.append(.object(["id": .string(overlayID ?? ""), "duration": .string(MediaOverlay.clock(overlay.duration))]))
                totalDuration += overlay.duration
                summary.overlays += 1
            }
            manifest.append(item(chapterID, page, "application/xhtml+xml", overlay: overlayID))
            spine.append(.object(["idref": .string(chapterID)]))
            var monthNav: [String: MustacheValue] = ["title": .string(month.title(in: dates)), "href": .string(page)]
            if !navEntries.isEmpty { monthNav["entries"] = .list(navEntries); monthNav["listsEntries"] = .bool(true) }
            years[years.count - 1].months.append(.object(monthNav))
            summary.chapters += 1
        }
        summary.entries = contents.entryCount

        for asset in assets.assets {
            try zip.add(Self.package + asset.href, file: asset.source)
            manifest.append(item(asset.id, asset.href, asset.mediaType))
            if asset.isAudio { summary.recordings += 1 } else { summary.images += 1 }
        }

        // Contents page with landmarks.
        var nav = base
        nav["years"] = .list(years.map { .object(["year": .string(dates.year($0.year)), "href": .string($0.firstHref), "months": .list($0.months)]) })
        nav["firstChapter"] = .string(years.first?.firstHref ?? "")
        try add(zip, "nav.xhtml", render: "epub/nav.xhtml", nav, stagingIn: staging)

        // Package document.
        var package = base
        let identifierKey = "quire-book\n" + title + "\n" + (author ?? "") + "\n" + contents.idDigest
        package["identifier"] = .string("urn:uuid:" + StableID.derived(identifierKey))
        package["author"] = author.map { .string($0) } ?? .null
        package["modified"] = .string(modified.utcText)
        package["manifest"] = .list(manifest)
        package["spine"] = .list(spine)
        package["rightToLeft"] = .bool(language.isRightToLeft)
        package["hasImages"] = .bool(summary.images > 0 || cover != nil)
        package["hasAudio"] = .bool(summary.recordings > 0)
        package["hasOverlays"] = .bool(summary.overlays > 0)
        package["overlays"] = .list(overlayMeta)
        package["totalDuration"] = .string(MediaOverlay.clock(totalDuration))
        package["accessibilitySummary"] = .string(accessibilitySummary(summary, words: words))
        try add(zip, "package.opf", render: "epub/package.opf", package)
        return summary
    }

    private func accessibilitySummary(_ summary: BookSummary, words: BookWords) -> String {
        var sentences = [words.text("accessibilitySummary")]
        if summary.images > 0 { sentences.append(words.text("accessibilityPhotos")) }
        sentences.append(words.text("accessibilityVoice"))
        if summary.overlays > 0 { sentences.append(words.text("accessibilityOverlays")) }
        return sentences.joined(separator: ["ja", "zh", "zh-Hant"].contains(words.language) ? "" : " ")
    }

    private func item(_ id: String, _ href: String, _ mediaType: String, properties: String? = nil, overlay: String? = nil) -> MustacheValue {
        var object: [String: MustacheValue] = ["id": .string(id), "href": .string(href), "mediaType": .string(mediaType)]
        if let properties { object["properties"] = .string(properties) }
        if let overlay { object["overlay"] = .string(overlay) }
        return .object(object)
    }

    /// Renders a template, checks that the result is well-formed XML, and adds it.
    /// When the page is not well-formed and `partialData` names the partial its items are
    /// rendered with, the partial is tried alone on each, so the error names the file at fault.
    /// With `stagingIn`, the page is written to a file there and the zip reads it at close.
    private func add(_ zip: ZipWriter, _ name: String, render template: String, _ data: [String: MustacheValue],
                     partialData: (template: String, items: [MustacheValue])? = nil, stagingIn staging: String? = nil) throws {
        try add(zip, name, render: template, .object(data), partialData: partialData, stagingIn: staging)
    }

    private func add(_ zip: ZipWriter, _ name: String, render template: String, _ data: MustacheValue,
                     partialData: (template: String, items: [MustacheValue])? = nil, stagingIn staging: String? = nil) throws {
        let text = try templates.render(template, data)
        if var problem = XHTMLPage.wellFormednessProblem(text) {
            var culprit = template
            for item in partialData?.items ?? [] {
                let fragment = try templates.render(partialData?.template ?? template, item)
                let wrapped = "<fragment xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\">\n" + fragment + "</fragment>"
                if let inner = XHTMLPage.wellFormednessProblem(wrapped) {
                    culprit = partialData?.template ?? template
                    problem = XHTMLPage.Problem(line: max(1, inner.line - 1), message: inner.message)
                    break
                }
            }
            throw ExportError(.template, path: templates.origin(of: culprit),
                              detail: "renders \(name) as XML that is not well-formed (line \(problem.line) of the output: \(problem.message))")
        }
        guard let staging else { return try zip.add(Self.package + name, text: text) }
        try stage(text, as: name, in: zip, staging: staging)
    }

    /// Adds `text` as `name` through a file in `staging`, which the zip reads at close: the
    /// pages of a large journal do not sit in memory until the book is written.
    private func stage(_ text: String, as name: String, in zip: ZipWriter, staging: String) throws {
        let file = staging + "/" + name.replacingOccurrences(of: "/", with: "_")
        try FileIO.writeText(text, to: file, sync: false)
        try zip.add(Self.package + name, file: file, compress: true)
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
