import Foundation
import QuireStore

/// An Obsidian note, most often a daily note `YYYY-MM-DD.md`: dated by its front matter
/// (`created` or `date`) or else by its file name (midnight that day, in `zone`), titled by
/// its front matter or a first `# Title` line, tagged by its front matter and its `#tags`,
/// its embeds made attachments. Its id derives from its path in the folder, so an edit of
/// the file comes back as an edit of the entry.
enum ObsidianNote {
    /// The note's date, or nil when it has none (a note that is not a journal entry).
    static func date(_ yaml: YAMLNode?, note: String, zone: TimeZone) -> Timestamp? {
        for key in ["created", "date"] {
            guard let s = yaml?[key]?.text else { continue }
            if let t = Timestamp(rfc3339: s) ?? Timestamp.local(s.replacingOccurrences(of: " ", with: "T"), in: zone)
                ?? (s.utf8.count == 10 ? Timestamp.local(s + "T00:00", in: zone) : nil) {
                return t
            }
        }
        let stem = ((note as NSString).lastPathComponent as NSString).deletingPathExtension
        guard stem.utf8.count >= 10 else { return nil }
        return Timestamp.local(String(stem.prefix(10)) + "T00:00", in: zone)
    }

    static func entry(_ yaml: YAMLNode?, rest: Substring, created: Timestamp, note: String, folder: NoteFolder) -> (ImportedEntry, [String]) {
        let id = Self.id(note)
        var (title, body) = TitleLine.split(String(rest.drop { $0 == "\n" }))
        if let given = yaml?["title"]?.text { title = given } else if title.isEmpty { title = fileTitle(note) }
        while body.hasSuffix("\n") { body.removeLast() }
        body = WikiLinks.resolve(body, folder: folder, id: Self.id)
        var tags: [String] = []
        if let node = yaml?["tags"] ?? yaml?["tag"] {
            let raw = node.items?.compactMap(\.text) ?? (node.text ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
            tags = raw.map { $0.hasPrefix("#") ? String($0.dropFirst()) : $0 }.filter { !$0.isEmpty }
        }
        for tag in inlineTags(body) where !tags.contains(tag) { tags.append(tag) }
        let embeds = Embeds(body: body, note: note, entryID: id, folder: folder)
        let entry = Entry(id: id, journal: yaml?["journal"]?.text ?? Store.defaultJournal, title: title, body: embeds.body,
                          created: created, modified: created, tags: tags, starred: false, location: nil, media: [])
        return (ImportedEntry(entry: entry, modified: nil, media: embeds.media, editedWhenChanged: true), embeds.missing)
    }

    /// The entry id of the note at `path` in the folder.
    static func id(_ note: String) -> String { StableID.derived("markdown\u{0}" + note) }

    /// A note's name is its title in Obsidian: `Bastille day.md` is "Bastille day", and
    /// `2025-07-14 Bastille day.md` too; a daily note named by its date alone has none.
    static func fileTitle(_ note: String) -> String {
        var stem = Substring(((note as NSString).lastPathComponent as NSString).deletingPathExtension)
        let date = stem.prefix(10)
        if date.count == 10, date.enumerated().allSatisfy({ i, c in [4, 7].contains(i) ? c == "-" : c.isASCII && c.isNumber }) {
            stem = stem.dropFirst(10).drop { $0 == " " || $0 == "-" || $0 == "_" || $0 == "." }
        }
        return stem.trimmingCharacters(in: .whitespaces)
    }

    /// `#tag` and `#nested/tag` at a word's start, outside code; a bare number is no tag.
    static func inlineTags(_ text: String) -> [String] {
        var found: [String] = []
        var inFence = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.drop(while: { $0 == " " }).hasPrefix("```") { inFence.toggle(); continue }
            if inFence { continue }
            var previous: Character = " "
            var current: String?
            var inCode = false
            for c in line + " " {
                if c == "`" { inCode.toggle() }
                if let tag = current {
                    if c.isLetter || c.isNumber || c == "_" || c == "-" || c == "/" {
                        current = tag + String(c)
                    } else {
                        if tag.contains(where: { !$0.isNumber }), !found.contains(tag) { found.append(tag) }
                        current = nil
                    }
                } else if c == "#" && !inCode && (previous.isWhitespace || previous == "(") {
                    current = ""
                }
                previous = c
            }
        }
        return found
    }
}
