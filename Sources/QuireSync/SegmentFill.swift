import Foundation
import QuireStore

/// How much one segment may hold. Without a known server body limit: `changesPerSegment`
/// changes and 1 MiB of inline attachments. Under a limit, the segment's encoded size stays
/// near three quarters of it (padding adds at most 12 %): half for changes, and inline
/// attachments in a third (base64 makes them a third larger).
struct SegmentBudget {
    let isLimited: Bool
    let inline: Int64
    let inlineLimit: Int64
    let changes: Int64

    init(limit: Int64?) {
        guard let limit else {
            (isLimited, inline, inlineLimit, changes) = (false, LogSegment.inlineBudget, LogSegment.inlineLimit, .max)
            return
        }
        let room = limit * 3 / 4
        isLimited = true
        inline = min(LogSegment.inlineBudget, room / 3)
        inlineLimit = min(LogSegment.inlineLimit, inline)
        changes = room / 2
    }

    /// About what a change takes in a segment: its value's JSON and its ids and clocks.
    static func estimate(_ change: SyncChange) -> Int64 {
        Int64(JSONWriter.value(change.value).utf8.count + change.recordID.utf8.count + change.field.utf8.count + 160)
    }
}

/// How full the segment being built is, decided without I/O: the push adds whole records
/// while `hasRoom`, then seals what it has. A segment ends at its change limit, when its
/// inline budget could not take one more small attachment, or (under a server body limit)
/// when its changes are big enough.
struct SegmentFill {
    let budget: SegmentBudget
    let maxChanges: Int
    private(set) var changes = 0
    private(set) var changeBytes: Int64 = 0
    private(set) var inlineBytes: Int64 = 0

    init(budget: SegmentBudget, maxChanges: Int) {
        self.budget = budget
        self.maxChanges = maxChanges
    }

    var hasRoom: Bool {
        changes < maxChanges && inlineBytes + budget.inlineLimit <= budget.inline && changeBytes < budget.changes
    }

    /// A record's changes went in.
    mutating func add(_ records: [SyncChange]) {
        changes += records.count
        if budget.isLimited { changeBytes += records.reduce(0) { $0 + SegmentBudget.estimate($1) } }
    }

    /// A small attachment of `bytes` rides inside.
    mutating func carry(_ bytes: Int) { inlineBytes += Int64(bytes) }
}
