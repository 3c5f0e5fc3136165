import Foundation
import QuireStore
import QuireSupport

/// A file `quire export markdown` wrote: every field in its front matter (attachments with
/// their ids, types, durations and timed transcripts), the text between the heading lines
/// and the end marker, and links to the attachments turned back into Quire's references. An
/// export imported into an empty store gives back the same journal, byte for byte.
enum QuireNote {
    static let endMarker = "<!-- quire: the entry's text ends here"

    /// Whether the front matter is Quire's: an `id` that is a UUID and a `created` date.
    static func matches(_ yaml: YAMLNode) -> Bool {
        guard let id = yaml["id"]?.text, yaml["created"]?.text.flatMap(Timestamp.init(rfc3339:)) != nil else { return false }
        return UUID(uuidString: id) != nil
    }

    /// - Parameter exported: the entry id of each note of the folder that Quire exported, by
    ///   path, so links between them come back as links between entries.
    static func entry(_ yaml: YAMLNode, rest: Substring, note: String, folder: NoteFolder, exported: [String: String],
                      fail: (String) -> ImportError) throws -> (ImportedEntry, [String]) {
        func text(_ key: String, in node: YAMLNode = yaml) throws -> String? {
            guard let value = node[key] else { return nil }
            guard case .scalar = value else { throw fail("\"\(key)\" must be text") }
            return value.text
        }
        func date(_ key: String) throws -> Timestamp? {
            guard let s = try text(key) else { return nil }
            guard let t = Timestamp(rfc3339: s) else { throw fail("\"\(key)\" \(TextSnippet.quoted(s)) is not an RFC 3339 date") }
            return t
        }
        func number(_ key: String, in node: YAMLNode) throws -> Double? {
            guard let s = try text(key, in: node) else { return nil }
            guard let n = Double(s), n.isFinite else { throw fail("\"\(key)\" \(TextSnippet.quoted(s)) is not a number") }
            return n
        }
        guard let idText = try text("id"), let created = try date("created") else { throw fail("\"id\" and \"created\" are needed") }
        let id = idText.lowercased()
        var location: Location?
        if let l = yaml["location"] {
            guard let lat = try number("lat", in: l), let lon = try number("lon", in: l) else { throw fail("\"location\" needs lat and lon") }
            location = Location(latitude: lat, longitude: lon, name: try text("name", in: l))
        }
        let tags = try (yaml["tags"]?.items ?? []).map { item in
            guard let tag = item.text else { throw fail("\"tags\" must be a list of text") }
            return tag
        }
        let starred = try text("starred")
        guard starred == nil || starred == "true" || starred == "false" else { throw fail("\"starred\" must be true or false") }

        // Attachments, each at its path from this file.
        var media: [ImportedMedia] = []
        var links: [String: String] = [:]  // path from the note → media id
        for (index, item) in (yaml["attachments"]?.items ?? []).enumerated() {
            let at = "attachments[\(index + 1)]"
            guard let mediaID = try text("id", in: item), UUID(uuidString: mediaID) != nil, let file = try text("file", in: item) else {
                throw fail("\(at) needs an id and a file")
            }
            guard let resolved = NoteFolder.normalize(((note as NSString).deletingLastPathComponent as NSString).appendingPathComponent(file)) else {
                throw fail("\(at).file leaves the folder")
            }
            var kind: MediaKind?
            if let k = try text("kind", in: item) {
                guard let parsed = MediaKind(name: k) else { throw fail("\(at).kind must be voice, photo, video or file") }
                kind = parsed
            }
            var segments: [Segment] = []
            for (k, segment) in (item["segments"]?.items ?? []).enumerated() {
                guard let parts = segment.items, parts.count == 3, let start = parts[0].text.flatMap(Double.init),
                      let end = parts[1].text.flatMap(Double.init), case .scalar(let words, _) = parts[2] else {
                    throw fail("\(at).segments[\(k + 1)] must be [start, end, \"text\"]")
                }
                segments.append(Segment(start: start, end: end, text: words))
            }
            let filename = try text("filename", in: item) ?? (file as NSString).lastPathComponent
            var imported = ImportedMedia(id: mediaID.lowercased(), kind: kind, source: folder.source(resolved), filename: filename,
                                         mime: try text("mime", in: item) ?? MimeTypes.guess(filename: filename),
                                         duration: try number("duration", in: item), transcript: item["transcript"].flatMap { node in
                                             if case .scalar(let s, _) = node { return s } else { return nil } },
                                         segments: segments)
            imported.transcriber = try text("transcriber", in: item) ?? ""
            if let reached = try number("transcribed_to", in: item) {
                guard !imported.transcriber.isEmpty, Media.isValidSeconds(reached) else { throw fail("\(at).transcribed_to must be seconds, with a transcriber") }
                imported.transcribedTo = reached
            }
            media.append(imported)
            links[file] = mediaID.lowercased()
        }

        let title = try text("title") ?? ""
        var body = Self.body(rest, dateLine: !(title.isEmpty && created.isDateOnly))
        body = Self.linksToReferences(body, links: links)
        body = Self.linksToEntries(body, note: note, exported: exported)
        let embeds = Embeds(body: body, note: note, entryID: id, folder: folder, known: media)
        let entry = Entry(id: id, journal: try text("journal") ?? Store.defaultJournal, title: title, body: embeds.body,
                          created: created, modified: try date("modified") ?? created, tags: tags, starred: starred == "true",
                          location: location, media: [])
        return (ImportedEntry(entry: entry, modified: try date("modified"), media: embeds.media, editedWhenChanged: true), embeds.missing)
    }

    /// The text as the export wrote it: after `# heading` and a blank line, and (unless the
    /// entry is untitled and date-only, where the export writes none) `*date*` and a blank
    /// line; up to the line break before the end marker, or to the end less its line break.
    static func body(_ rest: Substring, dateLine: Bool) -> String {
        var text = rest
        if text.hasPrefix("\n") { text = text.dropFirst() }
        let lines = text.split(separator: "\n", maxSplits: 4, omittingEmptySubsequences: false)
        // By bytes: a title that begins with a combining mark makes one `Character` of it and
        // the space after `#`.
        func heading(_ line: Substring) -> Bool { line.utf8.starts(with: "# ".utf8) }
        if dateLine, lines.count == 5, heading(lines[0]), lines[1].isEmpty, lines[2].hasPrefix("*"), lines[2].hasSuffix("*"), lines[3].isEmpty {
            text = lines[4]
        } else if !dateLine, lines.count >= 3, heading(lines[0]), lines[1].isEmpty {
            text = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)[2]
        }
        if let end = text.lastRange(ofBytes: "\n" + endMarker) {
            return String(text[..<end.lowerBound])
        }
        if text.hasPrefix(endMarker) { return "" }
        var trimmed = String(text)
        while trimmed.hasSuffix("\n") { trimmed.removeLast() }
        return trimmed
    }

    /// `](../06/2025-06-01-walk.md)` to another exported note back to `](quire:entry/<id>)`.
    static func linksToEntries(_ body: String, note: String, exported: [String: String]) -> String {
        guard body.containsBytes(".md)") else { return body }
        let from = (note as NSString).deletingLastPathComponent
        return MediaReference.rewriteTargets(body) { target in
            guard target.hasSuffix(".md"), !target.contains("://"),
                  let path = NoteFolder.normalize(from + "/" + (target.removingPercentEncoding ?? target)), let id = exported[path] else { return nil }
            return EntryReference.target(id)
        }
    }

    /// `](../../attachments/x.jpg)` for an attachment of this entry back to `](quire:media/<id>)`.
    static func linksToReferences(_ body: String, links: [String: String]) -> String {
        guard !links.isEmpty else { return body }
        return MediaReference.rewriteTargets(body) { target in links[target.removingPercentEncoding ?? target].map(MediaReference.target) }
    }
}
