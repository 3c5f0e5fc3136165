import QuireStore

/// The entries one export covers, read in two streaming passes so no export holds the
/// journal in memory: `init` counts them and notes what the cover, the package and the
/// book's language need; `forEachMonth` then hands over one month of entries at a time.
/// Months are those of the entries' local dates (the date the writer saw): entries are read
/// in local wall-clock order, so an entry written late on 31 March in Hawaii is in March
/// although it is April in UTC, and within a month entries follow their writers' clocks.
package struct BookContents {
    /// One month of entries.
    package struct Month: Sendable {
        /// `2025-03`.
        package let key: String
        package let year: Int
        /// 1 = January.
        package let month: Int

        init(_ local: LocalDate) {
            (key, year, month) = (local.monthKey, local.year, local.month)
        }

        /// `March 2025`, `Март 2025 г.`.
        package func title(in dates: BookDates) -> String { dates.monthTitle(year: year, month: month) }
    }

    let filter: EntryFilter
    package private(set) var entryCount = 0

    /// A book of at most this many entries lists each under its month in its contents (the
    /// EPUB's `nav.xhtml`, the PDF's outline); a larger one lists years and months: a table
    /// of contents of tens of thousands of lines helps no reader, and the book had to hold
    /// it whole until the end.
    package static let entriesListed = 2_000

    /// Whether this book's contents list its entries (`entriesListed`).
    package var listsEntries: Bool { entryCount <= Self.entriesListed }
    /// The newest `modified` of the entries: the book's own modification time.
    package private(set) var newestModified: Timestamp?
    package private(set) var first: LocalDate?
    package private(set) var last: LocalDate?
    /// How many entries show each language (for the book's own, `BookLanguage.choose`).
    package private(set) var languageVotes: [String: Int] = [:]
    /// The journals the entries are in, as their names are written.
    package private(set) var journals: Set<String> = []
    /// SHA-256 of the entries' ids in order, for an identifier derived from the data.
    package let idDigest: String

    /// Reads the live entries of `store` that `filter` selects, once, keeping only totals;
    /// `visit` sees each entry of that pass, in the book's order, with its month (what an
    /// export must know of every entry before it writes any: where each one will be).
    package init(store: Store, filter: EntryFilter, visit: ((Entry, _ monthKey: String) throws -> Void)? = nil) throws {
        self.filter = filter
        var count = 0, newest: Timestamp?, first: LocalDate?, last: LocalDate?
        var votes: [String: Int] = [:]
        var journals: Set<String> = []
        var digest = SHA256()
        try store.forEachEntry(matching: filter, localTimeOrder: true) { entry in
            count += 1
            if newest.map({ $0.microseconds < entry.modified.microseconds }) ?? true { newest = entry.modified }
            let local = LocalDate(entry.created)
            if first == nil { first = local }
            last = local
            if let code = TextLanguage(of: entry).code { votes[code, default: 0] += 1 }
            journals.insert(entry.journal)
            try visit?(entry, local.monthKey)
            Array((entry.id + ",").utf8).withUnsafeBytes { digest.update($0) }
        }
        (entryCount, newestModified, self.first, self.last, languageVotes, self.journals) = (count, newest, first, last, votes, journals)
        idDigest = digest.finalizeHex()
    }

    /// Calls `body` with each month and its entries, in order, reading one month at a time.
    package func forEachMonth(in store: Store, _ body: (Month, [Entry]) throws -> Void) throws {
        var current: Month?
        var entries: [Entry] = []
        try store.forEachEntry(matching: filter, localTimeOrder: true) { entry in
            let local = LocalDate(entry.created)
            if let month = current, month.key != local.monthKey {
                try body(month, entries)
                entries.removeAll(keepingCapacity: true)
            }
            if current?.key != local.monthKey { current = Month(local) }
            entries.append(entry)
        }
        if let month = current, !entries.isEmpty { try body(month, entries) }
    }

    /// `March – August 2025`, or one month alone.
    package func dateRange(in dates: BookDates) -> String {
        guard let first, let last else { return "" }
        return dates.monthRange(from: (first.year, first.month), to: (last.year, last.month))
    }

    /// The language the book is written around: `requested`, else its entries', else the environment's.
    package func language(requested: String?) throws -> BookLanguage {
        try BookLanguage.choose(requested: requested, votes: languageVotes, entries: entryCount)
    }
}
