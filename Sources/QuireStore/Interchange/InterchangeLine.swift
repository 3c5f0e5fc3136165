import Foundation
import QuireSupport

/// One line of the JSON-lines interchange format, validated (CLI.md, "Interchange").
struct InterchangeLine {
    var id: String
    var entry: Entry
    var modified: Timestamp?
    /// Each file opened beneath the interchange file's folder without following links.
    var media: [ImportedMedia]

    var imported: ImportedEntry { ImportedEntry(entry: entry, modified: modified, media: media) }

    /// The keys a line may have: the records' fields as the schema names them, with ids and
    /// an entry's attachments.
    static let entryKeys = Set(["id", "media"] + RecordSchema.entry.interchangeKeys)
    static let mediaKeys = Set(["id"] + RecordSchema.media.interchangeKeys)

    /// - Throws: `.invalid` naming the key that is wrong.
    init(_ value: JSONValue, folder: String) throws {
        guard let o = value.object else { throw StoreError(.invalid, detail: "a line must be a JSON object") }
        if let unknown = o.keys.sorted().first(where: { !Self.entryKeys.contains($0) }) {
            throw StoreError(.invalid, detail: "unknown key \(TextSnippet.quoted(unknown, limit: 30))")
        }
        let created = try Self.timestamp(o["created"], key: "created", required: true)
        guard let created else { throw StoreError(.invalid, detail: "\"created\" is missing") }
        let modified = try Self.timestamp(o["modified"], key: "modified", required: false)
        let journal = try Store.cleanName(try Self.string(o["journal"], key: "journal") ?? Store.defaultJournal, what: "journal name")
        let title = try Self.string(o["title"], key: "title") ?? ""
        let body = try Self.string(o["body"], key: "body") ?? ""
        var tags: [String] = []
        if let raw = o["tags"], !raw.isNull {
            guard let items = raw.array else { throw StoreError(.invalid, detail: "\"tags\" must be an array of strings") }
            tags = try items.map { item in
                guard let s = item.string else { throw StoreError(.invalid, detail: "\"tags\" must be an array of strings") }
                return s
            }
        }
        var starred = false
        if let raw = o["starred"], !raw.isNull {
            guard case .bool(let b) = raw else { throw StoreError(.invalid, detail: "\"starred\" must be true or false") }
            starred = b
        }
        var location: Location?
        if let raw = o["location"], !raw.isNull {
            guard let l = raw.object, let lat = l["lat"]?.number, let lon = l["lon"]?.number,
                  Set(l.keys).isSubset(of: ["lat", "lon", "name"]) else {
                throw StoreError(.invalid, detail: "\"location\" must be {\"lat\": number, \"lon\": number, \"name\": text}")
            }
            location = Location(latitude: lat, longitude: lon, name: try Self.string(l["name"], key: "location.name"))
            try Store.checkLocation(location)
        }
        var id: String
        if let given = try Self.string(o["id"], key: "id") {
            id = given.lowercased()
            guard StableID.isValid(id) else { throw StoreError(.invalid, detail: "\"id\" is not a UUID") }
        } else {
            // The same line always gets the same id, so importing a file twice changes nothing.
            id = StableID.derived(["entry", journal, created.text, title, body].joined(separator: "\u{0}"))
        }
        self.id = id
        self.modified = modified
        self.entry = Entry(id: id, journal: journal, title: title, body: body, created: created, modified: modified ?? created,
                           tags: try Store.cleanTags(tags), starred: starred, location: location, media: [])
        var media: [ImportedMedia] = []
        if let raw = o["media"], !raw.isNull {
            guard let items = raw.array else { throw StoreError(.invalid, detail: "\"media\" must be an array") }
            for (index, item) in items.enumerated() {
                media.append(try Self.mediaItem(item, index: index + 1, folder: folder))
            }
        }
        self.media = media
    }

    private static func mediaItem(_ value: JSONValue, index: Int, folder: String) throws -> ImportedMedia {
        let at = "media[\(index)]"
        guard let o = value.object else { throw StoreError(.invalid, detail: "\(at) must be an object") }
        if let unknown = o.keys.sorted().first(where: { !mediaKeys.contains($0) }) {
            throw StoreError(.invalid, detail: "unknown key \(TextSnippet.quoted(unknown, limit: 30)) in \(at)")
        }
        guard let relative = try string(o["path"], key: "\(at).path"), !relative.isEmpty else {
            throw StoreError(.invalid, detail: "\(at).path is missing")
        }
        let source = try resolve(relative, in: folder, at: at)
        var id: String?
        if let given = try string(o["id"], key: "\(at).id") {
            guard StableID.isValid(given.lowercased()) else { throw StoreError(.invalid, detail: "\(at).id is not a UUID") }
            id = given.lowercased()
        }
        var kind: MediaKind?
        if let k = try string(o["kind"], key: "\(at).kind") {
            guard let parsed = MediaKind(name: k) else {
                throw StoreError(.invalid, detail: "\(at).kind must be voice, photo, video or file")
            }
            kind = parsed
        }
        let filename = try string(o["filename"], key: "\(at).filename") ?? (relative as NSString).lastPathComponent
        let mime = try string(o["mime"], key: "\(at).mime") ?? MimeTypes.guess(filename: filename)
        var duration: Double?
        if let raw = o["duration"], !raw.isNull {
            guard let d = raw.number, d >= 0 else { throw StoreError(.invalid, detail: "\(at).duration must be seconds ≥ 0") }
            duration = d
        }
        var segments: [Segment] = []
        if let raw = o["segments"], !raw.isNull {
            guard let items = raw.array else { throw StoreError(.invalid, detail: "\(at).segments must be an array") }
            for (k, item) in items.enumerated() {
                guard let s = item.object, let start = s["start"]?.number, let end = s["end"]?.number,
                      Set(s.keys).isSubset(of: ["start", "end", "text"]) else {
                    throw StoreError(.invalid, detail: "\(at).segments[\(k + 1)] must be {\"start\", \"end\", \"text\"}")
                }
                segments.append(Segment(start: start, end: end, text: try string(s["text"], key: "\(at).segments[\(k + 1)].text") ?? ""))
            }
        }
        try Store.checkTimings(duration: duration, segments: segments)
        var imported = ImportedMedia(id: id, kind: kind, source: .file(source), filename: filename, mime: mime, duration: duration,
                                     transcript: try string(o["transcript"], key: "\(at).transcript"), segments: segments)
        imported.transcriber = try string(o["transcriber"], key: "\(at).transcriber") ?? ""
        if let raw = o["transcribed_to"], !raw.isNull {
            guard !imported.transcriber.isEmpty, let reached = raw.number, Media.isValidSeconds(reached) else {
                throw StoreError(.invalid, detail: "\(at).transcribed_to must be seconds, with a transcriber")
            }
            imported.transcribedTo = reached
        }
        return imported
    }

    /// A media path relative to the file's folder; absolute paths and `..` are refused here,
    /// and links when the file is opened (`SourceFile.beneath`).
    static func resolve(_ relative: String, in folder: String, at: String) throws -> SourceFile {
        guard !relative.hasPrefix("/"), !relative.hasPrefix("~") else {
            throw StoreError(.invalid, detail: "\(at).path must be relative to the file's folder")
        }
        guard !relative.split(separator: "/").contains(".."), !relative.contains("\u{0}") else {
            throw StoreError(.invalid, detail: "\(at).path leaves the file's folder")
        }
        return .beneath(folder: folder, relative: relative)
    }

    private static func string(_ value: JSONValue?, key: String) throws -> String? {
        guard let value, !value.isNull else { return nil }
        guard let s = value.string else { throw StoreError(.invalid, detail: "\"\(key)\" must be text") }
        return s
    }

    private static func timestamp(_ value: JSONValue?, key: String, required: Bool) throws -> Timestamp? {
        guard let s = try string(value, key: key) else {
            if required { throw StoreError(.invalid, detail: "\"\(key)\" is missing") }
            return nil
        }
        guard let t = Timestamp(rfc3339: s) else {
            throw StoreError(.invalid, detail: "\"\(key)\" is not an RFC 3339 date like 2025-03-01T21:14:05+03:00")
        }
        return t
    }
}
