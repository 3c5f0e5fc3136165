import Foundation
import QuireStore
import QuireSupport

/// The attachments a note shows: Obsidian's `![[photo.png]]` (found by name anywhere in the
/// folder, or by path) and Markdown's `![alt](path)` (beside the note, or from the folder's
/// root). Each one found becomes an attachment of the entry and its reference Quire's own
/// (`![alt](quire:media/<id>)`); one not found stays as written and is named as missing.
/// Links to web addresses, and embeds of other notes, are left alone.
struct Embeds {
    var body: String
    var media: [ImportedMedia] = []
    var missing: [String] = []

    init(body: String, note: String, entryID: String, folder: NoteFolder, known: [ImportedMedia] = []) {
        self.body = ""
        media = known
        var ids: [String: String] = [:]  // file → media id
        func attach(_ file: String) -> String {
            if let id = ids[file] { return id }
            let id = StableID.derived("markdown\u{0}\(entryID)\u{0}\(file)")
            ids[file] = id
            let name = (file as NSString).lastPathComponent
            media.append(ImportedMedia(id: id, source: folder.source(file), filename: name, mime: MimeTypes.guess(filename: name)))
            return id
        }
        var out = ""
        var rest = Substring(body)
        // Each closer found once for all the openers before it (`NextBytes`).
        var closers = NextBytes("]]"), brackets = NextBytes("]"), parens = NextBytes(")"), newlines = NextBytes("\n")
        var openers = NextBytes("[[")
        /// Whether `text` holds no line end before `end`.
        func oneLine(_ text: Substring, to end: Substring.Index) -> Bool {
            (newlines.first(in: text)?.lowerBound ?? text.endIndex) >= end
        }
        while let bang = rest.firstRange(ofBytes: "![") {
            out += rest[..<bang.lowerBound]
            let after = rest[bang.upperBound...]
            // No `[[` inside (100,000 `![[` read to their one `]]` each took minutes).
            if after.hasPrefix("["), let close = closers.first(in: after), oneLine(after, to: close.lowerBound),
               (openers.first(in: after.dropFirst())?.lowerBound ?? after.endIndex) >= close.lowerBound {
                // ![[target|alias]] or ![[target#part]]
                let inner = after.dropFirst()[..<close.lowerBound]
                let target = String(inner.prefix { $0 != "|" && $0 != "#" }).trimmingCharacters(in: .whitespaces)
                var alias = inner.contains("|") ? String(inner.drop { $0 != "|" }.dropFirst()) : ""
                // `|400` or `|400x300` sizes an image; it is no caption.
                if alias.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "x") }) { alias = "" }
                let isNote = target.lowercased().hasSuffix(".md") || !target.contains(".")
                if !isNote, let file = Self.find(target, note: note, folder: folder) {
                    out += "![" + alias + "](" + MediaReference.target(attach(file)) + ")"
                } else {
                    if !isNote { missing.append(target) }
                    out += rest[bang.lowerBound..<close.upperBound]
                }
                rest = after[close.upperBound...]
                continue
            }
            // ![alt](path "title")
            if let altEnd = brackets.first(in: after)?.lowerBound, after[after.index(after: altEnd)...].hasPrefix("("),
               let parenEnd = parens.first(in: after[altEnd...])?.lowerBound, oneLine(after, to: parenEnd) {
                let alt = after[..<altEnd]
                var target = String(after[after.index(altEnd, offsetBy: 2)..<parenEnd]).trimmingCharacters(in: .whitespaces)
                if target.hasPrefix("<") && target.hasSuffix(">") { target = String(target.dropFirst().dropLast()) }
                let path = target.removingPercentEncoding ?? target
                let isLocal = !target.contains("://") && !target.hasPrefix("quire:") && !target.hasPrefix("data:")
                    && !target.hasPrefix("mailto:") && !target.isEmpty
                if isLocal, let file = folder.resolve(path, from: note) {
                    out += "![" + alt + "](" + MediaReference.target(attach(file)) + ")"
                } else {
                    if isLocal { missing.append(path) }
                    out += rest[bang.lowerBound...parenEnd]
                }
                rest = after[after.index(after: parenEnd)...]
                continue
            }
            out += "!["
            rest = after
        }
        self.body = out + rest
    }

    /// Obsidian's lookup: a path from the root when it has a folder, else the file of that
    /// name nearest the root.
    static func find(_ target: String, note: String, folder: NoteFolder) -> String? {
        if target.contains("/") { return folder.resolve(target, from: note) }
        return folder.byName[target.lowercased()]
    }
}
