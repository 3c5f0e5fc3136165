import QuireStore

/// The title and author a book shows: what was given, trimmed; without a title, the one
/// journal filtered on, else the book's word for a journal ("Journal", "Дневник"). `clean`
/// is applied first (the EPUB drops characters XML forbids).
enum BookTitle {
    static func title(_ given: String?, filter: EntryFilter, words: BookWords, clean: (String) -> String = { $0 }) -> String {
        let trimmed = clean(given ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.isEmpty else { return trimmed }
        return filter.journals.count == 1 ? clean(filter.journals[0]) : words.text("journal")
    }

    static func author(_ given: String?, clean: (String) -> String = { $0 }) -> String? {
        given.map(clean)?.trimmingCharacters(in: .whitespacesAndNewlines).nilIfEmpty
    }
}
