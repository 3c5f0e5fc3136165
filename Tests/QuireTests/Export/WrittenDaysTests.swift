import Foundation
import Testing
@testable import QuireExport
@testable import QuireStore

/// The calendar's record of the days written on, kept small for a lifetime's journal: ids
/// as numbers where they are UUIDs, days in an ordered array.
@Suite struct WrittenDaysTests {
    func entry(_ id: String, _ created: String, body: String = "", media: [Media] = []) throws -> Entry {
        let time = try #require(Timestamp(rfc3339: created))
        return Entry(id: id, journal: "Journal", title: "", body: body, created: time, modified: time,
                     tags: [], starred: false, location: nil, media: media)
    }

    @Test(arguments: ["0a1b2c3d-4e5f-6789-abcd-ef0123456789", "00000000-0000-0000-0000-000000000000",
                      "ffffffff-ffff-ffff-ffff-ffffffffffff", "0A1B2C3D-4E5F-6789-ABCD-EF0123456789",
                      "dayone-5F3A", "", "0a1b2c3d4e5f6789abcdef0123456789abcd", "дневник-2024-03-01"])
    func anIDComesBackAsItWasGiven(id: String) {
        #expect(CompactID(id).text == id)
        #expect(CompactID(id) == CompactID(id))
    }

    @Test func differentIDsStayDifferent() {
        let ids = ["0a1b2c3d-4e5f-6789-abcd-ef0123456789", "0a1b2c3d-4e5f-6789-abcd-ef012345678a",
                   "0A1B2C3D-4E5F-6789-ABCD-EF0123456789", "1a1b2c3d-4e5f-6789-abcd-ef0123456789"]
        #expect(Set(ids.map(CompactID.init)).count == ids.count)
    }

    /// The book's entries numbered for links: every id the book holds is found, each with its
    /// own number, UUIDs and other ids alike; an id it does not hold is not.
    @Test func everyEntryOfTheBookIsFoundByItsID() {
        let ids = (0..<500).map { String(format: "%08x-4e5f-6789-abcd-ef01234567%02x", $0 * 7919 % 100_003, $0 % 256) }
            + ["dayone-5F3A", "дневник-2024-03-01", "", "0A1B2C3D-4E5F-6789-ABCD-EF0123456789"]
        let index = EntryIndex(ids.shuffled().map(CompactID.init))
        #expect(index.count == ids.count)
        let numbers = ids.compactMap { index.number(of: $0) }
        #expect(numbers.count == ids.count && Set(numbers).count == ids.count && numbers.allSatisfy { (0..<ids.count).contains($0) })
        for missing in ["ffffffff-ffff-ffff-ffff-ffffffffffff", "dayone-5F3B", "0a1b2c3d-4e5f-6789-abcd-ef0123456789"] {
            #expect(index.number(of: missing) == nil, "\(missing)")
        }
        #expect(EntryIndex([]).number(of: "x") == nil)
    }

    @Test func eachLocalDayKeepsItsFirstEntryAndWhatWasWrittenOnIt() throws {
        var days = WrittenDays()
        // Local dates: 23:30 at +05:30 is still the 1st; the 2nd is skipped.
        try days.add(entry("a0000000-0000-0000-0000-000000000001", "2024-03-01T08:00:00+05:30", body: String(repeating: "ж", count: 150)))
        try days.add(entry("a0000000-0000-0000-0000-000000000002", "2024-03-01T23:30:00+05:30", body: String(repeating: "x", count: 100)))
        try days.add(entry("imported-7", "2024-03-03T07:00:00-09:30"))
        // One out of order (never in a book's order) still lands on its day.
        try days.add(entry("a0000000-0000-0000-0000-000000000003", "2023-12-31T10:00:00Z"))

        let first = WrittenDays.daysFromCivil(2024, 3, 1)
        let one = try #require(days[first])
        #expect(one.firstEntry == "a0000000-0000-0000-0000-000000000001")
        #expect(one.characters == 250)
        #expect(one.shade == 0.68)
        #expect(days[first + 1] == nil)
        #expect(days[first + 2]?.firstEntry == "imported-7")
        #expect(days[WrittenDays.daysFromCivil(2023, 12, 31)]?.firstEntry == "a0000000-0000-0000-0000-000000000003")
        #expect(days.days.map(\.number) == days.days.map(\.number).sorted())

        // The calendar's cells carry the same keys.
        let march = WrittenDays.cells(year: 2024, month: 3, firstWeekday: 2)
        #expect(march.first?.key == first)
        #expect(march.filter { days[$0.key] != nil }.map(\.day) == [1, 3])
    }
}
