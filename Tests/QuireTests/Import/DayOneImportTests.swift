import Foundation
import Testing
@testable import QuireImport
@testable import QuireStore

@Suite struct DayOneImportTests {
    let dir = TempDir()

    @Test func keepsTextTimesTagsPlacesAndAttachmentsInPlace() throws {
        let store = try makeStore(dir)
        let summary = try DayOneImporter(path: ImportFixtures.path("dayone/export.zip")).run(into: store)
        #expect(summary.entriesAdded == 4 && summary.media == 3)
        #expect(summary.missing == ["Journal.json: entry 5555AAAA5555AAAA5555AAAA5555AAAA: photos/0123456789abcdef0123456789abcdef.png"])

        let entries = try store.entries()
        let tokyo = try #require(entries.first { $0.title == "東京の夜" })
        // 14:30Z is 23:30 in Tokyo: the entry stays on the 10th, at Tokyo's offset.
        #expect(tokyo.created.text == "2024-03-10T23:30:00+09:00")
        #expect(tokyo.modified.text == "2024-03-11T00:00:00+09:00")
        #expect(tokyo.journal == "Journal" && tokyo.starred && tokyo.tags == ["夜", "旅行"])
        #expect(tokyo.location?.name == "渋谷スクランブル交差点, 東京, 日本" && tokyo.location?.latitude == 35.6595)
        // Escapes gone, except where dropping one would make a list; the photo referred to in place.
        let photo = try #require(tokyo.media.first)
        #expect(tokyo.body == "![](quire:media/\(photo.id))\n\n夜の散歩. 桜がきれい! (本当に)\n\n1\\. この行はリストではない\n\nWeather: Clear, 12 °C")
        #expect(photo.kind == .photo && photo.mime == "image/jpeg")
        #expect(FileManager.default.contents(atPath: store.blobs.path(for: photo.blobID)) == ImportFixtures.bytes(ImportFixtures.media + "/photo.jpg"))

        // New York on the evening DST began (UTC-4), with a voice note and its transcription, and a PDF.
        let subway = try #require(entries.first { $0.body.hasPrefix("Voice memo") })
        #expect(subway.created.text == "2024-03-10T23:15:00-04:00")
        let voice = try #require(subway.media.first { $0.kind == .voice })
        #expect(voice.transcript == "Listening to the train." && voice.duration == 3.5)
        #expect(FileManager.default.contents(atPath: store.blobs.path(for: voice.blobID)) == ImportFixtures.bytes(ImportFixtures.media + "/voice.m4a"))
        #expect(subway.media.map(\.kind) == [.voice, .file])
        #expect(MediaReference.ids(in: subway.body) == subway.media.map(\.id))
        #expect(try store.search("train").contains { $0.id == subway.id })

        // Moscow just after midnight: 1 February there, though 31 January in UTC. Its photo is
        // missing: the entry comes in, and the reference becomes a note instead of a dead link.
        let moscow = try #require(entries.first { $0.body.hasPrefix("Русский") })
        #expect(moscow.created.text == "2024-02-01T00:30:00+03:00")
        #expect(moscow.body.contains("(photo missing from the Day One export)") && !moscow.body.contains("dayone-moment"))
        #expect(moscow.body.contains("\\- не список") && moscow.body.contains("\\*звёздочки\\*"))

        // The journal's name comes from its file.
        let madrid = try #require(entries.first { $0.journal == "Travel" })
        #expect(madrid.body == "Viaje a Madrid. ¡Qué calor!" && madrid.created.text == "2023-07-14T20:05:00+02:00")
    }

    @Test func aSecondImportChangesNothingAndANewerExportUpdates() throws {
        let store = try makeStore(dir)
        let zip = ImportFixtures.path("dayone/export.zip")
        _ = try DayOneImporter(path: zip).run(into: store)
        let before = try store.dump(in: dir, "a")
        let clock = try store.lastClock()
        let again = try DayOneImporter(path: zip).run(into: store)
        #expect(again.entriesUnchanged == 4 && again.entriesAdded == 0 && again.entriesUpdated == 0)
        #expect(try store.dump(in: dir, "b") == before)
        #expect(try fieldsChanged(store, since: clock).isEmpty)

        // The same export, unpacked and with one entry edited in Day One since: one update.
        let folder = dir.path + "/unpacked"
        try unzip(zip, into: folder)
        let journal = folder + "/Travel.json"
        let edited = dir.read("unpacked/Travel.json").replacingOccurrences(of: "¡Qué calor\\\\!", with: "¡Qué calor\\\\! Otra vez.")
        try edited.write(toFile: journal, atomically: true, encoding: .utf8)
        let newer = try DayOneImporter(path: folder).run(into: store)
        #expect(newer.entriesUpdated == 1 && newer.entriesUnchanged == 3 && newer.entriesAdded == 0)
        #expect(try store.entries().contains { $0.body == "Viaje a Madrid. ¡Qué calor! Otra vez." })
        #expect(try fieldsChanged(store, since: clock) == ["entry.body"])
    }

    @Test(arguments: [
        ("dayone/damaged.zip", "is not a readable zip archive"),
        ("dayone/escape.zip", "entry \"photos/../../evil.jpeg\": its path leaves the archive's folder"),
        ("dayone/bad-date.zip", "Journal.json: entry 2: \"creationDate\" \"last tuesday\" is not a date"),
    ])
    func badSourcesAreNamedAndImportNothing(file: String, message: String) throws {
        let store = try makeStore(dir)
        try store.add(NewEntry(title: "already here"))
        let before = try store.dump(in: dir, "before")
        let blobFiles = try blobCount(store)
        #expect {
            _ = try DayOneImporter(path: ImportFixtures.path(file)).run(into: store)
        } throws: { error in
            let text = "\(error)"
            return error is ImportError && text.contains(message) && text.contains(file)
        }
        #expect(try store.dump(in: dir, "after") == before)
        #expect(try blobCount(store) == blobFiles)  // the photo streamed before the bad date went again
    }

    @Test func aZipThatIsNoDayOneExportIsNamedAsSuch() throws {
        let store = try makeStore(dir)
        let path = dir.file("other.zip", "")
        try makeZip(path, ["notes.txt": Data("hello".utf8)])
        #expect(throws: ImportError.self) { try DayOneImporter(path: path).run(into: store) }
        let notJSON = dir.path + "/notjson.zip"
        try makeZip(notJSON, ["Journal.json": Data("{\"entries\": [".utf8)])
        #expect { try DayOneImporter(path: notJSON).run(into: store) } throws: { "\($0)".contains("Journal.json: is not JSON") }
        let wrongShape = dir.path + "/shape.zip"
        try makeZip(wrongShape, ["Journal.json": Data("{\"items\": []}".utf8)])
        #expect { try DayOneImporter(path: wrongShape).run(into: store) } throws: { "\($0)".contains("no \"entries\" list") }
    }

    /// Numbers no Day One writes (an attachment's order of 1e300, a temperature of 1e300)
    /// trapped converting to Int, ending the whole import; now they are left out. A key
    /// that is really entry text, as a cut file makes one, is quoted short on one line.
    @Test func damagedNumbersAndKeysAreNoTrap() throws {
        let store = try makeStore(dir)
        let photo = ImportFixtures.bytes(ImportFixtures.media + "/photo.jpg")
        let md5 = "0123456789abcdef0123456789abcdef"
        let journal = """
            {"entries": [{"uuid": "A1", "creationDate": "2024-03-01T10:00:00Z", "text": "Warm.",
              "weather": {"conditionsDescription": "Sunny", "temperatureCelsius": 1e300},
              "photos": [{"identifier": "P1", "md5": "\(md5)", "type": "jpeg", "orderInEntry": -1e300}]}]}
            """
        let zip = dir.path + "/numbers.zip"
        try makeZip(zip, ["Journal.json": Data(journal.utf8), "photos/\(md5).jpeg": photo])
        _ = try DayOneImporter(path: zip).run(into: store)
        let entry = try #require(try store.entries().first)
        #expect(entry.body == "Warm.\n\nWeather: Sunny" && entry.media.count == 1)

        let cut = dir.path + "/cut.zip"
        try makeZip(cut, ["Journal.json": Data("{\"entries\": [{\"text\\n\\nDear diary, today I met someone and we walked along the river for hours\", 1}]}".utf8)])
        #expect { try DayOneImporter(path: cut).run(into: store) } throws: { error in
            let line = "\(error)"
            return line.contains(#"after key "text\u{a}\u{a}Dear diary, today I met …""#) && !line.contains("river")
        }
    }

    @Test func theCLIPrintsCountsAndNamesWhatIsMissing() throws {
        let store = dir.path + "/cli"
        let run = try QuireBinary.run(["import", "dayone", ImportFixtures.path("dayone/export.zip"), "--journal", "Imported", "--json"], store: store)
        #expect(run.status == 0)
        let json = try JSONValue.parse(run.stdout).object ?? [:]
        #expect(json["added"]?.integer == 4 && json["attachments"]?.integer == 3)
        #expect(json["missing"]?.array?.count == 1)
        let list = try QuireBinary.run(["list", "--journal", "Imported", "--json"], store: store)
        #expect(try JSONValue.parse(list.stdout).array?.count == 4)
        let bad = try QuireBinary.run(["import", "dayone", ImportFixtures.path("dayone/escape.zip")], store: store)
        #expect(bad.status == 1 && bad.stderr.hasPrefix("quire: error: ") && bad.stderr.contains("leaves the archive's folder"))
        let unknown = try QuireBinary.run(["import", "evernote", "x.enex"], store: store)
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown import format 'evernote'"))
    }

    /// The book of an imported journal: photos where the text shows them (once), the voice
    /// note and PDF in the list, no dead `quire:` link, and EPUBCheck content.
    @Test(.enabled(if: ExternalTool.available("epubcheck")))
    func theBookShowsPhotosInPlaceAndPassesEPUBCheck() throws {
        let store = dir.path + "/book-store"
        #expect(try QuireBinary.run(["import", "dayone", ImportFixtures.path("dayone/export.zip")], store: store).status == 0)
        let book = dir.path + "/book.epub"
        let run = try QuireBinary.run(["export", "epub", book, "--with-audio"], store: store)
        try #require(run.status == 0, "\(run.stderr)")
        let (problems, _) = try EPUBCheck.problems(book, dir: dir)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        let page = try ZipArchive(book).text("EPUB/text/2024-03.xhtml")
        #expect(!page.contains("quire:") && !page.contains("dayone-moment"))
        #expect(page.components(separatedBy: "<img ").count - 1 == 1)  // the Tokyo photo, in place, once
        #expect(page.contains("Listening to the train."))
    }

    private func blobCount(_ store: Store) throws -> Int {
        let root = store.blobs.root
        return (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).filter { $0.count > 64 && !$0.hasPrefix("tmp") }.count
    }
}

/// Unpacks `zip` into `folder` with libzip (through the importer's own reader).
func unzip(_ zip: String, into folder: String) throws {
    let archive = try QuireImport.ZipArchive(path: zip)
    for name in archive.names.keys {
        let path = folder + "/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try archive.read(name, limit: 1 << 30).write(to: URL(fileURLWithPath: path))
    }
}
