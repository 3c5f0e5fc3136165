import Foundation
import QuireStore
import QuireSupport

/// Brings in a jrnl journal (`quire import jrnl FILE`): its JSON export (`jrnl --export
/// json`) or its plain-text file (`[YYYY-MM-DD HH:MM] Title. Body` or jrnl 3/4's default
/// `[YYYY-MM-DD hh:mm:ss PM] Title. Body`, a trailing ` *` for a starred entry). jrnl's times have no offset: they are read in `zone` (this machine's).
/// Tags are jrnl's `@tags` without the `@`; the text keeps them as written. Ids derive from
/// the journal, the minute and the entry's place among entries of that minute, so importing
/// twice changes nothing and an entry edited in jrnl comes back as an edit.
package struct JrnlImporter {
    let path: String
    let zone: TimeZone

    package init(path: String, zone: TimeZone = .current) {
        self.path = path
        self.zone = zone
    }

    /// - Throws: `ImportError` naming the file and the entry or line.
    package func run(into store: Store, journal: String? = nil, progress: ProgressHandler? = nil) throws -> ImportSummary {
        let entries = try items()
        let name = journal ?? Store.defaultJournal
        var seen: [String: Int] = [:]
        return try store.importEntries(journal: journal) { emit in
            for (index, item) in entries.enumerated() {
                let minute = item.created.localMinute
                let ordinal = seen[minute, default: 0]
                seen[minute] = ordinal + 1
                let id = StableID.derived("jrnl\u{0}\(name)\u{0}\(minute)\u{0}\(ordinal)")
                let entry = Entry(id: id, journal: name, title: item.title, body: item.body, created: item.created, modified: item.created,
                                  tags: item.tags, starred: item.starred, location: nil, media: [])
                do {
                    try emit(ImportedEntry(entry: entry, modified: nil, media: []))
                } catch let error as StoreError {
                    throw ImportError(path: path, place: item.place, detail: error.description)
                }
                if index % 500 == 0 { progress?(Int64(index), Int64(entries.count)) }
            }
            progress?(Int64(entries.count), Int64(entries.count))
        }
    }

    /// The file's entries, from its JSON export or its plain text. A JSON export is parsed
    /// from its bytes, never also decoded as text, and the bytes and the parsed tree are gone
    /// before the entries are written: 10,000 entries peaked at 142 MiB, now 133 MiB.
    private func items() throws -> [Item] {
        let data: Data
        do {
            data = try SourceFile.named(path).read(limit: 1 << 30)
        } catch {
            throw ImportError(path: path, detail: "cannot be read (\(error))")
        }
        let body = SourceText.withoutByteOrderMark(data)
        if body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") {
            return try jsonEntries(body)
        }
        guard let text = SourceText.decode(data) else { throw ImportError(path: path, detail: "is not UTF-8 text") }
        return try textEntries(text)
    }

    struct Item {
        var place: String
        var created: Timestamp
        var title: String
        var body: String
        var tags: [String]
        var starred: Bool
    }

    /// `{"tags": {…}, "entries": [{"title", "body", "date", "time", "tags", "starred"}]}`.
    func jsonEntries(_ data: Data) throws -> [Item] {
        let document = try JSONFile.parse(data, path: path, place: nil)
        guard let list = document.object?["entries"]?.array else {
            throw ImportError(path: path, detail: "is not a jrnl JSON export (no \"entries\" list)")
        }
        return try list.enumerated().map { index, value in
            let place = "entry \(index + 1)"
            guard let object = value.object else { throw ImportError(path: path, place: place, detail: "is not an object") }
            let fields = JSONFields(object: object, error: { ImportError(path: path, place: place, detail: $0) })
            guard let date = try fields.string("date"), let time = try fields.string("time") else {
                throw fields.error("\"date\" and \"time\" are needed")
            }
            guard let created = Timestamp.local(date + "T" + time, in: zone) else {
                throw fields.error("\(TextSnippet.quoted(date + " " + time)) is not a date like 2025-03-01 21:14")
            }
            let body = try fields.string("body") ?? ""
            return Item(place: place, created: created, title: try fields.string("title") ?? "",
                        body: body.trimmingCharacters(in: .newlines), tags: try fields.strings("tags").map(Self.tagName),
                        starred: try fields.bool("starred") ?? false)
        }
    }

    /// Entries start at a line `[YYYY-MM-DD HH:MM] Title. Body…` and run to the next.
    func textEntries(_ text: String) throws -> [Item] {
        var items: [Item] = []
        var current: (place: String, created: Timestamp, first: String, lines: [String])?
        func finish() {
            guard let c = current else { return }
            var first = c.first.trimmingCharacters(in: .whitespaces)
            let starred = first.hasSuffix(" *") || first == "*"
            if starred { first = String(first.dropLast()).trimmingCharacters(in: .whitespaces) }
            let (title, rest) = Self.firstSentence(first)
            let body = ([rest] + c.lines).joined(separator: "\n").trimmingWhiteSpace()
            items.append(Item(place: c.place, created: c.created, title: title, body: body,
                              tags: Self.tags(in: title + "\n" + body), starred: starred))
        }
        // Split at the byte: `"\r\n"` is one `Character`, and a walk by `Character` is slow.
        for (index, bytes) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let line = String(decoding: bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes[...], as: UTF8.self)
            if let (stamp, rest) = Self.header(line) {
                guard let created = Timestamp.local(stamp, in: zone) else {
                    throw ImportError(path: path, place: "line \(index + 1)", detail: "\(TextSnippet.quoted(stamp)) is not a date")
                }
                finish()
                current = ("line \(index + 1)", created, rest, [])
            } else if Self.looksLikeHeader(line) {
                throw ImportError(path: path, place: "line \(index + 1)",
                                  detail: "starts like an entry but its date is not one Quire reads; write it like [2025-03-01 21:14] or [2025-03-01 09:14:00 PM]")
            } else if current != nil {
                current?.lines.append(line)
            } else if !line.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ImportError(path: path, place: "line \(index + 1)",
                                  detail: "is not a jrnl entry; entries start like [2025-03-01 21:14] Title.")
            }
        }
        finish()
        return items
    }

    /// An entry's first line: `[2025-03-01 21:14] rest`, with seconds or without, in 24-hour
    /// time or in jrnl 3/4's default 12-hour form (`timeformat: "%F %r"`, written
    /// `[2024-05-08 09:15:00 PM] rest`); the brackets may be left out. Gives the local time
    /// (`2024-05-08T21:15:00`) and the rest.
    ///
    /// Read byte by byte, as `^(\[)?(\d{4}-\d{2}-\d{2})[ T](\d{1,2}):(\d{2})(:\d{2})?(?: ?([AaPp])\.?[Mm]\.?)?(\])?`
    /// would match it with ASCII digits: a `Regex` literal is parsed again at every call,
    /// which took 13 s of a 10,000-entry journal's import.
    static func header(_ line: String) -> (String, String)? {
        let b = Array(line.utf8)
        var i = 0
        func eat(_ c: Character) -> Bool {
            guard i < b.count, b[i] == c.asciiValue else { return false }
            i += 1
            return true
        }
        func digits(_ most: Int) -> String? {
            let start = i
            while i < b.count, i - start < most, b[i] &- UInt8(ascii: "0") < 10 { i += 1 }
            return i > start ? String(decoding: b[start..<i], as: UTF8.self) : nil
        }
        func exactly(_ n: Int) -> String? {
            let start = i
            guard let d = digits(n), d.count == n else { i = start; return nil }
            return d
        }
        let opened = eat("[")
        guard let year = exactly(4), eat("-"), let month = exactly(2), eat("-"), let day = exactly(2),
              eat(" ") || eat("T"), let hourText = digits(2), eat(":"), let minute = exactly(2), var hour = Int(hourText) else { return nil }
        var seconds = ""
        let beforeSeconds = i
        if eat(":"), let s = exactly(2) { seconds = ":" + s } else { i = beforeSeconds }
        // ` PM`, `pm`, ` p.m.`: all of it or none.
        let beforeHalf = i
        _ = eat(" ")
        var half: UInt8?
        if i < b.count, [UInt8(ascii: "A"), UInt8(ascii: "a"), UInt8(ascii: "P"), UInt8(ascii: "p")].contains(b[i]) {
            let letter = b[i]
            i += 1
            _ = eat(".")
            if eat("M") || eat("m") {
                _ = eat(".")
                half = letter | 0x20
            }
        }
        if half == nil { i = beforeHalf }
        let closed = eat("]")
        guard opened == closed else { return nil }
        if let half {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (half == UInt8(ascii: "p") ? 12 : 0)
        }
        let stamp = "\(year)-\(month)-\(day)T\(hour < 10 ? "0" : "")\(hour):\(minute)\(seconds)"
        let rest = b[i...]
        if !opened, let next = rest.first, next != UInt8(ascii: " ") { return nil }  // `2025-03-01 21:14x` is text
        return (stamp, String(decoding: rest.first == UInt8(ascii: " ") ? rest.dropFirst() : rest, as: UTF8.self))
    }

    /// A line that starts like an entry in a date format Quire does not read
    /// (`[08.05.2024 21:15]`, `[5/8/2024 9:15 PM]`): an error, never text of the entry before.
    /// Only a line opening with `[` and a digit is matched against the pattern (built anew at
    /// each call): most lines of a journal are its text.
    static func looksLikeHeader(_ line: String) -> Bool {
        guard line.utf8.first == UInt8(ascii: "["), line.unicodeScalars.dropFirst().first?.properties.numericType == .decimal else { return false }
        return line.prefixMatch(of: #/^\[\d{1,4}[-.\/]\d{1,2}[-.\/]\d{1,4}[ T,]+\d{1,2}[:.h]\d{2}[^\]]{0,12}\]/#) != nil
    }

    /// jrnl's title: the first sentence of the first line (to `.`, `?` or `!` and a space).
    static func firstSentence(_ line: String) -> (String, String) {
        let chars = Array(line)
        var i = 0
        while i < chars.count {
            if ".?!".contains(chars[i]) {
                var j = i
                while j + 1 < chars.count, ".?!".contains(chars[j + 1]) { j += 1 }
                if j + 1 == chars.count { return (line, "") }
                if chars[j + 1] == " " {
                    return (String(chars[...j]), String(chars[(j + 2)...]).trimmingCharacters(in: .whitespaces))
                }
                i = j
            }
            i += 1
        }
        return (line, "")
    }

    /// jrnl's `@tags` in text (see `Store.tags(inText:)`).
    static func tags(in text: String) -> [String] { Store.tags(inText: text, sigils: "@") }

    static func tagName(_ tag: String) -> String { tag.hasPrefix("@") ? String(tag.dropFirst()) : tag }
}
