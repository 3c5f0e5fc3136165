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
        // A header in another date format is named, never glued into the entry before it.
        ("[2024-01-01 10:00] Fine.\nBody.\n\n[01.02.2024 21:15] Other format.\n", "line 4: starts like an entry but its date is not one Quire reads"),
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

    /// jrnl 3/4 write `%F %r` by default: `[2024-05-08 09:15:00 PM]`; older files and other
    /// settings give 24-hour times with or without seconds. All read the same clock.
    @Test func jrnlsDefaultTwelveHourFormAndTheTwentyFourHourFormsAreRead() throws {
        let store = try makeStore(dir)
        let file = dir.file("journal.txt", """
            [2024-05-08 09:15:00 PM] Evening walk. Along the river @walk
            Second line.

            [2024-05-09 12:05:00 AM] Past midnight.

            [2024-05-09 12:30 PM] Lunch.

            [2024-05-09 07:45:09] Seconds kept.

            2024-05-10 06:00 No brackets.

            """)
        let summary = try JrnlImporter(path: file, zone: berlin).run(into: store)
        #expect(summary.entriesAdded == 5)
        let byTitle = Dictionary(try store.entries().map { ($0.title, $0) }) { a, _ in a }
        #expect(byTitle["Evening walk."]?.created.text == "2024-05-08T21:15:00+02:00")
        #expect(byTitle["Evening walk."]?.body == "Along the river @walk\nSecond line.")
        #expect(byTitle["Evening walk."]?.tags == ["walk"])
        #expect(byTitle["Past midnight."]?.created.text == "2024-05-09T00:05:00+02:00")
        #expect(byTitle["Lunch."]?.created.text == "2024-05-09T12:30:00+02:00")
        #expect(byTitle["Seconds kept."]?.created.text == "2024-05-09T07:45:09+02:00")
        #expect(byTitle["No brackets."]?.created.text == "2024-05-10T06:00:00+02:00")
    }

    @Test func headersAreReadExactly() {
        #expect(JrnlImporter.header("[2024-05-08 09:15:00 PM] T") ?? ("", "") == ("2024-05-08T21:15:00", "T"))
        #expect(JrnlImporter.header("[2024-05-08 9:15 am] T") ?? ("", "") == ("2024-05-08T09:15", "T"))
        #expect(JrnlImporter.header("[2024-05-08 12:00:00 AM]") ?? ("", "") == ("2024-05-08T00:00:00", ""))
        #expect(JrnlImporter.header("[2024-05-08 13:15 PM] T") == nil, "no 13 o'clock in the afternoon")
        #expect(JrnlImporter.header("[2024-05-08 21:15 T") == nil, "an open bracket must close")
        #expect(JrnlImporter.header("2024-05-08 21:15x") == nil)
        let read: [(String, (String, String)?)] = [
            ("[2024-05-08T21:15] T", ("2024-05-08T21:15", "T")),
            ("[2024-05-08 21:15]T", ("2024-05-08T21:15", "T")),
            ("2024-05-08 21:15 T", ("2024-05-08T21:15", "T")),
            ("2024-05-08 21:15", ("2024-05-08T21:15", "")),
            ("[2024-05-08 9:15pm] T", ("2024-05-08T21:15", "T")),
            ("[2024-05-08 12:05 p.m.]  two spaces", ("2024-05-08T12:05", " two spaces")),
            ("[2024-05-08 09:15:59 Am] Привет", ("2024-05-08T09:15:59", "Привет")),
            ("2024-05-08 9:15 Pmx", nil),
            ("[2024-05-08 21:15:3] T", nil),
            ("[2024-05-08 123:15] T", nil),
            ("[2024-05-08 21:1] T", nil),
            ("[2024-5-08 21:15] T", nil),
            ("[2024-05-08_21:15] T", nil),
            ("[2024-05-08 21:15 Mum called]", nil),
            ("2024-05-08 0:15 AM", nil),
            ("[2024-05-08 21:15", nil),
            ("2024-05-08 21:15] T", nil),
            ("", nil),
            ("[", nil),
        ]
        for (line, expected) in read {
            let got = JrnlImporter.header(line)
            #expect(got?.0 == expected?.0 && got?.1 == expected?.1, "\(line)")
        }
        #expect(JrnlImporter.looksLikeHeader("[08.05.2024 21:15] Title"))
        #expect(JrnlImporter.looksLikeHeader("[5/8/2024 9:15 PM] Title"))
        #expect(!JrnlImporter.looksLikeHeader("[12:30] the meeting moved"))
        #expect(!JrnlImporter.looksLikeHeader("[1] a footnote"))
        #expect(JrnlImporter.looksLikeHeader("[2024.5.8, 9h15 du soir]"))
        #expect(!JrnlImporter.looksLikeHeader("[2024.5.8 9:15 a note far too long for a date]"))
        #expect(!JrnlImporter.looksLikeHeader("2024.5.8 9:15] no bracket before"))
        #expect(!JrnlImporter.looksLikeHeader("1. a list item"))
    }

    @Test func titlesAreTheFirstSentence() {
        #expect(JrnlImporter.firstSentence("Went out. Saw friends.") == ("Went out.", "Saw friends."))
        #expect(JrnlImporter.firstSentence("Really?! Yes.") == ("Really?!", "Yes."))
        #expect(JrnlImporter.firstSentence("No stop here") == ("No stop here", ""))
        #expect(JrnlImporter.firstSentence("Version 2.5 is out. Great.") == ("Version 2.5 is out.", "Great."))
        #expect(JrnlImporter.tags(in: "mail@example.com @home (@work) @@x @да") == ["home", "work", "да"])
        #expect(JrnlImporter.tags(in: "no sigil here: #hash is not jrnl's, only Quire's") == [])
        #expect(Store.tags(inText: "#hash and @at, 日記 #日記") == ["hash", "at", "日記"])
        #expect(Store.tags(inText: "") == [])
    }
}
