/// How an entry's text refers to one of its own attachments in place:
/// `![caption](quire:media/<media id>)`. Importers write it where the source had its own
/// reference (`dayone-moment://…`, `![[photo.png]]`); exports resolve it to the attachment
/// (a relative link in Markdown, the image itself in the book).
public enum MediaReference {
    public static let prefix = "quire:media/"

    /// The link target naming attachment `id`.
    public static func target(_ id: String) -> String { prefix + id }

    /// The attachment id a link target names, or nil when it names none.
    public static func id(inTarget target: String) -> String? {
        guard target.hasPrefix(prefix) else { return nil }
        let id = String(target.dropFirst(prefix.count))
        return StableID.isValid(id) ? id : nil
    }

    /// `text` with every `(quire:media/<id>)` link target whose id `replace` knows swapped
    /// for what it returns; other text is left byte for byte.
    public static func rewrite(_ text: String, _ replace: (String) -> String?) -> String {
        let marker = "](" + prefix
        guard text.contains(marker) else { return text }
        var out = ""
        var rest = Substring(text)
        while let range = rest.range(of: marker) {
            out += rest[..<range.lowerBound]
            let after = rest[range.upperBound...]
            let id = String(after.prefix(36))
            if StableID.isValid(id), after.dropFirst(36).first == ")", let target = replace(id) {
                out += "](" + target + ")"
                rest = after.dropFirst(37)
            } else {
                out += rest[range]
                rest = after
            }
        }
        return out + rest
    }

    /// The attachment ids `text` refers to, in order of first reference.
    public static func ids(in text: String) -> [String] {
        var found: [String] = []
        _ = rewrite(text) { id in
            if !found.contains(id) { found.append(id) }
            return nil
        }
        return found
    }
}
