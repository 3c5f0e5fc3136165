/// How an entry's text links to another entry of the journal: `[words](quire:entry/<id>)`.
/// The Obsidian import writes it for a `[[wikilink]]` to a note it brings in; exports make it
/// a link to that entry where they hold it (a page and anchor in a book, a relative path in
/// Markdown), and leave the words alone where they do not.
public enum EntryReference {
    public static let prefix = "quire:entry/"

    /// The link target naming entry `id`.
    public static func target(_ id: String) -> String { prefix + id }

    /// The entry id a link target names, or nil when it names none.
    public static func id(inTarget target: String) -> String? {
        guard target.hasPrefix(prefix) else { return nil }
        let id = String(target.dropFirst(prefix.count))
        return StableID.isValid(id) ? id : nil
    }

    /// `text` with every `(quire:entry/<id>)` link target whose id `replace` knows swapped
    /// for what it returns; other text is left byte for byte.
    public static func rewrite(_ text: String, _ replace: (String) -> String?) -> String {
        guard text.contains("](" + prefix) else { return text }
        return MediaReference.rewriteTargets(text) { target in id(inTarget: target).flatMap(replace) }
    }
}
