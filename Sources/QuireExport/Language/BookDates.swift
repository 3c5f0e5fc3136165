import Foundation
import QuireStore

/// Dates, durations and numbers as a book's language writes them, from CLDR (the ICU data
/// Foundation carries): month headings ("Март 2025 г.", "2025年3月"), an entry's day and
/// time, weekday initials, digits (ar-EG writes ٢٠٢٥). Always the Gregorian calendar, whatever
/// the locale's own (ar-SA's is Islamic), and always the wall-clock time an entry was written
/// at, given as a `LocalDate`: nothing depends on the machine's time zone or locale.
///
/// Linux's Foundation has no `DateFormatter.formattingContext`: headings are capitalised
/// through `Date.FormatStyle`'s capitalisation context instead, which follows CLDR's
/// context transforms (ru "март" stands as "Март" in a heading, stays "марта" in a date).
package final class BookDates: Sendable {
    package let locale: Locale
    /// Standalone month names as a heading shows them, January first.
    package let monthNames: [String]
    /// One- or two-letter weekday names for a calendar, Sunday first.
    package let weekdayInitials: [String]
    /// The weekday a week starts on in this locale: 1 = Sunday … 7 = Saturday.
    package let firstWeekday: Int

    private let calendar: Calendar
    private let heading: Date.FormatStyle
    private let inline: Date.FormatStyle

    package init(locale: Locale) {
        self.locale = locale
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        calendar.locale = locale
        self.calendar = calendar
        firstWeekday = calendar.firstWeekday
        inline = Date.FormatStyle(date: .omitted, time: .omitted, locale: locale, calendar: calendar, timeZone: calendar.timeZone)
        heading = Date.FormatStyle(date: .omitted, time: .omitted, locale: locale, calendar: calendar, timeZone: calendar.timeZone,
                                   capitalizationContext: .beginningOfSentence)
        let names = heading.month(.wide), initials = inline.weekday(.narrow)
        func day(_ month: Int, _ day: Int) -> Date {
            calendar.date(from: DateComponents(year: 2025, month: month, day: day, hour: 12)) ?? Date(timeIntervalSince1970: 0)
        }
        monthNames = (1...12).map { names.format(day($0, 1)) }
        weekdayInitials = (0..<7).map { initials.format(day(6, 1 + $0)) }  // 1 June 2025 was a Sunday
    }

    /// The instant whose UTC wall clock is `local`'s (formatted in UTC, it reads as `local`).
    private func date(_ local: LocalDate) -> Date {
        calendar.date(from: DateComponents(year: local.year, month: local.month, day: local.day,
                                           hour: local.hour, minute: local.minute, second: local.second)) ?? Date(timeIntervalSince1970: 0)
    }

    private func date(year: Int, month: Int) -> Date {
        calendar.date(from: DateComponents(year: year, month: month, day: 1, hour: 12)) ?? Date(timeIntervalSince1970: 0)
    }

    /// `March 2025`, `Март 2025 г.`, `2025年3月`: a month as a heading.
    package func monthTitle(year: Int, month: Int) -> String { heading.month(.wide).year().format(date(year: year, month: month)) }

    /// `March – October 2025`, `Март — октябрь 2025 г.`, `2025年3月～2026年2月`: the months a
    /// book spans, as CLDR's interval formats join them (its first letter capitalised, as a
    /// heading starts; Linux's interval style takes no capitalisation context).
    package func monthRange(from first: (year: Int, month: Int), to last: (year: Int, month: Int)) -> String {
        guard first != last else { return monthTitle(year: first.year, month: first.month) }
        let style = Date.IntervalFormatStyle(date: .omitted, time: .omitted, locale: locale, calendar: calendar, timeZone: calendar.timeZone)
        let text = (date(year: first.year, month: first.month)..<date(year: last.year, month: last.month)).formatted(style.month(.wide).year())
        guard let head = text.first else { return text }
        return String(head).uppercased(with: locale) + text.dropFirst()
    }

    /// `March`, `Март`, `3月`.
    package func monthName(_ month: Int) -> String { monthNames[max(1, min(12, month)) - 1] }

    /// `2025`, or `٢٠٢٥` where the locale writes other digits.
    package func year(_ year: Int) -> String { inline.year().format(date(year: year, month: 6)) }

    /// `Saturday, March 1, 2025`, `Суббота, 1 марта 2025 г.`: a day as a heading.
    package func longDay(_ local: LocalDate) -> String { heading.weekday(.wide).day().month(.wide).year().format(date(local)) }

    /// The day and the time (`… at 9:14 PM`), or the day alone for a date-only entry.
    package func longDayAndTime(_ local: LocalDate) -> String {
        local.isDateOnly ? longDay(local) : heading.weekday(.wide).day().month(.wide).year().hour().minute().format(date(local))
    }

    /// `9:14 PM`, `21:14`: the clock as the locale reads it.
    package func clock(_ local: LocalDate) -> String { inline.hour().minute().format(date(local)) }

    /// `March 1`, `1 марта`, `3月1日`: a day inside a month's list.
    package func dayAndMonth(_ local: LocalDate) -> String { inline.day().month(.wide).format(date(local)) }

    /// A whole number as the locale writes it, without grouping (a page, a day of the month).
    package func number(_ value: Int) -> String { value.formatted(.number.grouping(.never).locale(locale)) }

    /// A count as the locale writes it, grouped (`1,234`, `1 234`).
    package func count(_ value: Int) -> String { value.formatted(.number.locale(locale)) }

    /// `0:04`, `1:02:03`: a recording's length or a time within it.
    package func duration(_ seconds: Double) -> String {
        let whole = Int64(Media.wholeSeconds(seconds))
        let pattern: Duration.TimeFormatStyle.Pattern = whole >= 3600 ? .hourMinuteSecond : .minuteSecond
        return Duration.seconds(whole).formatted(.time(pattern: pattern).locale(locale))
    }
}
