import Foundation
import Testing
@testable import QuireSync

/// The pull is planned from the heads' names and the store's positions alone: tested here
/// without a server.
@Suite struct PullPlanTests {
    let a = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", b = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"

    func plan(_ heads: [String: [Int]], _ logs: [String: Int], snapshot: Bool = true, adopted: Bool = false) throws -> PullPlan {
        try PullPlan(heads: heads, logs: logs.mapValues { ($0, "h") }, mayStartFromSnapshot: snapshot, location: "file:///r",
                     afterSnapshot: adopted, maxNewSegments: 1000)
    }

    @Test func eachLogIsFetchedFromAfterItsPositionToItsNewestHead() throws {
        let p = try plan([a: [3, 5], b: [2]], [a: 1, b: 2])
        #expect(p.ranges == [PullPlan.Range(device: a, seqs: 2...5)] && p.segmentCount == 4 && !p.startsFromSnapshot)
        #expect(try plan([a: [5]], [a: 5]).ranges.isEmpty)  // nothing new: nothing to fetch
        #expect(try plan([:], [:]).ranges.isEmpty)  // a new repository
    }

    @Test func aNewStoreStartsFromASnapshotAndThenReplaysWhatItLacks() throws {
        let first = try plan([a: [9], b: [4]], [:])
        #expect(first.startsFromSnapshot && first.segmentCount == 13)
        // After adopting a snapshot that covered a to 7 and b to 6 (ahead of b's head).
        let then = try plan([a: [9], b: [4]], [a: 7, b: 6], snapshot: false, adopted: true)
        #expect(!then.startsFromSnapshot && then.ranges == [PullPlan.Range(device: a, seqs: 8...9)])
        #expect(try !plan([a: [9]], [:], snapshot: false).startsFromSnapshot)
    }

    @Test func whatTheServerCannotTruthfullyShowIsRefusedByName() throws {
        #expect { try plan([:], [a: 3]) } throws: { ($0 as? SyncError)?.kind == .emptied }
        #expect { try plan([b: [1]], [a: 3]) } throws: { ($0 as? SyncError)?.object == "heads/\(a).3" }
        #expect { try plan([a: [2]], [a: 3]) } throws: { e in
            (e as? SyncError)?.kind == .rolledBack && (e as? SyncError)?.object == "heads/\(a).2"
        }
        // A forged head: an error, never a walk over a billion numbers.
        #expect { try plan([a: [Int.max]], [a: 3]) } throws: { ($0 as? SyncError)?.kind == .damaged }
        #expect(try plan([a: [1002]], [a: 3]).segmentCount == 999)
    }
}
