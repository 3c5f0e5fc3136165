import Foundation
import Testing
@testable import QuireStore
import QuireSupport

/// What a restore does most: records this store never saw, merged whole. Each entry's row is
/// written once with its fields (not made empty and then updated), its journal is there with
/// its name, and the newest change is kept as merges go, so no merge has to sort every clock.
@Suite struct MergeIntoNewStoreTests {
    let device = UUID().uuidString.lowercased()

    func change(_ record: RecordKind, _ id: String, _ field: String, _ value: JSONValue, _ tick: Int64) -> SyncChange {
        SyncChange(record: record, recordID: id, field: field, value: value,
                   hlc: HLC(milliseconds: 1_700_000_000_000, counter: tick), device: device,
                   previousHLC: HLC(rawValue: 0), previousDevice: "")
    }

    func entry(_ id: String, journal: String?, title: String, tick: Int64) -> [SyncChange] {
        (journal.map { [change(.entry, id, "journal", .string($0), tick)] } ?? []) + [
            change(.entry, id, "title", .string(title), tick + 1),
            change(.entry, id, "created", .string("2024-03-01T08:30:00+05:30"), tick + 2),
            change(.entry, id, "modified", .string("2024-03-01T03:00:00Z"), tick + 3),
            change(.entry, id, "tag:море", .bool(true), tick + 4),
        ]
    }

    @Test func anEntryNewHereIsWrittenWholeInTheDefaultJournalWithItsName() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        let first = UUID().uuidString.lowercased(), second = UUID().uuidString.lowercased()
        // The first names the default journal itself before anything made its row.
        let journal = RecordSchema.journalID(named: Store.defaultJournal)
        _ = try store.merge(entry(first, journal: journal, title: "Утро", tick: 1) + entry(second, journal: nil, title: "朝", tick: 10))

        for (id, title) in [(first, "Утро"), (second, "朝")] {
            let read = try #require(try store.entry(id: id))
            #expect(read.title == title)
            #expect(read.journal == Store.defaultJournal)
            #expect(read.created.microseconds == 1_709_262_000_000_000)
            #expect(read.tags == ["море"])
        }
    }

    @Test func theNewestChangeIsKeptFromTheFirstMergeAndNeverGoesBack() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        #expect(try store.recordedNewestChange() == nil)
        _ = try store.merge(entry(UUID().uuidString.lowercased(), journal: nil, title: "a", tick: 20))
        let kept = try #require(try store.recordedNewestChange())
        #expect(kept.clock == HLC(milliseconds: 1_700_000_000_000, counter: 24))
        #expect(kept.device == device)

        // An older change merged later leaves it; a newer one moves it.
        _ = try store.merge(entry(UUID().uuidString.lowercased(), journal: nil, title: "b", tick: 1))
        #expect(try store.recordedNewestChange() == kept)
        _ = try store.merge(entry(UUID().uuidString.lowercased(), journal: nil, title: "c", tick: 40))
        #expect(try store.recordedNewestChange()?.clock == HLC(milliseconds: 1_700_000_000_000, counter: 44))
        #expect(try store.newestChange() == store.recordedNewestChange())
    }

    /// A field met twice in one record's run is compared with what was written before it,
    /// however many fields come first: the older write loses, wherever it stands in the log.
    @Test(arguments: [3, 40])
    func aFieldMetTwiceInOneRunIsComparedNotWrittenBlindly(tagsBefore: Int) throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        let id = UUID().uuidString.lowercased()
        var changes = entry(id, journal: nil, title: "Утро", tick: 1000)
        changes += (0..<tagsBefore).map { change(.entry, id, "tag:t\($0)", .bool(true), 2000 + Int64($0)) }
        // The same tag and title again, written before the ones above: they lose.
        changes.append(change(.entry, id, "tag:море", .bool(false), 10))
        changes.append(change(.entry, id, "title", .string("older"), 11))
        _ = try store.merge(changes)

        let read = try #require(try store.entry(id: id))
        #expect(read.title == "Утро")
        #expect(read.tags.count == tagsBefore + 1)
        #expect(read.tags.contains("море"))
    }
}
