import Foundation
import QuireStore

/// How much one segment may hold: `changesPerSegment` changes, and changes of about half the
/// server's body limit (a segment is compressed, then padded by under 2 %: even JSON that
/// does not compress fits with room to spare), or of `defaultBytes` without a known limit,
/// so a reader decodes no more than that of one segment unless one record is larger (it
/// refuses more than `WireCompression.limit`).
struct SegmentBudget {
    let changes: Int64?
    static let defaultBytes: Int64 = 16 << 20

    init(limit: Int64?) {
        changes = limit.map { min($0 / 2, Self.defaultBytes) } ?? Self.defaultBytes
    }

    /// About what a change takes in a segment: its value's JSON and its ids and clocks.
    static func estimate(_ change: SyncChange) -> Int64 {
        let value = change.value.string.map { $0.utf8.count + 2 } ?? JSONWriter.value(change.value).utf8.count
        return Int64(value + change.recordID.utf8.count + change.field.utf8.count + 160)
    }
}

/// How full the segment being built is, decided without I/O: the push adds whole records
/// while `hasRoom`, then seals what it has. A segment ends at its change limit or (under a
/// server body limit) when its changes are big enough. Attachments travel in packs, never
/// in segments, so they take no room here.
struct SegmentFill {
    let budget: SegmentBudget
    let maxChanges: Int
    private(set) var changes = 0
    private(set) var changeBytes: Int64 = 0

    init(budget: SegmentBudget, maxChanges: Int) {
        self.budget = budget
        self.maxChanges = maxChanges
    }

    var hasRoom: Bool {
        changes < maxChanges && changeBytes < budget.changes ?? .max
    }

    /// A record's changes went in.
    mutating func add(_ records: [SyncChange]) {
        changes += records.count
        if budget.changes != nil { changeBytes += records.reduce(0) { $0 + SegmentBudget.estimate($1) } }
    }
}
