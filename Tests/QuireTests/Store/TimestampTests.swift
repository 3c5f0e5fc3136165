import Foundation
import Testing
@testable import QuireStore

@Suite struct TimestampTests {
    @Test(arguments: [
        ("2025-03-01T21:14:05+03:00", "2025-03-01T21:14:05+03:00", Int64(1_740_852_845_000_000)),
        ("2025-03-01T21:14:05.123456+05:30", "2025-03-01T21:14:05.123456+05:30", Int64(1_740_843_845_123_456)),
        ("2025-03-01t21:14:05.5-09:30", "2025-03-01T21:14:05.5-09:30", Int64(1_740_897_845_500_000)),
        ("1969-12-31T23:59:59Z", "1969-12-31T23:59:59Z", Int64(-1_000_000)),
        ("2024-02-29 00:00:00z", "2024-02-29T00:00:00Z", Int64(1_709_164_800_000_000)),
        ("2025-03-01T21:14:05.123456789Z", "2025-03-01T21:14:05.123456789Z", Int64(1_740_863_645_123_456)),
    ])
    func parsesAndKeepsTheOffset(input: String, text: String, micros: Int64) throws {
        let t = try #require(Timestamp(rfc3339: input))
        #expect(t.text == text)
        #expect(t.microseconds == micros)
    }

    @Test(arguments: ["2025-02-29T00:00:00Z", "2025-13-01T00:00:00Z", "2025-03-01T24:00:00Z", "2025-03-01T21:14:05",
                      "2025-03-01T21:14:05+3:00", "2025-03-01T21:14:05+03:00x", "", "yesterday", "2025-03-01T21:14:05.+03:00",
                      "2025-03-01T21:14:05+24:00", "２０２５-03-01T21:14:05Z"])
    func refusesWhatIsNotRFC3339(input: String) {
        #expect(Timestamp(rfc3339: input) == nil)
    }

    @Test func formatsMomentsAtAnOffset() {
        let t = Timestamp(microseconds: 1_740_852_845_250_000, offsetSeconds: -(9 * 3600 + 30 * 60))
        #expect(t.text == "2025-03-01T08:44:05.250-09:30")
        #expect(Timestamp(microseconds: -1, offsetSeconds: 0).text == "1969-12-31T23:59:59.999999Z")
    }

    @Test func ordersByInstantNotText() {
        let a = ts("2025-03-01T23:00:00+05:30")  // 17:30Z
        let b = ts("2025-03-01T18:00:00Z")
        #expect(a < b)
    }

    @Test func lenientDatesForFilters() throws {
        let day = try #require(Timestamp.parseLenient("2025-03-01"))
        let end = try #require(Timestamp.parseLenient("2025-03-01", endOfDay: true))
        #expect(end.microseconds - day.microseconds == 86_400_000_000 - 1)
        #expect(Timestamp.parseLenient("March 1st 2025") == day)
        #expect(Timestamp.parseLenient("Marhc 1") == nil)
    }

    /// The words a jrnl user types, read against a fixed "now": Friday 2026-12-04 14:00 in Berlin.
    @Test(arguments: [
        ("yesterday 21:30", "2026-12-03T21:30:00+01:00"),
        ("yesterday at 9pm", "2026-12-03T21:00:00+01:00"),
        ("Yesterday at 9:15 p.m.", "2026-12-03T21:15:00+01:00"),
        ("today 21:30", "2026-12-04T21:30:00+01:00"),
        ("21:30", "2026-12-04T21:30:00+01:00"),
        ("7am", "2026-12-04T07:00:00+01:00"),
        ("today at noon", "2026-12-04T12:00:00+01:00"),
        ("Dec 2", "2026-12-02T00:00:00+01:00"),
        ("dec 25", "2025-12-25T00:00:00+01:00"),  // not after today: last year's
        ("2 December 2026", "2026-12-02T00:00:00+01:00"),
        ("December 2nd, 2026 at 8:05", "2026-12-02T08:05:00+01:00"),
        ("29 feb 2024", "2024-02-29T00:00:00+01:00"),
        ("a week ago", "2026-11-27T00:00:00+01:00"),
        ("3 days ago", "2026-12-01T00:00:00+01:00"),
        ("an hour ago", "2026-12-04T13:00:00+01:00"),
        ("friday", "2026-12-04T00:00:00+01:00"),
        ("last friday", "2026-11-27T00:00:00+01:00"),
        ("last mon 18:00", "2026-11-30T18:00:00+01:00"),
        ("2026-07-01 at 9pm", "2026-07-01T21:00:00+02:00"),
    ])
    func wordsPeopleTypeAreRead(text: String, expected: String) throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let now = try #require(Timestamp(rfc3339: "2026-12-04T14:00:00+01:00"))
        let date = Date(timeIntervalSince1970: Double(now.microseconds) / 1_000_000)
        #expect(Timestamp.parseLenient(text, now: date, zone: berlin)?.text == expected, "\(text)")
    }

    @Test(arguments: ["29 feb 2025", "yesterday 25:00", "13pm", "Dec 32", "at 9pm yesterday", "sometime", "2", "next week", ""])
    func wordsThatNameNoDayAreRefused(text: String) throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        #expect(Timestamp.parseLenient(text, now: Date(timeIntervalSince1970: 1_796_389_200), zone: berlin) == nil, "\(text)")
    }

    @Test func aDayWithoutATimeIsDateOnlyAndEndOfDayTakesItAll() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let now = Date(timeIntervalSince1970: 1_796_389_200)
        #expect(Timestamp.parseLenient("Dec 2", now: now, zone: berlin)?.isDateOnly == true)
        #expect(Timestamp.parseLenient("yesterday 21:30", now: now, zone: berlin)?.isDateOnly == false)
        #expect(Timestamp.parseLenient("Dec 2", endOfDay: true, now: now, zone: berlin)?.text == "2026-12-02T23:59:59.999999+01:00")
    }
}

@Suite struct ClockTests {
    @Test func hybridClockNeverGoesBackwards() {
        var last = HLC.zero
        var issued: [HLC] = []
        for wall in [1000, 2000, 1500, 1500, 500, 2000, 2001] as [Int64] {
            last = HLC.next(after: last, wallMilliseconds: wall)
            issued.append(last)
        }
        #expect(issued == issued.sorted())
        #expect(Set(issued).count == issued.count)
        #expect(issued[2] == HLC(milliseconds: 2000, counter: 1))
        #expect(issued[6] == HLC(milliseconds: 2001, counter: 0))
    }

    @Test func counterOverflowMovesTheMillisecond() {
        let full = HLC(milliseconds: 10, counter: 0xffff)
        #expect(HLC.next(after: full, wallMilliseconds: 5) == HLC(milliseconds: 11, counter: 0))
    }

    @Test func receiveIsLaterThanBoth() {
        let local = HLC(milliseconds: 100, counter: 3)
        let remote = HLC(milliseconds: 200, counter: 7)
        #expect(HLC.receive(remote, last: local, wallMilliseconds: 50) == HLC(milliseconds: 200, counter: 8))
    }

    @Test func storeClockSurvivesTheWallClockGoingBack() throws {
        let dir = TempDir()
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let first = try store.add(NewEntry(title: "one"))
        let after1 = try store.lastClock()
        clock.advance(-3600)  // the wall clock jumps back an hour
        try store.edit(entryID: first.id, EntryEdit(title: "two"))
        let after2 = try store.lastClock()
        #expect(after2 > after1)
        // And after reopening, the persisted clock still leads.
        let reopened = try Store(folder: store.folder, options: Store.Options(clock: clock.wallClock))
        try reopened.edit(entryID: first.id, EntryEdit(title: "three"))
        #expect(try reopened.lastClock() > after2)
        let clocks = try reopened.changes(since: .zero).filter { $0.field == "title" }
        let last = try reopened.lastClock()
        #expect(clocks.count == 1 && clocks[0].hlc == last)
    }
}
