import Testing
@testable import QuireStore
@testable import QuireSync

/// What a prune may delete, decided without a server.
@Suite struct PrunePlanTests {
    @Test func everyLogIsPrunedOnlyAsFarAsEveryDeviceWithAHeadMergedIt() throws {
        let limits = try PrunePlan.limits(covered: ["a": 10, "b": 5, "c": 4], heads: [
            ("b", 7, "heads/b.7", ["a": .number(8), "c": .number(4)]),
            ("c", 4, "heads/c.4", ["a": .number(9), "b": .number(2)]),
        ])
        // a: this store 10, b merged 8, c 9; b: this store 5, its own head 7, c merged 2;
        // c: this store 4, b merged 4, its own head 4.
        #expect(limits == ["a": 8, "b": 2, "c": 4])
        // A device that never merged a log holds it whole.
        #expect(try PrunePlan.limits(covered: ["a": 10], heads: [("b", 3, "heads/b.3", [:])]) == ["a": 0])
        #expect(try PrunePlan.limits(covered: ["a": 10], heads: []) == ["a": 10])
    }

    @Test func aHeadWithoutPositionsStopsThePruneAndANegativeOneIsDamage() throws {
        #expect(try PrunePlan.limits(covered: ["a": 10], heads: [("b", 3, "heads/b.3", nil)]) == nil)
        #expect(throws: SyncError.self) {
            try PrunePlan.limits(covered: ["a": 10], heads: [("b", 3, "heads/b.3", ["a": .number(-1)])])
        }
        #expect(throws: SyncError.self) {
            try PrunePlan.limits(covered: ["a": 10], heads: [("b", 3, "heads/b.3", ["a": .string("7")])])
        }
    }

    @Test func anUnneededObjectGoesOnlyAfterTheGraceAndOnceEveryoneMovedOn() {
        let day = 86_400_000.0, now = 10 * day
        let marks = [
            "old-and-passed": GCMark(time: now - 2 * day, positions: ["a": 3]),
            "old-not-passed": GCMark(time: now - 2 * day, positions: ["a": 9]),
            "recent": GCMark(time: now - 1000, positions: ["a": 1]),
            "needed-again": GCMark(time: 0, positions: [:]),
        ]
        let plan = PrunePlan.collection(stored: ["old-and-passed", "old-not-passed", "recent", "needed-again", "unmarked"],
                                        referenced: ["needed-again"], marks: marks, limit: ["a": 5],
                                        positions: ["a": 5], now: now, grace: day)
        #expect(plan.delete == ["old-and-passed"])
        #expect(Set(plan.kept.keys) == ["old-not-passed", "recent", "unmarked"])
        // Seen unneeded for the first time: marked now, with this store's positions.
        #expect(plan.kept["unmarked"]?.time == now && plan.kept["unmarked"]?.positions == ["a": 5])
        #expect(plan.kept["old-not-passed"]?.time == now - 2 * day)
    }
}
