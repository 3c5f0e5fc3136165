import QuireStore

/// What each day of a book holds, for the calendar that opens each of its years (in the PDF
/// as vector drawing, in the EPUB as an SVG page): how much was written, whether a voice note
/// or a photo is there, and the day's first entry, which the day's cell links to.
struct WrittenDays {
    struct Day {
        var firstEntry: String
        var characters = 0
        var voice = false
        var photo = false

        /// How dark its cell is (1 white … 0 black), by how much was written.
        var shade: Double {
            switch characters {
            case ..<200: return 0.84
            case ..<800: return 0.68
            case ..<2000: return 0.52
            default: return 0.36
            }
        }
    }

    private(set) var days: [String: Day] = [:]

    /// Counts `entry` on its local day (entries come in the book's order).
    mutating func add(_ entry: Entry) {
        let key = LocalDate(entry.created).dayKey
        var day = days[key] ?? Day(firstEntry: entry.id)
        day.characters += entry.title.count + entry.body.count + entry.media.reduce(0) { $0 + $1.transcript.count }
        day.voice = day.voice || entry.media.contains { $0.kind == .voice }
        day.photo = day.photo || entry.media.contains { $0.kind == .photo }
        days[key] = day
    }

    subscript(_ key: String) -> Day? { days[key] }

    /// The cells of `month` of `year`: each day's number, its key and its place in a grid of
    /// seven columns in reading order, weeks from `firstWeekday` (1 = Sunday … 7 = Saturday,
    /// as the book's locale starts them: Monday in Russia, Sunday in Japan, Saturday in Egypt).
    static func cells(year: Int, month: Int, firstWeekday: Int) -> [(day: Int, key: String, column: Int, row: Int)] {
        let first = daysFromCivil(year, month, 1)
        let weekday = Int(((first % 7) + 7 + 4) % 7)  // 1970-01-01 was a Thursday: Sunday = 0
        let offset = (weekday - (firstWeekday - 1) + 7) % 7
        return (1...daysIn(year, month)).map { day in
            let slot = offset + day - 1
            return (day, LocalDate(utcSeconds: (first + Int64(day - 1)) * 86_400).dayKey, slot % 7, slot / 7)
        }
    }

    /// The weekday initials over the grid's columns, in reading order.
    static func columnInitials(_ dates: BookDates) -> [String] {
        (0..<7).map { dates.weekdayInitials[(dates.firstWeekday - 1 + $0) % 7] }
    }

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func daysIn(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
