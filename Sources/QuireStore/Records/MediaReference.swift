import QuireSupport

/// How an entry's text refers to one of its own attachments in place:
/// `![caption](quire:media/<media id>)`. Importers write it where the source had its own
/// reference (`dayone-moment://…`, `![[photo.png]]`); exports resolve it to the attachment
/// (a relative link in Markdown, the image itself in the book).
package enum MediaReference {
    static let scheme = QuireLink(prefix: "quire:media/")
    package static var prefix: String { scheme.prefix }

    /// The link target naming attachment `id`.
    package static func target(_ id: String) -> String { scheme.target(id) }

    /// The attachment id a link target names, or nil when it names none.
    package static func id(inTarget target: String) -> String? { scheme.id(inTarget: target) }

    /// `text` with every `(quire:media/<id>)` link target whose id `replace` knows swapped
    /// for what it returns; other text is left byte for byte.
    package static func rewrite(_ text: String, _ replace: (String) -> String?) -> String { scheme.rewrite(text, replace) }

    /// `text` with each Markdown link or image target (`](target)`, up to the first `)`)
    /// that `replace` has a new one for swapped; the rest left byte for byte.
    package static func rewriteTargets(_ text: String, _ replace: (String) -> String?) -> String {
        guard text.containsBytes("](") else { return text }
        var out = ""
        var rest = Substring(text)
        var parens = NextBytes(")")
        while let open = rest.firstRange(ofBytes: "](") {
            out += rest[..<open.upperBound]
            rest = rest[open.upperBound...]
            guard let close = parens.first(in: rest)?.lowerBound else { continue }
            if let target = replace(String(rest[..<close])) {
                out += target
                rest = rest[close...]
            }
        }
        return out + rest
    }

    /// The attachment ids `text` refers to, in order of first reference.
    package static func ids(in text: String) -> [String] {
        var found: [String] = [], seen = Set<String>()
        _ = rewrite(text) { id in
            if seen.insert(id).inserted { found.append(id) }
            return nil
        }
        return found
    }
}

/// A link scheme by which an entry's text names a record of the journal by id
/// (`quire:media/<id>`, `quire:entry/<id>`).
struct QuireLink: Sendable {
    let prefix: String

    func target(_ id: String) -> String { prefix + id }

    func id(inTarget target: String) -> String? {
        guard target.hasPrefix(prefix) else { return nil }
        let id = String(target.dropFirst(prefix.count))
        return StableID.isValid(id) ? id : nil
    }

    func rewrite(_ text: String, _ replace: (String) -> String?) -> String {
        guard text.containsBytes("](" + prefix) else { return text }
        return MediaReference.rewriteTargets(text) { target in id(inTarget: target).flatMap(replace) }
    }
}
