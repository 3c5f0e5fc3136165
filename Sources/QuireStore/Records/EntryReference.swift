/// How an entry's text links to another entry of the journal: `[words](quire:entry/<id>)`.
/// The Obsidian import writes it for a `[[wikilink]]` to a note it brings in; exports make it
/// a link to that entry where they hold it (a page and anchor in a book, a relative path in
/// Markdown), and leave the words alone where they do not.
package enum EntryReference {
    static let scheme = QuireLink(prefix: "quire:entry/")
    package static var prefix: String { scheme.prefix }

    /// The link target naming entry `id`.
    package static func target(_ id: String) -> String { scheme.target(id) }

    /// The entry id a link target names, or nil when it names none.
    package static func id(inTarget target: String) -> String? { scheme.id(inTarget: target) }

    /// `text` with every `(quire:entry/<id>)` link target whose id `replace` knows swapped
    /// for what it returns; other text is left byte for byte.
    package static func rewrite(_ text: String, _ replace: (String) -> String?) -> String { scheme.rewrite(text, replace) }
}
