import QuireStore

/// The title and author a book shows: what was given, trimmed; without a title, the one
/// journal filtered on, named as it is written (`--journal travel` makes a book "Travel"),
/// else the book's word for a journal ("Journal", "Дневник"). `clean` is applied first (the
/// EPUB drops characters XML forbids).
enum BookTitle {
    static func title(_ given: String?, contents: BookContents, words: BookWords, clean: (String) -> String = { $0 }) -> String {
        let trimmed = clean(given ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.isEmpty else { return trimmed }
        guard contents.filter.journals.count == 1 else { return words.text("journal") }
        return clean(contents.journals.count == 1 ? contents.journals.first ?? "" : contents.filter.journals[0])
    }

    static func author(_ given: String?, clean: (String) -> String = { $0 }) -> String? {
        given.map(clean)?.trimmingCharacters(in: .whitespacesAndNewlines).nilIfEmpty
    }
}
