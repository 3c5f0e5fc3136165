import Foundation
import QuireStore
import QuireSupport

/// What a Markdown export wrote.
public struct MarkdownSummary: Sendable {
    public var entries = 0
    public var attachments = 0
    /// The language the index and headings were written in (BCP 47), and how it was chosen.
    public var language = ""
    public var languageSource = ""
}

/// Writes the journal as Markdown: `YYYY/MM/YYYY-MM-DD-slug.md` per entry (YAML front
/// matter, the body as written, photos and voice notes linked from `attachments/`, each
/// transcript under its recording) and `index.md` by year and month. Readable by Obsidian
/// and pandoc. Reproducible: the same entries give the same files and names. Headings, dates
/// and the index speak the export's language (`BookLanguage`); front matter stays RFC 3339.
///
/// The folder may be empty, new, or an earlier Quire export (it keeps a list of what it
/// wrote in `.quire-export`): files of the earlier export that this one no longer writes are
/// removed, anything else in the folder is left alone. A folder holding other files is
/// refused, so an export can never overwrite someone's notes.
package struct MarkdownExporter {
    let store: Store
    let filter: EntryFilter
    let templates: TemplateSet
    let language: String?

    static let manifestName = ".quire-export"

    /// - Parameter language: a BCP 47 tag, or nil for the entries' or the environment's language.
    package init(store: Store, filter: EntryFilter, templates: TemplateSet, language: String? = nil) {
        self.store = store
        self.filter = filter
        self.templates = templates
        self.language = language
    }

    package func write(to outdir: String, progress: ProgressHandler? = nil) throws -> MarkdownSummary {
        // Each entry's file is named before any is written, so a link to a later entry finds it.
        var files: [String: String] = [:]  // entry id → its path in the export
        var takenEntryNames: [String: Set<String>] = [:]
        let contents = try BookContents(store: store, filter: filter) { entry, month in
            let folder = String(month.prefix(4)) + "/" + String(month.suffix(2))
            let name = SafeName.unique(LocalDate(entry.created).dayKey + "-" + SafeName.slug(entry.displayTitle) + ".md",
                                       in: &takenEntryNames[folder, default: []])
            files[entry.id] = folder + "/" + name
        }
        guard contents.entryCount > 0 else {
            throw ExportError(.invalid, detail: "no entries to export" + (filter.isEmpty ? "" : " match the filters") + "; nothing was written")
        }
        let language = try contents.language(requested: language)
        let (words, dates) = (language.words, language.dates)
        let wordsData = Self.words(words)  // the same for every file
        let isNew = !FileManager.default.fileExists(atPath: outdir)
        let previous = try previousExport(outdir)
        let out = try ConfinedFolder(path: outdir)
        // Stopped halfway, a new folder goes whole (`Leftovers`); a folder written into keeps
        // a manifest from the start, so the same export run again finds it its own.
        let leftover = isNew ? Leftovers.register(outdir) : nil
        defer { leftover.map(Leftovers.forget) }
        // Failed halfway (a full disk), a new folder goes whole too; one written into keeps its
        // manifest, and the same command run again finishes it.
        var finished = false
        defer { if isNew && !finished { try? FileManager.default.removeItem(atPath: outdir) } }
        if !isNew { try out.writeText(previous.sorted().joined(separator: "\n") + "\n", to: Self.manifestName) }
        var written: [String] = []
        var summary = MarkdownSummary(language: language.code, languageSource: language.source.rawValue)
        // (blob id, the name it asks for) → its name in attachments/: the same bytes under the
        // same name are written once; under another name (two voice notes that happen to be
        // identical), each keeps its own.
        var attachmentNames: [String: String] = [:]
        var takenAttachmentNames = Set<String>()
        var index: [(year: Int, months: [MustacheValue])] = []
        let total = Int64(contents.entryCount)

        try contents.forEachMonth(in: store) { month, entries in
            let folder = String(month.key.prefix(4)) + "/" + String(month.key.suffix(2))
            try out.makeFolder(folder)
            var entryLinks: [MustacheValue] = []
            for entry in entries {
                let local = LocalDate(entry.created)
                let path = files[entry.id] ?? folder + "/" + entry.id + ".md"
                var media: [MustacheValue] = []
                var links: [String: String] = [:]  // media id → its link from this file
                let inPlace = Set(MediaReference.ids(in: entry.body))
                for item in entry.media {
                    let attachment: String
                    let format = MediaFormat.detect(path: store.blobs.path(for: item.blobID), declaredMime: item.mime)
                    let safe = SafeName.fileName(item.filename.isEmpty ? item.kind.name : item.filename, fallbackExtension: format.fileExtension)
                    let key = item.blobID + "\u{0}" + safe
                    if let known = attachmentNames[key] {
                        attachment = known
                    } else {
                        attachment = SafeName.unique(safe, in: &takenAttachmentNames)
                        attachmentNames[key] = attachment
                        try out.copy(from: store.blobs.path(for: item.blobID), to: "attachments/" + attachment)
                        written.append("attachments/" + attachment)
                        summary.attachments += 1
                    }
                    let link = SafeName.linkPath("../../attachments/" + attachment)
                    links[item.id] = link
                    media.append(Self.mediaData(item, link: link, file: "../../attachments/" + attachment, name: attachment,
                                                inPlace: inPlace.contains(item.id), language: language))
                }
                var shown = entry
                shown.body = MediaReference.rewrite(entry.body) { links[$0] }
                // A link to an entry of this export leads to its file (and reads back as the link).
                shown.body = EntryReference.rewrite(shown.body) { id in files[id].map { SafeName.linkPath("../../" + $0) } }
                let text = try templates.render("markdown/entry.md", Self.entryData(shown, local: local, media: media, language: language, words: wordsData))
                try out.writeText(text, to: path)
                if written.count == 1 { OutputFolder.hold(at: outdir + "/" + path) }
                written.append(path)
                let title = MarkdownText.inline(entry.displayTitle.isEmpty ? dates.longDay(local) : entry.displayTitle)
                let date = local.isDateOnly ? dates.dayAndMonth(local) : dates.dayAndMonth(local) + ", " + dates.clock(local)
                entryLinks.append(.object(["title": .string(title), "link": .string(SafeName.linkPath(path)), "date": .string(date)]))
                summary.entries += 1
                if summary.entries % 500 == 0 { progress?(Int64(summary.entries), total) }
            }
            let monthData: MustacheValue = .object(["title": .string(month.title(in: dates)), "entries": .list(entryLinks)])
            if index.last?.year == month.year { index[index.count - 1].months.append(monthData) } else { index.append((month.year, [monthData])) }
        }
        let indexText = try templates.render("markdown/index.md", .object([
            "title": .string(MarkdownText.inline(BookTitle.title(nil, contents: contents, words: words))),
            "dateRange": .string(contents.dateRange(in: dates)),
            "entryCount": .string(words.text("entries", count: contents.entryCount, formatted: dates.count(contents.entryCount))),
            "years": .list(index.map { .object(["year": .string(dates.year($0.year)), "months": .list($0.months)]) }),
            "language": .string(language.code),
            "words": wordsData,
        ]))
        try out.writeText(indexText, to: "index.md")
        written.append("index.md")

        let stale = Set(previous).subtracting(written)
        for path in stale.sorted() { out.remove(path) }
        try out.writeText(written.sorted().joined(separator: "\n") + "\n", to: Self.manifestName)
        out.sync()
        progress?(total, total)
        finished = true
        return summary
    }

    /// The files an earlier export listed that an export could have written; refuses a
    /// folder with other visible content. The manifest is only a list in the folder, which
    /// anyone with the folder can edit: a name it lists is removed only when it has the shape
    /// of what this exporter writes, so a doctored one cannot get `~/.bashrc` deleted.
    private func previousExport(_ outdir: String) throws -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: outdir, isDirectory: &isFolder) else { return [] }
        guard isFolder.boolValue else { throw ExportError(.invalid, path: outdir, detail: "exists and is not a folder") }
        if let data = try ConfinedFolder(path: outdir).read(Self.manifestName, limit: 64 << 20) {
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).filter(Self.couldHaveWritten)
        }
        let visible = (try? FileManager.default.contentsOfDirectory(atPath: outdir))?.filter { !$0.hasPrefix(".") } ?? []
        guard visible.isEmpty else {
            throw ExportError(.invalid, path: outdir, detail: "is not empty and holds no earlier Quire export; choose an empty or new folder")
        }
        return []
    }

    /// `index.md`, `YYYY/MM/<name>.md` or `attachments/<name>`: the only paths it writes.
    static func couldHaveWritten(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        func digits(_ s: Substring, _ n: Int) -> Bool { s.utf8.count == n && s.utf8.allSatisfy { (48...57).contains($0) } }
        func name(_ s: Substring) -> Bool { !s.isEmpty && s != "." && s != ".." && !s.hasPrefix(".") }
        switch parts.count {
        case 1: return path == "index.md"
        case 2: return parts[0] == "attachments" && name(parts[1])
        case 3: return digits(parts[0], 4) && digits(parts[1], 2) && name(parts[2]) && parts[2].hasSuffix(".md")
        default: return false
        }
    }

    /// The book's words for templates (`{{{words.voiceNote}}}`), each safe in Markdown text.
    static func words(_ words: BookWords) -> MustacheValue {
        .object(words.all.mapValues { .string(MarkdownText.inline($0)) })
    }

    /// - Parameter words: `words(language.words)`, made once for the whole export.
    static func entryData(_ entry: Entry, local: LocalDate, media: [MustacheValue], language: BookLanguage, words: MustacheValue) -> MustacheValue {
        let dates = language.dates
        var yaml: [String: MustacheValue] = [
            "id": .string(MarkdownText.yamlQuoted(entry.id)),
            "created": .string(MarkdownText.yamlQuoted(entry.created.text)),
            "modified": .string(MarkdownText.yamlQuoted(entry.modified.text)),
            "journal": .string(MarkdownText.yamlQuoted(entry.journal)),
            "title": .string(MarkdownText.yamlQuoted(entry.title)),
            "starred": .string(entry.starred ? "true" : "false"),
        ]
        if let location = entry.location {
            yaml["location"] = .object([
                "lat": .string(String(location.latitude)), "lon": .string(String(location.longitude)),
                "name": location.name.map { .string(MarkdownText.yamlQuoted($0)) } ?? .null,
            ])
        }
        // An untitled entry is headed by its date, with the time below (none for a date-only
        // entry): its first line stays the start of its text, not a heading repeated above it.
        let heading = entry.title.isEmpty ? dates.longDay(local) : entry.title
        let date: MustacheValue = entry.title.isEmpty ? (local.isDateOnly ? .null : .string(dates.clock(local)))
            : .string(MarkdownText.inline(dates.longDayAndTime(local)))
        let below = media.contains { item in
            item.member("inPlace") == .bool(false) || (item.member("isVoice") == .bool(true) && item.member("quote") != nil)
        }
        return .object([
            "yaml": .object(yaml),
            "tags": .list(entry.tags.map { .object(["name": .string($0), "yaml": .string(MarkdownText.yamlQuoted($0))]) }),
            "hasTags": .bool(!entry.tags.isEmpty),
            "heading": .string(MarkdownText.inline(heading)),
            "date": date,
            // Written as it is: `import markdown` reads it back exactly, up to the end marker
            // where one is needed (attachments follow, or the text's own last line break
            // would otherwise be lost).
            "body": .string(entry.body),
            "hasAttachmentsBelow": .bool(below),
            // … or where the text itself holds the marker's words, which the last marker ends.
            "bodyEndsInLineBreak": .bool(entry.body.hasSuffix("\n") || entry.body.hasSuffix("\r") || entry.body.containsBytes("<!-- quire:")),
            "media": .list(media),
            "hasMedia": .bool(!media.isEmpty),
            "language": .string(language.code),
            "words": words,
        ])
    }

    /// - Parameters:
    ///   - file: the attachment's path from the entry's file, as the front matter names it.
    ///   - inPlace: the text shows it already, so it is not shown again below.
    static func mediaData(_ media: Media, link: String, file: String, name: String, inPlace: Bool, language: BookLanguage) -> MustacheValue {
        let (words, dates) = (language.words, language.dates)
        let q = MarkdownText.yamlQuoted
        var yaml: [String: MustacheValue] = [
            "id": .string(q(media.id)), "file": .string(q(file)), "kind": .string(media.kind.name),
            "filename": .string(q(media.filename)), "mime": .string(q(media.mime)),
            "hasSegments": .bool(!media.segments.isEmpty),
            "segments": .list(media.segments.map { .string("\($0.start), \($0.end), " + q($0.text)) }),
        ]
        if let duration = media.duration { yaml["duration"] = .string(String(duration)) }
        if media.transcript != Segment.transcript(of: media.segments) {
            yaml["transcript"] = .object(["text": .string(q(media.transcript))])
        }
        if media.hasMachineTranscript {  // a draft heard on a machine, yours to correct
            yaml["transcriber"] = .object(["text": .string(q(media.transcriber))])
            if let reached = media.transcribedTo { yaml["transcribedTo"] = .string(String(reached)) }
        }
        var object: [String: MustacheValue] = [
            "link": .string(link),
            "name": .string(MarkdownText.inline(name)),
            "kind": .string(media.kind.name),
            "yaml": .object(yaml),
            "inPlace": .bool(inPlace),
        ]
        let duration = media.duration.flatMap { $0 > 0 ? dates.duration($0) : nil }
        if let duration { object["duration"] = .string(duration) }
        object["caption"] = .string(MarkdownText.inline(duration.map { words.text("voiceNoteLasting", ["duration": $0]) } ?? words.text("voiceNote")))
        switch media.kind {
        case .photo: object["isPhoto"] = .bool(true)
        case .voice: object["isVoice"] = .bool(true)
        case .video, .file: object["isOther"] = .bool(true)
        }
        let segments = media.segments.filter { !$0.text.isEmpty }
        object["segments"] = .list(segments.map {
            .object(["time": .string(dates.duration($0.start)), "text": .string(MarkdownText.inline($0.text))])
        })
        // The transcript as one block quote: a quoted blank line between its parts, none after.
        let parts = segments.isEmpty ? Transcript.paragraphs(media.transcript).map { "> " + MarkdownText.inline($0) }
            : segments.map { "> **" + dates.duration($0.start) + "** " + MarkdownText.inline($0.text) }
        if !parts.isEmpty { object["quote"] = .string(parts.joined(separator: "\n>\n")) }
        if media.segments.isEmpty {
            object["paragraphs"] = .list(Transcript.paragraphs(media.transcript).map { .string(MarkdownText.inline($0)) })
        }
        return .object(object)
    }
}
