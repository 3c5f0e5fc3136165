import QuireStore

/// What each day of a book holds, for the calendar that opens each of its years (in the PDF
/// as vector drawing, in the EPUB as an SVG page): how much was written, whether a voice note
/// or a photo is there, and the day's first entry, which the day's cell links to.
struct WrittenDays {
    struct Day {
        /// Days since 1970-01-01 of the local date.
        let number: Int64
        fileprivate let first: CompactID
        var characters = 0
        var voice = false
        var photo = false

        /// The id of the day's first entry, which its cell links to.
        var firstEntry: String { first.text }
        var firstEntryID: CompactID { first }

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

    /// The days written on, in order: a book of 100,000 days held them in a dictionary keyed
    /// by their dates' text, with every id a string, at 21 MB of heap.
    private(set) var days: [Day] = []

    /// Counts `entry` on its local day (entries come in the book's order: the days ascend).
    mutating func add(_ entry: Entry) {
        let date = LocalDate(entry.created)
        let number = Self.daysFromCivil(date.year, date.month, date.day)
        // In a book's order the days ascend, so the place is the end (found in 17 steps at 100,000).
        let index = position(of: number)
        if index == days.count || days[index].number != number { days.insert(Day(number: number, first: CompactID(entry.id)), at: index) }
        days[index].characters += entry.title.count + entry.body.count + entry.media.reduce(0) { $0 + $1.transcript.count }
        days[index].voice = days[index].voice || entry.media.contains { $0.kind == .voice }
        days[index].photo = days[index].photo || entry.media.contains { $0.kind == .photo }
    }

    /// The day `number` days after 1970-01-01, if anything was written on it.
    subscript(_ number: Int64) -> Day? {
        let place = position(of: number)
        return place < days.count && days[place].number == number ? days[place] : nil
    }

    /// Where day `number` is or would go.
    private func position(of number: Int64) -> Int {
        var low = 0, high = days.count
        while low < high {
            let middle = (low + high) / 2
            if days[middle].number < number { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The cells of `month` of `year`: each day's number, its key (days since 1970-01-01) and
    /// its place in a grid of seven columns in reading order, weeks from `firstWeekday`
    /// (1 = Sunday … 7 = Saturday, as the book's locale starts them: Monday in Russia, Sunday
    /// in Japan, Saturday in Egypt).
    static func cells(year: Int, month: Int, firstWeekday: Int) -> [(day: Int, key: Int64, column: Int, row: Int)] {
        let first = daysFromCivil(year, month, 1)
        let weekday = Int(((first % 7) + 7 + 4) % 7)  // 1970-01-01 was a Thursday: Sunday = 0
        let offset = (weekday - (firstWeekday - 1) + 7) % 7
        return (1...daysIn(year, month)).map { day in
            let slot = offset + day - 1
            return (day, first + Int64(day - 1), slot % 7, slot / 7)
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
