import Foundation
import QuireStore

/// What a Markdown export wrote.
public struct MarkdownSummary: Equatable, Sendable {
    public var entries = 0
    public var attachments = 0
}

/// Writes the journal as Markdown: `YYYY/MM/YYYY-MM-DD-slug.md` per entry (YAML front
/// matter, the body as written, photos and voice notes linked from `attachments/`, each
/// transcript under its recording) and `index.md` by year and month. Readable by Obsidian
/// and pandoc. Reproducible: the same entries give the same files and names.
///
/// The folder may be empty, new, or an earlier Quire export (it keeps a list of what it
/// wrote in `.quire-export`): files of the earlier export that this one no longer writes are
/// removed, anything else in the folder is left alone. A folder holding other files is
/// refused, so an export can never overwrite someone's notes.
public struct MarkdownExporter {
    let store: Store
    let filter: EntryFilter
    let templates: TemplateSet

    static let manifestName = ".quire-export"

    public init(store: Store, filter: EntryFilter, templates: TemplateSet) {
        self.store = store
        self.filter = filter
        self.templates = templates
    }

    public func write(to outdir: String, progress: ProgressHandler? = nil) throws -> MarkdownSummary {
        let contents = try BookContents(store: store, filter: filter)
        guard contents.entryCount > 0 else {
            throw ExportError(.invalid, detail: "no entries to export" + (filter.isEmpty ? "" : " match the filters") + "; nothing was written")
        }
        let previous = try previousExport(outdir)
        try FileIO.makeFolder(outdir)
        var written: [String] = []
        var summary = MarkdownSummary()
        var attachmentNames: [String: String] = [:] // blob id → name in attachments/
        var takenAttachmentNames = Set<String>()
        var takenEntryNames: [String: Set<String>] = [:]
        var index: [(year: Int, months: [MustacheValue])] = []
        let total = Int64(contents.entryCount)

        try contents.forEachMonth(in: store) { month, entries in
            let folder = String(month.key.prefix(4)) + "/" + String(month.key.suffix(2))
            try FileIO.makeFolder(outdir + "/" + folder)
            var links: [MustacheValue] = []
            for entry in entries {
                let local = LocalDate(entry.created)
                let name = SafeName.unique(local.dayKey + "-" + SafeName.slug(entry.displayTitle) + ".md", in: &takenEntryNames[folder, default: []])
                let path = folder + "/" + name
                var media: [MustacheValue] = []
                for item in entry.media {
                    let attachment: String
                    if let known = attachmentNames[item.blobID] {
                        attachment = known
                    } else {
                        let format = MediaFormat.detect(path: store.blobs.path(for: item.blobID), declaredMime: item.mime)
                        let safe = SafeName.fileName(item.filename.isEmpty ? item.kind.rawValue : item.filename, fallbackExtension: format.fileExtension)
                        attachment = SafeName.unique(safe, in: &takenAttachmentNames)
                        attachmentNames[item.blobID] = attachment
                        try FileIO.makeFolder(outdir + "/attachments")
                        try FileIO.copyAtomically(from: store.blobs.path(for: item.blobID), to: outdir + "/attachments/" + attachment, sync: false)
                        written.append("attachments/" + attachment)
                        summary.attachments += 1
                    }
                    media.append(Self.mediaData(item, link: SafeName.linkPath("../../attachments/" + attachment), name: attachment))
                }
                let text = try templates.render("markdown/entry.md", Self.entryData(entry, local: local, media: media))
                try FileIO.writeText(text, to: outdir + "/" + path, sync: false)
                written.append(path)
                let title = MarkdownText.inline(entry.displayTitle.isEmpty ? local.longDay : entry.displayTitle)
                let date = String(local.day) + " " + local.monthName + ", " + local.clock
                links.append(.object(["title": .string(title), "link": .string(SafeName.linkPath(path)), "date": .string(date)]))
                summary.entries += 1
                if summary.entries % 500 == 0 { progress?(Int64(summary.entries), total) }
            }
            let monthData: MustacheValue = .object(["title": .string(month.title), "entries": .list(links)])
            if index.last?.year == month.year { index[index.count - 1].months.append(monthData) } else { index.append((month.year, [monthData])) }
        }
        let indexText = try templates.render("markdown/index.md", .object([
            "title": .string(MarkdownText.inline(filter.journals.count == 1 ? filter.journals[0] : "Journal")),
            "dateRange": .string(contents.dateRange),
            "entryCount": .string(contents.entryCount == 1 ? "1 entry" : "\(contents.entryCount) entries"),
            "years": .list(index.map { .object(["year": .string(String($0.year)), "months": .list($0.months)]) }),
        ]))
        try FileIO.writeText(indexText, to: outdir + "/index.md", sync: false)
        written.append("index.md")

        try removeStale(previous: previous, written: Set(written), outdir: outdir)
        try FileIO.writeText(written.sorted().joined(separator: "\n") + "\n", to: outdir + "/" + Self.manifestName, sync: false)
        FileIO.syncFolder(outdir)
        progress?(total, total)
        return summary
    }

    /// The files an earlier export listed; refuses a folder with other visible content.
    private func previousExport(_ outdir: String) throws -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: outdir, isDirectory: &isFolder) else { return [] }
        guard isFolder.boolValue else { throw ExportError(.invalid, path: outdir, detail: "exists and is not a folder") }
        if let data = FileManager.default.contents(atPath: outdir + "/" + Self.manifestName) {
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
                .filter { !$0.isEmpty && !$0.hasPrefix("/") && !$0.split(separator: "/").contains("..") }
        }
        let visible = (try? FileManager.default.contentsOfDirectory(atPath: outdir))?.filter { !$0.hasPrefix(".") } ?? []
        guard visible.isEmpty else {
            throw ExportError(.invalid, path: outdir, detail: "is not empty and holds no earlier Quire export; choose an empty or new folder")
        }
        return []
    }

    /// Removes what the earlier export wrote and this one did not, and folders left empty.
    private func removeStale(previous: [String], written: Set<String>, outdir: String) throws {
        for path in previous where !written.contains(path) {
            unlink(outdir + "/" + path)
            var folder = PathText.parent(path)
            while !folder.isEmpty, rmdir(outdir + "/" + folder) == 0 { folder = PathText.parent(folder) }
        }
    }

    static func entryData(_ entry: Entry, local: LocalDate, media: [MustacheValue]) -> MustacheValue {
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
        let title = entry.displayTitle.isEmpty ? local.longDay : entry.displayTitle
        return .object([
            "yaml": .object(yaml),
            "tags": .list(entry.tags.map { .object(["name": .string($0), "yaml": .string(MarkdownText.yamlQuoted($0))]) }),
            "hasTags": .bool(!entry.tags.isEmpty),
            "heading": .string(MarkdownText.inline(title)),
            "date": .string(local.longDay + ", " + local.clock),
            "body": .string(entry.body.hasSuffix("\n") || entry.body.isEmpty ? entry.body : entry.body + "\n"),
            "media": .list(media),
        ])
    }

    static func mediaData(_ media: Media, link: String, name: String) -> MustacheValue {
        var object: [String: MustacheValue] = [
            "link": .string(link),
            "name": .string(MarkdownText.inline(name)),
            "kind": .string(media.kind.rawValue),
        ]
        if let duration = media.duration, duration > 0 { object["duration"] = .string(clockText(duration)) }
        switch media.kind {
        case .photo: object["isPhoto"] = .bool(true)
        case .voice: object["isVoice"] = .bool(true)
        case .video, .file: object["isOther"] = .bool(true)
        }
        object["segments"] = .list(media.segments.filter { !$0.text.isEmpty }.map {
            .object(["time": .string(clockText($0.start)), "text": .string(MarkdownText.inline($0.text))])
        })
        if media.segments.isEmpty {
            object["paragraphs"] = .list(Transcript.paragraphs(media.transcript).map { .string(MarkdownText.inline($0)) })
        }
        return .object(object)
    }
}
