import Foundation
import Testing
@testable import QuireStore
@testable import QuireSync

/// How a push cuts its records into segments, decided without a server.
@Suite struct SegmentFillTests {
    func entry(_ i: Int, body: Int = 10) -> [SyncChange] {
        ["title", "body"].map { field in
            SyncChange(record: .entry, recordID: "e\(i)", field: field, value: .string(String(repeating: "ж", count: body)),
                       hlc: HLC(rawValue: 1), device: "d")
        }
    }

    @Test func withoutALimitASegmentEndsAtItsChangeCount() {
        var fill = SegmentFill(budget: SegmentBudget(limit: nil), maxChanges: 5)
        var records = 0
        while fill.hasRoom { fill.add(entry(records)); records += 1 }
        #expect(records == 3 && fill.changes == 6)  // whole records: the one that crosses goes in
    }

    @Test func underABodyLimitASegmentEndsWhenItsChangesAreBigEnough() {
        let limit: Int64 = 1 << 20
        var fill = SegmentFill(budget: SegmentBudget(limit: limit), maxChanges: .max)
        var records = 0
        while fill.hasRoom { fill.add(entry(records, body: 4000)); records += 1 }
        // Half the limit, give or take the last record.
        #expect(fill.changeBytes >= limit / 2 && fill.changeBytes < limit / 2 + 2 * 8200)
        #expect(records > 20)
    }
}
