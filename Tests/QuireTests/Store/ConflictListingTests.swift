import Foundation
import Testing
@testable import QuireStore

/// Which conflicts a device lists must not depend on the order it took the writes in. Two
/// devices wrote the same text over one body, a third another text later: a device that
/// took them in that order saw the first lose to an equal text, and one that took the third
/// first saw both lose to a different one. Both must list the same text once, under the
/// same id, and dismissing it must dismiss it whole.
@Suite struct ConflictListingTests {
    struct Writes {
        let base: [SyncChange]
        let first: [SyncChange], second: [SyncChange], third: [SyncChange]
        let entryID: String
    }

    /// `thirdOverSecond`: the third device wrote over the second's text, having merged it.
    static func writes(_ dir: TempDir, thirdOverSecond: Bool = false) throws -> Writes {
        let clock = ManualClock()
        let a = try makeStore(dir, name: "a", clock: clock)
        let b = try makeStore(dir, name: "b", clock: clock)
        let c = try makeStore(dir, name: "c", clock: clock)
        let entry = try a.add(NewEntry(title: "Утро", body: "start"))
        let base = try a.pendingChanges().changes
        try a.markPushed(upTo: try a.pendingChanges().watermark)
        for store in [b, c] { try store.merge(base) }
        clock.advance(1)
        try a.edit(entryID: entry.id, EntryEdit(body: "the same words"))
        clock.advance(1)
        try b.edit(entryID: entry.id, EntryEdit(body: "the same words"))
        if thirdOverSecond { try c.merge(try b.pendingChanges().changes) }
        clock.advance(1)
        try c.edit(entryID: entry.id, EntryEdit(body: "other words"))
        return Writes(base: base, first: try a.pendingChanges().changes, second: try b.pendingChanges().changes,
                      third: try c.pendingChanges().changes, entryID: entry.id)
    }

    static func listed(_ store: Store) throws -> [String] {
        try store.conflicts().map { "\($0.id) \($0.field) \($0.value)" }
    }

    @Test func theConflictsListedDoNotDependOnTheOrderWritesCameIn() throws {
        let dir = TempDir()
        let writes = try Self.writes(dir)
        let inOrder = try makeStore(dir, name: "in-order"), thirdFirst = try makeStore(dir, name: "third-first")
        try inOrder.merge(writes.base)
        try thirdFirst.merge(writes.base)
        for changes in [writes.first, writes.second, writes.third] { try inOrder.merge(changes) }
        for changes in [writes.third, writes.first, writes.second] { try thirdFirst.merge(changes) }
        #expect(try inOrder.entry(id: writes.entryID)?.body == "other words")
        let listed = try Self.listed(inOrder)
        #expect(listed.count == 1 && listed.first?.hasSuffix("body the same words") == true, "\(listed)")
        #expect(try Self.listed(thirdFirst) == listed)
        // Dismissed, it is gone whole: no second copy of the same text takes its place.
        try thirdFirst.dismiss(try thirdFirst.conflicts()[0])
        #expect(try thirdFirst.conflicts().isEmpty)
    }

    /// The first write lost to an equal text where it came first; the one it lost to was
    /// then replaced by the third (which names it), so the first is a head holding a text the
    /// body no longer has: listed wherever it came, not only where it lost to a different one.
    @Test func aWriteThatLostToAnEqualTextIsListedOnceThatTextIsReplaced() throws {
        let dir = TempDir()
        let writes = try Self.writes(dir, thirdOverSecond: true)
        let inOrder = try makeStore(dir, name: "in-order"), thirdFirst = try makeStore(dir, name: "third-first")
        try inOrder.merge(writes.base)
        try thirdFirst.merge(writes.base)
        for changes in [writes.first, writes.second, writes.third] { try inOrder.merge(changes) }
        for changes in [writes.third, writes.first, writes.second] { try thirdFirst.merge(changes) }
        let listed = try Self.listed(inOrder)
        #expect(listed.count == 1 && listed.first?.hasSuffix("body the same words") == true, "\(listed)")
        #expect(try Self.listed(thirdFirst) == listed)
    }
}
