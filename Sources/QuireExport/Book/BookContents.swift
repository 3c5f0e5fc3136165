import QuireStore

/// The entries one export covers, grouped by the month of their local date (the date the
/// writer saw), months in order. Entries keep their (created instant, id) order within a
/// month. Entries written near midnight in far-apart time zones can make the instant order
/// and the local months disagree, so the months are gathered before any is written.
public struct BookContents {
    public struct Month {
        /// `2025-03`.
        public let key: String
        /// `March 2025`.
        public let title: String
        public let year: Int
        public var entries: [Entry]
    }

    public private(set) var months: [Month] = []
    public private(set) var entryCount = 0
    /// The newest `modified` of the entries: the book's own modification time.
    public private(set) var newestModified: Timestamp?
    public private(set) var first: LocalDate?
    public private(set) var last: LocalDate?

    /// Reads the live entries of `store` that `filter` selects.
    public init(store: Store, filter: EntryFilter) throws {
        var byMonth: [String: Month] = [:]
        try store.forEachEntry(matching: filter) { entry in
            let local = LocalDate(entry.created)
            byMonth[local.monthKey, default: Month(key: local.monthKey, title: local.monthTitle, year: local.year, entries: [])]
                .entries.append(entry)
            entryCount += 1
            if newestModified.map({ $0.microseconds < entry.modified.microseconds }) ?? true { newestModified = entry.modified }
        }
        months = byMonth.keys.sorted().compactMap { byMonth[$0] }
        first = months.first?.entries.first.map { LocalDate($0.created) }
        last = months.last?.entries.last.map { LocalDate($0.created) }
    }

    /// `March 2025 – August 2025`, or one month alone.
    public var dateRange: String {
        guard let first, let last else { return "" }
        return first.monthKey == last.monthKey ? first.monthTitle : first.monthTitle + " – " + last.monthTitle
    }
}

extension EntryFilter {
    /// True when the filter selects every entry.
    var isEmpty: Bool { journals.isEmpty && tags.isEmpty && from == nil && to == nil }
}
