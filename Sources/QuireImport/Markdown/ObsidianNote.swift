import Foundation
import QuireStore
import QuireSupport

/// An Obsidian note, most often a daily note `YYYY-MM-DD.md`: dated by its front matter
/// (`created` or `date`) or else by its file name (midnight that day, in `zone`), titled by
/// its front matter or a first `# Title` line, tagged by its front matter and its `#tags`,
/// its embeds made attachments. Its id derives from its path in the folder, so an edit of
/// the file comes back as an edit of the entry.
enum ObsidianNote {
    /// The note's date, or nil when it has none (a note that is not a journal entry).
    static func date(_ yaml: YAMLNode?, note: String, zone: TimeZone) -> Timestamp? {
        for key in ["created", "date"] {
            if let s = yaml?[key]?.text, let t = frontMatterDate(s, zone: zone) { return t }
        }
        let stem = ((note as NSString).lastPathComponent as NSString).deletingPathExtension
        guard stem.utf8.count >= 10 else { return nil }
        return Timestamp.local(String(stem.prefix(10)) + "T00:00", in: zone)
    }

    /// A date as Obsidian, its templates and the tools that write front matter give it:
    /// RFC 3339, `2024-03-05`, `2024-03-05 09:30[:15]` (read in `zone`), with `/` for `-`,
    /// an offset written `+0100` or after a space; or in words that hold a year
    /// (`March 5, 2024`, `5 March 2024 9:30 pm`). Words without one (`yesterday`, `Dec 2`)
    /// would date the note by the day of the import, so they are no date.
    static func frontMatterDate(_ text: String, zone: TimeZone) -> Timestamp? {
        var s = text.trimmingWhiteSpace()
        var b = Array(s.utf8)
        if b.count >= 10, b[4] == UInt8(ascii: "/"), b[7] == UInt8(ascii: "/") {
            b[4] = UInt8(ascii: "-")
            b[7] = UInt8(ascii: "-")
        }
        if b.count >= 16, b[10] == UInt8(ascii: " ") { b[10] = UInt8(ascii: "T") }
        // `…09:30 +0100`, `…09:30:00+0100`: RFC 3339's `+01:00`, with seconds.
        if b.count >= 21, let sign = b.dropLast(4).last, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
           b.suffix(4).allSatisfy({ (0x30...0x39).contains($0) }) {
            var wall = Array(b.dropLast(5))
            while wall.last == UInt8(ascii: " ") { wall.removeLast() }
            if wall.count == 16 { wall += Array(":00".utf8) }
            b = wall + [sign] + b.suffix(4).prefix(2) + [UInt8(ascii: ":")] + b.suffix(2)
        }
        s = String(decoding: b, as: UTF8.self)
        if let t = Timestamp(rfc3339: s) ?? Timestamp.local(s, in: zone) ?? (b.count == 10 ? Timestamp.local(s + "T00:00", in: zone) : nil) {
            return t
        }
        let hasYear = text.utf8.split { !(0x30...0x39).contains($0) }.contains { $0.count == 4 }
        return hasYear ? Timestamp.parseLenient(text, zone: zone) : nil
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
        // Each tag once, in the order first met (a set: a note may bring thousands).
        var seen = Set<String>()
        tags = (tags + inlineTags(body)).filter { seen.insert($0).inserted }
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
        var seen = Set<String>()  // a note may bring thousands: no search of `found` for each
        var inFence = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.drop(while: { $0 == " " }).hasPrefix("```") { inFence.toggle(); continue }
            if inFence { continue }
            var previous: Character = " "
            var current: String?
            var inCode = false
            for c in line + " " {
                if c == "`" { inCode.toggle() }
                if current != nil {
                    if c.isLetter || c.isNumber || c == "_" || c == "-" || c == "/" {
                        current?.append(c)  // in place: a new string for each letter made a long tag quadratic
                    } else {
                        if let tag = current, tag.contains(where: { !$0.isNumber }), seen.insert(tag).inserted { found.append(tag) }
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
