import QuireStore

/// The calendar date and clock time of a timestamp at its own UTC offset — the time the
/// writer saw on their clock — computed from the data alone, so output never depends on
/// the exporting machine's time zone. Its names in a book's language are `BookDates`'.
package struct LocalDate: Equatable, Sendable {
    package let year: Int
    package let month: Int
    package let day: Int
    package let hour: Int
    package let minute: Int
    package let second: Int
    /// 0 = Sunday … 6 = Saturday.
    package let weekday: Int
    /// No time of day was given: the timestamp is exactly midnight (a daily note, an entry
    /// added with `--date 2025-03-01`). Books show its date alone, never a made-up 00:00.
    package let isDateOnly: Bool

    /// The local date of `timestamp` at its offset.
    package init(_ timestamp: Timestamp) {
        self.init(secondsSinceEpoch: floorDiv(timestamp.microseconds, 1_000_000) + Int64(timestamp.offsetSeconds),
                  dateOnly: timestamp.isDateOnly)
    }

    /// The date in UTC of `seconds` since 1970 (for `dcterms:modified` and zip times).
    package init(utcSeconds seconds: Int64) { self.init(secondsSinceEpoch: seconds, dateOnly: false) }

    private init(secondsSinceEpoch seconds: Int64, dateOnly: Bool) {
        let days = floorDiv(seconds, 86_400)
        let secondOfDay = Int(seconds - days * 86_400)
        hour = secondOfDay / 3600
        minute = secondOfDay / 60 % 60
        second = secondOfDay % 60
        weekday = Int(((days % 7) + 11) % 7) // 1970-01-01 was a Thursday
        // Howard Hinnant's days → civil date.
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
        month = Int(mp < 10 ? mp + 3 : mp - 9)
        year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
        isDateOnly = dateOnly
    }

    /// `2025-03`.
    package var monthKey: String { pad(year, 4) + "-" + pad(month, 2) }
    /// `2025-03-01`.
    package var dayKey: String { monthKey + "-" + pad(day, 2) }
    /// `2025-03-01T21:14:05Z` (for UTC dates).
    package var utcText: String { dayKey + "T" + pad(hour, 2) + ":" + pad(minute, 2) + ":" + pad(second, 2) + "Z" }

    /// `20250301211405Z`, a PDF date's digits (for UTC dates).
    var pdfText: String { pad(year, 4) + pad(month, 2) + pad(day, 2) + pad(hour, 2) + pad(minute, 2) + pad(second, 2) + "Z" }

    func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}

func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}
