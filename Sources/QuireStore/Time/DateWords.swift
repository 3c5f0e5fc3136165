import Foundation

/// The words people give a date in, as jrnl users type them: a day, a time of day, or both
/// (`yesterday 21:30`, `yesterday at 9pm`, `today 21:30`, `21:30`, `Dec 2`, `2 December 2026`,
/// `last friday`, `a week ago`, `3 hours ago`, `now`).
///
/// - A day is `today`, `yesterday`, `tomorrow`, a weekday (`monday`: the latest one, today
///   included; `last monday`: the one before today), `last week|month|year`, `N days|weeks|
///   months|years ago` (`a`/`an` for one), a month and a day in either order with or without a
///   year (`Dec 2`, `2nd December`, `December 2, 2026`; without a year, the latest such day
///   that is not after today), or `YYYY-MM-DD`.
/// - A time is `21:30`, `21:30:15`, `9pm`, `9:30 pm`, `9 a.m.` or `noon`, after the day and an
///   optional `at`; alone it means today.
/// - A day without a time means the day itself: its start (a date-only entry), or with
///   `endOfDay` its last microsecond, so `--to yesterday` takes in all of yesterday.
/// English words only; anything else is nil.
struct DateWords {
    let now: Date
    let zone: TimeZone

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    static let weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
    static let months = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
                         "october", "november", "december"]

    /// A calendar day.
    struct Day: Equatable { var year: Int, month: Int, day: Int }
    /// A time of day.
    struct Clock: Equatable { var hour: Int, minute: Int, second: Int }

    func timestamp(_ input: String, endOfDay: Bool) -> Timestamp? {
        var tokens = input.lowercased().replacingOccurrences(of: ",", with: " ").split(separator: " ").map(String.init)
        if tokens == ["now"] { return instant(now) }
        if let exact = agoInstant(tokens) { return exact }
        let time = Self.trailingClock(&tokens)
        if tokens.last == "at" { tokens.removeLast() }
        if time != nil && tokens.isEmpty { tokens = ["today"] }
        guard let day = day(tokens) else { return nil }
        let date = String(format: "%04d-%02d-%02d", day.year, day.month, day.day)
        if let time {
            return Timestamp.local(date + String(format: "T%02d:%02d:%02d", time.hour, time.minute, time.second), in: zone)
        }
        return Timestamp.local(date + (endOfDay ? "T23:59:59.999999" : "T00:00:00"), in: zone)
    }

    private func instant(_ date: Date) -> Timestamp {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        return Timestamp(microseconds: micros, offsetSeconds: zone.secondsFromGMT(for: date))
    }

    /// `3 hours ago`, `an hour ago`, `20 minutes ago`: an instant, not a day.
    private func agoInstant(_ tokens: [String]) -> Timestamp? {
        guard tokens.count == 3, tokens[2] == "ago", let n = Self.count(tokens[0]) else { return nil }
        let unit = tokens[1].hasSuffix("s") ? String(tokens[1].dropLast()) : tokens[1]
        let seconds: [String: Double] = ["minute": 60, "min": 60, "hour": 3600]
        guard let each = seconds[unit] else { return nil }
        return instant(now.addingTimeInterval(-Double(n) * each))
    }

    /// `3`, `a`, `an`, `one`: how many, below 100,000.
    static func count(_ token: String) -> Int? {
        if ["a", "an", "one"].contains(token) { return 1 }
        guard let n = Int(token), (0..<100_000).contains(n) else { return nil }
        return n
    }

    /// Takes a time of day off the end of `tokens`: `21:30`, `9pm`, `9:30 pm`, `9 a.m.`, `noon`.
    static func trailingClock(_ tokens: inout [String]) -> Clock? {
        guard let last = tokens.last else { return nil }
        if last == "noon" {
            tokens.removeLast()
            return Clock(hour: 12, minute: 0, second: 0)
        }
        var text = last
        var taken = 1
        if ["am", "pm", "a.m.", "p.m."].contains(last), tokens.count >= 2 {
            text = tokens[tokens.count - 2] + last
            taken = 2
        }
        guard let clock = clock(text) else { return nil }
        tokens.removeLast(taken)
        return clock
    }

    /// One token's time of day: `21:30[:15]` (24-hour) or `9[:30[:15]]pm` (12-hour).
    static func clock(_ text: String) -> Clock? {
        var body = Substring(text)
        var half: Character?
        for suffix in ["a.m.", "p.m.", "am", "pm"] where body.hasSuffix(suffix) {
            half = suffix.first
            body = body.dropLast(suffix.count)
            break
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy(\.isASCII) }),
              let hour = Int(parts[0]) else { return nil }
        let minute = parts.count > 1 ? Int(parts[1]) : 0
        let second = parts.count > 2 ? Int(parts[2]) : 0
        guard let minute, let second, (0...59).contains(minute), (0...59).contains(second),
              parts.dropFirst().allSatisfy({ $0.count == 2 }) else { return nil }
        if let half {
            guard (1...12).contains(hour) else { return nil }
            return Clock(hour: hour % 12 + (half == "p" ? 12 : 0), minute: minute, second: second)
        }
        // A bare number is not a time (`2` in `Dec 2`); `21:30` is.
        guard parts.count > 1, (0...23).contains(hour) else { return nil }
        return Clock(hour: hour, minute: minute, second: second)
    }

    /// The day `tokens` name, or nil.
    func day(_ tokens: [String]) -> Day? {
        let today = calendar.startOfDay(for: now)
        func shifted(_ component: Calendar.Component, _ value: Int) -> Day? {
            calendar.date(byAdding: component, value: value, to: today).map(dayOf)
        }
        func weekdayBack(_ name: String, strictlyBefore: Bool) -> Day? {
            guard let target = Self.weekday(name) else { return nil }
            let back = (calendar.component(.weekday, from: today) - 1 - target + 7) % 7
            return shifted(.day, -(strictlyBefore && back == 0 ? 7 : back))
        }
        switch tokens.count {
        case 1:
            switch tokens[0] {
            case "today": return dayOf(today)
            case "yesterday": return shifted(.day, -1)
            case "tomorrow": return shifted(.day, 1)
            default:
                if let iso = Self.isoDay(tokens[0]) { return iso }
                return weekdayBack(tokens[0], strictlyBefore: false)
            }
        case 2 where tokens[0] == "last":
            switch tokens[1] {
            case "week": return shifted(.day, -7)
            case "month": return shifted(.month, -1)
            case "year": return shifted(.year, -1)
            default: return weekdayBack(tokens[1], strictlyBefore: true)
            }
        case 3 where tokens[2] == "ago":
            guard let n = Self.count(tokens[0]) else { return nil }
            let units: [String: Calendar.Component] = ["day": .day, "week": .weekOfYear, "month": .month, "year": .year]
            let unit = tokens[1].hasSuffix("s") ? String(tokens[1].dropLast()) : tokens[1]
            guard let component = units[unit] else { return nil }
            return shifted(component, -n)
        default:
            return monthAndDay(tokens, today: dayOf(today))
        }
    }

    /// `Dec 2`, `2 December`, `December 2nd 2026`, `2 Dec 2026`; without a year, the latest
    /// such day not after today.
    func monthAndDay(_ tokens: [String], today: Day) -> Day? {
        guard tokens.count == 2 || tokens.count == 3 else { return nil }
        var year: Int?
        if tokens.count == 3 {
            guard let y = Int(tokens[2]), (1...9999).contains(y), tokens[2].count == 4 else { return nil }
            year = y
        }
        let (month, dayNumber): (Int?, Int?) = Self.month(tokens[0]) != nil
            ? (Self.month(tokens[0]), Self.dayNumber(tokens[1]))
            : (Self.month(tokens[1]), Self.dayNumber(tokens[0]))
        guard let month, let dayNumber else { return nil }
        var candidate = Day(year: year ?? today.year, month: month, day: dayNumber)
        if year == nil, (candidate.month, candidate.day) > (today.month, today.day) { candidate.year -= 1 }
        return isReal(candidate) ? candidate : nil
    }

    private func dayOf(_ date: Date) -> Day {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return Day(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
    }

    private func isReal(_ day: Day) -> Bool {
        guard let date = calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day)) else { return false }
        return dayOf(date) == day
    }

    /// `2025-03-01`.
    static func isoDay(_ token: String) -> Day? {
        let parts = token.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), (1...12).contains(m), (1...31).contains(d)
        else { return nil }
        return Day(year: y, month: m, day: d)
    }

    /// `december`, `dec`, `sept`: 1…12.
    static func month(_ token: String) -> Int? {
        let name = token.hasSuffix(".") ? String(token.dropLast()) : token
        guard name.count >= 3 else { return nil }
        if name == "sept" { return 9 }
        return months.firstIndex { $0 == name || ($0.hasPrefix(name) && name.count == 3) }.map { $0 + 1 }
    }

    /// `2`, `2nd`, `21st`: 1…31.
    static func dayNumber(_ token: String) -> Int? {
        var digits = Substring(token)
        for suffix in ["st", "nd", "rd", "th"] where digits.hasSuffix(suffix) { digits = digits.dropLast(2) }
        guard (1...2).contains(digits.count), let n = Int(digits), (1...31).contains(n) else { return nil }
        return n
    }

    /// `monday`, `mon`, `tues`: 0 (Sunday) … 6.
    static func weekday(_ token: String) -> Int? {
        guard token.count >= 3 else { return nil }
        return weekdays.firstIndex { $0.hasPrefix(token) }
    }
}
