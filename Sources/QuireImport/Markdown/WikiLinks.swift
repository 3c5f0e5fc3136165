import Foundation
import QuireStore
import QuireSupport

/// Obsidian's links between notes, `[[Note]]`, `[[Note|words]]` and `[[Note#Heading]]`, made
/// links between entries (`[words](quire:entry/<id>)`) when the folder holds that note: its
/// entry's id derives from its path, as the note's own import gives it. A link to a note the
/// folder lacks stays as written; so does anything inside code, and embeds (`![[…]]`).
enum WikiLinks {
    static func resolve(_ body: String, folder: NoteFolder, id: (String) -> String) -> String {
        guard body.containsBytes("[[") else { return body }
        var out = ""
        var inFence = false
        for (index, line) in body.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if index > 0 { out += "\n" }
            if line.drop(while: { $0 == " " }).hasPrefix("```") { inFence.toggle() }
            out += inFence || !line.containsBytes("[[") ? String(line) : resolveLine(line, folder: folder, id: id)
        }
        return out
    }

    private static func resolveLine(_ line: Substring, folder: NoteFolder, id: (String) -> String) -> String {
        var out = ""
        var rest = line
        var inCode = false
        var closer = NextBytes("]]"), opener = NextBytes("[[")
        while let c = rest.first {
            if c == "`" { inCode.toggle() }
            // No `[[` inside: reading the inside of each `[[` of 100,000 `[` to their `]]`
            // took an import minutes.
            if !inCode, rest.hasPrefix("[["), out.last != "!", let close = closer.first(in: rest),
               (opener.first(in: rest.dropFirst(2))?.lowerBound ?? rest.endIndex) >= close.lowerBound {
                let inner = rest.dropFirst(2)[..<close.lowerBound]
                let target = String(inner.prefix { $0 != "|" && $0 != "#" }).trimmingCharacters(in: .whitespaces)
                let words = inner.contains("|") ? String(inner.drop { $0 != "|" }.dropFirst()).trimmingCharacters(in: .whitespaces) : target
                if !target.isEmpty, !words.contains("]"), let note = folder.note(named: target) {
                    out += "[" + words + "](" + EntryReference.target(id(note)) + ")"
                    rest = rest[close.upperBound...]
                    continue
                }
            }
            out.append(c)
            rest = rest.dropFirst()
        }
        return out
    }
}
