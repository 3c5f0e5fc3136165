import Foundation
import Testing
@testable import QuireStore
@testable import QuireSync

/// `renameJournal` and `renameTag`: what moves, what a second device sees after a sync, and
/// that a refused rename writes nothing.
@Suite struct RenameTests {
    func journalRows(_ store: Store) throws -> [String] {
        try store.database.prepare("SELECT name, deleted FROM journals ORDER BY name").rows { "\($0.text(0)) \($0.int(1))" }
    }

    /// Two journals that differ only in case (an import keeps names exactly, as a journal's id
    /// is made from its name) become one; a second device follows, and an entry it wrote
    /// meanwhile in the journal that went stays found by that journal's name.
    @Test func journalsThatDifferOnlyInCaseBecomeOne() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        let lines = [#"{"journal": "Travel", "created": "2025-03-01T10:00:00Z", "body": "Lisbon"}"#,
                     #"{"journal": "travel", "created": "2025-03-02T10:00:00Z", "body": "Porto"}"#,
                     #"{"journal": "Journal", "created": "2025-03-03T10:00:00Z", "body": "home"}"#]
        let file = world.dir.file("in.jsonl", lines.joined(separator: "\n") + "\n")
        _ = try a.importJSONLines(at: file)
        try world.sync(a)
        try world.sync(b)
        #expect(try b.journalCounts().map { "\($0.name) \($0.count)" } == ["Journal 1", "Travel 2"])

        let renamed = try a.renameJournal("TRAVEL", to: "Travel")
        #expect(renamed == Renamed(from: ["travel"], to: "Travel", entries: 1, alreadyThere: 1))
        #expect(try journalRows(a) == ["Journal 0", "Travel 0", "travel 1"])
        #expect(try a.journalName(typed: "travel") == "Travel")
        #expect(try a.renameJournal("travel", to: "Travel") == Renamed(from: [], to: "Travel", entries: 0, alreadyThere: 2))

        // Meanwhile b writes in the journal a is about to rename.
        let late = try b.add(NewEntry(journal: "Travel", title: "Braga"))
        #expect(try a.renameJournal("Travel", to: "Trips") == Renamed(from: ["Travel"], to: "Trips", entries: 2, alreadyThere: 0))
        #expect(try a.search("Lisbon", filter: EntryFilter(journals: ["trips"])).count == 1, "the search index holds the journal's name")
        try world.sync(a)
        try world.sync(b)
        try world.sync(a)
        #expect(try world.dump(a) == world.dump(b))
        #expect(try b.entries(matching: EntryFilter(journals: ["Trips"])).map(\.body).sorted() == ["Lisbon", "Porto"])
        // The journal went on both, yet the entry b wrote in it is still listed by its name.
        for store in [a, b] {
            #expect(try store.entries(matching: EntryFilter(journals: ["travel"])).map(\.id) == [late.id])
            #expect(try journalRows(store).contains("Travel 1"))
        }
        #expect(try b.renameJournal("Travel", to: "Trips").entries == 1)
        try world.sync(b)
        try world.sync(a)
        #expect(try a.journalCounts().map { "\($0.name) \($0.count)" } == ["Journal 1", "Trips 3"])
        #expect(try world.dump(a) == world.dump(b))
    }

    @Test func aTagInAnyCaseBecomesTheNewOneOnce() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        let one = try a.add(NewEntry(title: "one", tags: ["Sea"]))
        let two = try a.add(NewEntry(title: "two", tags: ["sea", "ocean"]))
        let three = try a.add(NewEntry(title: "three", tags: ["summer"]))
        try world.sync(a)
        try world.sync(b)
        #expect(try a.renameTag("#SEA", to: "@ocean") == Renamed(from: ["Sea", "sea"], to: "ocean", entries: 2, alreadyThere: 1))
        #expect(try a.entry(id: one.id)?.tags == ["ocean"] && a.entry(id: two.id)?.tags == ["ocean"] && a.entry(id: three.id)?.tags == ["summer"])
        #expect(try a.tagCounts().map { "\($0.name) \($0.count)" } == ["ocean 2", "summer 1"])
        #expect(try a.search("sea").isEmpty && a.search("ocean").count == 2, "the search index holds the tags")
        try world.sync(a)
        try world.sync(b)
        #expect(try world.dump(a) == world.dump(b))
        #expect(try b.entries(matching: EntryFilter(tags: ["Sea"])).isEmpty && b.entries(matching: EntryFilter(tags: ["OCEAN"])).count == 2)
        // A new name typed in another case is the tag there is; an entry keeps it once.
        let four = try a.add(NewEntry(title: "four", tags: ["Beach", "sand"]))
        #expect(try a.renameTag("sand", to: "BEACH") == Renamed(from: ["sand"], to: "Beach", entries: 1, alreadyThere: 1))
        #expect(try a.entry(id: four.id)?.tags == ["Beach"])
    }

    /// Obsidian nests tags: #travel/italy is a #travel tag. `--tag travel` finds it, and
    /// renaming #travel takes it along (#trips/italy); #travelling is no #travel tag.
    @Test func nestedTagsAreFoundByTheirParentAndMoveWithIt() throws {
        let world = try SyncWorld(devices: 1)
        let a = world.stores[0]
        let italy = try a.add(NewEntry(title: "Rome", tags: ["Travel/Italy"]))
        let madrid = try a.add(NewEntry(title: "Madrid", tags: ["travel/spain/madrid", "food"]))
        let plain = try a.add(NewEntry(title: "Train", tags: ["travel"]))
        let other = try a.add(NewEntry(title: "Walk", tags: ["travelling"]))
        func found(_ tag: String) throws -> [String] { try a.entries(matching: EntryFilter(tags: [tag])).map(\.id).sorted() }
        #expect(try found("travel") == [italy.id, madrid.id, plain.id].sorted())
        #expect(try found("TRAVEL/spain") == [madrid.id] && found("travel/ital").isEmpty && found("spain").isEmpty)
        let renamed = try a.renameTag("travel", to: "trips")
        #expect(renamed.from == ["travel"] && renamed.entries == 3)
        #expect(renamed.nested == ["Travel/Italy": "trips/Italy", "travel/spain/madrid": "trips/spain/madrid"])
        #expect(try a.entry(id: italy.id)?.tags == ["trips/Italy"] && a.entry(id: madrid.id)?.tags == ["food", "trips/spain/madrid"])
        #expect(try a.entry(id: other.id)?.tags == ["travelling"] && found("travel").isEmpty)
        #expect(try a.renameTag("trips/spain", to: "spain").nested == ["trips/spain/madrid": "spain/madrid"])
        #expect(try found("spain") == [madrid.id])
    }

    @Test func aRefusedRenameWritesNothing() throws {
        let world = try SyncWorld(devices: 1)
        let a = world.stores[0]
        try a.add(NewEntry(journal: "Travel", title: "x", tags: ["sea"]))
        let before = try world.dump(a), pending = try a.pendingCount()
        func kind(_ body: () throws -> Renamed) -> StoreError.Kind? {
            do { _ = try body() } catch let error as StoreError { return error.kind } catch {}
            return nil
        }
        #expect(kind { try a.renameJournal("Travle", to: "Trips") } == .notFound)
        #expect(kind { try a.renameJournal("Travel", to: "  ") } == .invalid)
        #expect(kind { try a.renameJournal("Travel", to: "a\u{7}b") } == .invalid)
        #expect(kind { try a.renameTag("#nowhere", to: "x") } == .notFound)
        #expect(kind { try a.renameTag("sea", to: "#") } == .invalid)
        #expect(try world.dump(a) == before && a.pendingCount() == pending)
    }
}
