import Foundation

/// A moment as a person wrote it: RFC 3339 with its original UTC offset kept
/// (`2025-03-01T21:14:05.250+03:00`). `Date` has no offset, so this is its own type.
public struct Timestamp: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Canonical text: upper-case `T`, fraction as written (trailing zeros kept), `Z` or `±HH:MM`.
    public let text: String
    /// Microseconds since 1970-01-01T00:00:00Z (fractions below a microsecond are truncated).
    public let microseconds: Int64
    /// Offset from UTC in seconds.
    public let offsetSeconds: Int

    public var description: String { text }

    public static func < (a: Timestamp, b: Timestamp) -> Bool {
        (a.microseconds, a.text) < (b.microseconds, b.text)
    }

    /// Parses RFC 3339 (`YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`); `t`, `z` and a space
    /// instead of `T` are accepted. Returns nil for anything else, including impossible dates.
    public init?(rfc3339 input: String) {
        let b = Array(input.utf8)
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            i += n
            return v
        }
        func expect(_ char: UInt8, or other: UInt8? = nil, or third: UInt8? = nil) -> Bool {
            guard i < b.count, b[i] == char || b[i] == other || b[i] == third else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2),
              expect(84, or: 116, or: 32), let hour = digits(2), expect(58), let minute = digits(2), expect(58),
              let second = digits(2) else { return nil }
        var fraction = 0..<0
        if i < b.count && b[i] == 46 {
            i += 1
            let start = i
            while i < b.count && b[i] >= 48 && b[i] <= 57 { i += 1 }
            guard i > start, i - start <= 9 else { return nil }
            fraction = start..<i
        }
        var offset = 0
        guard i < b.count else { return nil }
        // As written, the text is already canonical unless its `T` or `Z` is another letter.
        var canonical = b[10] == 84
        if b[i] == 90 || b[i] == 122 {
            canonical = canonical && b[i] == 90
            i += 1
        } else if b[i] == 43 || b[i] == 45 {
            let sign = b[i] == 45 ? -1 : 1
            i += 1
            guard let oh = digits(2), expect(58), let om = digits(2), oh <= 23, om <= 59 else { return nil }
            offset = sign * (oh * 3600 + om * 60)
        } else {
            return nil
        }
        guard i == b.count,
              (1...9999).contains(year), (1...12).contains(month),
              (1...Self.daysIn(month: month, year: year)).contains(day),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        let days = Self.daysFromCivil(year: year, month: month, day: day)
        let localSeconds = Int64(days) * 86400 + Int64(hour * 3600 + minute * 60 + min(second, 59))
        var micros: Int64 = 0
        for k in 0..<6 { micros = micros * 10 + (k < fraction.count ? Int64(b[fraction.lowerBound + k] - 48) : 0) }
        self.microseconds = (localSeconds - Int64(offset)) * 1_000_000 + micros
        self.offsetSeconds = offset
        if canonical {
            self.text = input  // a merge's or an import's every date: kept, not built again
        } else {
            // Every part has its fixed width already: only the letters change.
            var text = b
            text[10] = 84
            if let last = text.indices.last, text[last] == 122 { text[last] = 90 }
            self.text = String(decoding: text, as: UTF8.self)
        }
    }

    /// The moment `microseconds` shown at `offsetSeconds`, with milliseconds when nonzero.
    package init(microseconds: Int64, offsetSeconds: Int) {
        let local = microseconds + Int64(offsetSeconds) * 1_000_000
        let seconds = Self.floorDiv(local, 1_000_000)
        let micros = local - seconds * 1_000_000
        let days = Self.floorDiv(seconds, 86400)
        let secondOfDay = Int(seconds - days * 86400)
        let (y, m, d) = Self.civil(fromDays: Int(days))
        var zone = "Z"
        if offsetSeconds != 0 {
            let sign = offsetSeconds < 0 ? "-" : "+"
            let a = abs(offsetSeconds)
            zone = sign + Self.pad(a / 3600, 2) + ":" + Self.pad((a % 3600) / 60, 2)
        }
        let fraction = micros == 0 ? "" : "." + Self.pad(Int(micros / 1000), 3) + (micros % 1000 == 0 ? "" : Self.pad(Int(micros % 1000), 3))
        let text = Self.pad(y, 4) + "-" + Self.pad(m, 2) + "-" + Self.pad(d, 2) + "T"
            + Self.pad(secondOfDay / 3600, 2) + ":" + Self.pad((secondOfDay % 3600) / 60, 2) + ":"
            + Self.pad(secondOfDay % 60, 2) + fraction + zone
        // Built from valid components, so parsing cannot fail; fall back defensively anyway.
        self = Timestamp(rfc3339: text) ?? Timestamp(unchecked: text, microseconds: microseconds, offset: offsetSeconds)
    }

    private init(unchecked text: String, microseconds: Int64, offset: Int) {
        self.text = text
        self.microseconds = microseconds
        self.offsetSeconds = offset
    }

    /// Now, at this machine's current UTC offset.
    public static func now(clock: () -> Date = Date.init) -> Timestamp {
        let date = clock()
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down))
        let offset = TimeZone.current.secondsFromGMT(for: date)
        return Timestamp(microseconds: micros - micros % 1000, offsetSeconds: offset)
    }

    /// Parses a date for filters and `--date`: RFC 3339, or `YYYY-MM-DD` (midnight at this
    /// machine's offset), or `YYYY-MM-DD[T| ]HH:MM[:SS]` without offset (this machine's
    /// offset), or words (`yesterday 21:30`, `last monday`, `Dec 2`, `a week ago`: see
    /// `DateWords`).
    package static func parseLenient(_ input: String, endOfDay: Bool = false, now: Date = Date(), zone: TimeZone = .current) -> Timestamp? {
        if let t = Timestamp(rfc3339: input) { return t }
        let text = input.trimmingCharacters(in: .whitespaces)
        if text.utf8.count == 10, text.dropFirst(4).first == "-" {
            return local(text + (endOfDay ? "T23:59:59.999999" : "T00:00:00"), in: zone)
        }
        if let t = local(text.replacingOccurrences(of: " ", with: "T"), in: zone) { return t }
        return DateWords(now: now, zone: zone).timestamp(text, endOfDay: endOfDay)
    }

    /// A wall-clock time without offset (`YYYY-MM-DDTHH:MM` or `…:SS[.fff]`) as it was read in
    /// `zone` that day: the instant, shown at that zone's offset then (a jrnl entry, an
    /// Obsidian daily note).
    package static func local(_ input: String, in zone: TimeZone) -> Timestamp? {
        let probe = input.utf8.count == 16 ? input + ":00Z" : input + "Z"
        guard input.utf8.count >= 16, let utc = Timestamp(rfc3339: probe) else { return nil }
        let wall = Date(timeIntervalSince1970: Double(utc.microseconds) / 1_000_000)
        // The offset at the instant itself: look once from the wall time, then from the guess.
        let guess = zone.secondsFromGMT(for: wall)
        let offset = zone.secondsFromGMT(for: wall.addingTimeInterval(-Double(guess)))
        return Timestamp(microseconds: utc.microseconds - Int64(offset) * 1_000_000, offsetSeconds: offset)
    }

    /// Exactly midnight at its own offset, to the microsecond: no time of day was given (a
    /// daily note, `--date 2025-03-01`). Books and exports show such an entry's date alone.
    public var isDateOnly: Bool {
        let local = microseconds + Int64(offsetSeconds) * 1_000_000
        let day: Int64 = 86_400_000_000
        return ((local % day) + day) % day == 0
    }

    /// `YYYY-MM-DD HH:MM` in the timestamp's own offset (how the writer saw the clock).
    package var localMinute: String {
        let t = Array(text.utf8)
        guard t.count >= 16 else { return text }
        return String(decoding: t[0..<10], as: UTF8.self) + " " + String(decoding: t[11..<16], as: UTF8.self)
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, after H. Hinnant's algorithms)

    static func pad(_ value: Int, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func civil(fromDays z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
