import Foundation
import Testing
@testable import QuireImport
@testable import QuireStore

@Suite struct JrnlImportTests {
    let dir = TempDir()
    let berlin = TimeZone(identifier: "Europe/Berlin") ?? .current

    @Test(arguments: ["jrnl/export.json", "jrnl/journal.txt"])
    func bothFormatsGiveTheSameEntries(file: String) throws {
        let store = try makeStore(dir)
        let summary = try JrnlImporter(path: ImportFixtures.path(file), zone: berlin).run(into: store)
        #expect(summary.entriesAdded == 3)
        let entries = try store.entries().sorted { $0.created.text + $0.title < $1.created.text + $1.title }
        #expect(entries.map(\.title) == ["Morning pages.", "Sesión de escalada.", "Два события в одну минуту."])
        // jrnl's times have no offset: read in the zone given, here Berlin in winter.
        #expect(entries[0].created.text == "2024-02-29T07:05:00+01:00")
        #expect(entries[0].starred && !entries[1].starred)
        #expect(entries[0].body == "Wrote three pages with @writing before coffee.")
        #expect(entries[0].tags == ["writing"] && entries[1].tags == ["deporte"] && entries[2].tags.isEmpty)
        #expect(entries[2].body.isEmpty)
    }

    @Test func theTwoFormatsAndASecondImportLandOnTheSameIds() throws {
        let store = try makeStore(dir)
        _ = try JrnlImporter(path: ImportFixtures.path("jrnl/export.json"), zone: berlin).run(into: store)
        let before = try store.dump(in: dir, "a")
        let text = try JrnlImporter(path: ImportFixtures.path("jrnl/journal.txt"), zone: berlin).run(into: store)
        #expect(text.entriesUnchanged == 3 && text.entriesAdded == 0)
        #expect(try store.dump(in: dir, "b") == before)

        // A body edited in jrnl comes back as an edit of the same entry.
        let edited = dir.file("edited.txt", (try String(contentsOfFile: ImportFixtures.path("jrnl/journal.txt"), encoding: .utf8))
            .replacingOccurrences(of: "Subí la vía azul.", with: "Subí la vía roja."))
        let again = try JrnlImporter(path: edited, zone: berlin).run(into: store)
        #expect(again.entriesUpdated == 1 && again.entriesAdded == 0)
        #expect(try store.entries().count == 3)
    }

    @Test(arguments: [
        ("Just some text\n[2024-01-01 10:00] Title.\n", "line 1: is not a jrnl entry"),
        ("[2024-13-45 10:00] Impossible date.\n", "line 1: \"2024-13-45T10:00\" is not a date"),
        ("{\"entries\": [{\"title\": \"x\", \"date\": \"yesterday\", \"time\": \"10:00\"}]}", "entry 1: \"yesterday 10:00\" is not a date"),
        ("{\"entries\": [{\"title\": \"x\"}]}", "entry 1: \"date\" and \"time\" are needed"),
        ("{\"entries\": 3}", "is not a jrnl JSON export"),
        ("{\"entries\": [", "is not JSON"),
    ])
    func badInputIsNamedAndImportsNothing(text: String, message: String) throws {
        let store = try makeStore(dir)
        let bad = dir.file("journal-bad", text)
        #expect {
            _ = try JrnlImporter(path: bad, zone: berlin).run(into: store)
        } throws: { error in
            error is ImportError && "\(error)".contains(message) && "\(error)".hasPrefix(bad)
        }
        #expect(try store.entries().isEmpty)
    }

    @Test func titlesAreTheFirstSentence() {
        #expect(JrnlImporter.firstSentence("Went out. Saw friends.") == ("Went out.", "Saw friends."))
        #expect(JrnlImporter.firstSentence("Really?! Yes.") == ("Really?!", "Yes."))
        #expect(JrnlImporter.firstSentence("No stop here") == ("No stop here", ""))
        #expect(JrnlImporter.firstSentence("Version 2.5 is out. Great.") == ("Version 2.5 is out.", "Great."))
        #expect(JrnlImporter.tags(in: "mail@example.com @home (@work) @@x @да") == ["home", "work", "да"])
    }
}
