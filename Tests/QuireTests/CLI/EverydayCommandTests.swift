import Foundation
import Testing
@testable import QuireStore

/// What jrnl, Day One and Obsidian users reach for, and what a command tells a person when
/// it worked, driven as a person types them (a pseudo-terminal where it is a terminal's).
@Suite struct EverydayCommandTests {
    func run(_ arguments: [String], _ store: String, stdin: String? = nil, environment: [String: String] = [:]) throws -> QuireRun {
        let result = try QuireBinary.run(arguments, store: store, environment: environment, stdin: stdin)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result
    }

    func id(_ run: QuireRun) -> String { run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) }

    @Test func wordsOnTheCommandLineNaturalDatesAndTheNewest() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        _ = try run(["add", "Went", "to", "the", "sea."], store)
        _ = try run(["add", "--date", "yesterday", "--star", "--tag", "sea", "Yesterday's", "swim"], store)
        _ = try run(["add", "--date", "2020-01-01", "An", "old", "one"], store)
        let all = try run(["list", "--json"], store).stdout
        #expect(all.contains(#""body": "Went to the sea.""#))
        let newest = try run(["list", "-n", "1"], store).stdout
        #expect(newest.contains("Went to the sea.") && !newest.contains("swim"), "\(newest)")
        let two = try run(["list", "-n", "2", "--newest-first"], store).stdout.split(separator: "\n")
        #expect(two.count == 2 && two[0].contains("Went to the sea.") && two[1].contains("Yesterday's swim"))
        #expect(try run(["list", "--starred"], store).stdout.split(separator: "\n").count == 1)
        #expect(try run(["list", "--from", "yesterday"], store).stdout.split(separator: "\n").count == 2)
        #expect(try run(["list", "--to", "last week"], store).stdout.contains("An old one"))
        let bad = try QuireBinary.run(["list", "--from", "the day before"], store: store)
        #expect(bad.status == 2 && bad.stderr.contains("use YYYY-MM-DD HH:MM (2025-03-01 21:14)") && bad.stderr.contains("yesterday 21:30"), "\(bad.stderr)")
        // On this day: today's month and day in any year.
        let today = EntryFilter.monthDay()
        _ = try run(["add", "--date", "2019-\(today)", "Years ago today"], store)
        let onThisDay = try run(["list", "--on-this-day"], store).stdout
        #expect(onThisDay.contains("Years ago today") && onThisDay.contains("Went to the sea.") && !onThisDay.contains("An old one"), "\(onThisDay)")
    }

    @Test func tagsAndJournalsWithTheirCounts() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        _ = try run(["add", "--tag", "sea", "--tag", "summer", "a"], store)
        _ = try run(["add", "--tag", "sea", "--journal", "Travel", "b"], store)
        let tags = try JSONValue.parse(try run(["tags", "--json"], store).stdout).array?.compactMap(\.object) ?? []
        #expect(tags.map { $0["tag"]?.string } == ["sea", "summer"] && tags.first?["entries"]?.integer == 2)
        #expect(try run(["tags"], store).stdout == "2  #sea\n1  #summer\n")
        let journals = try run(["journals"], store).stdout
        #expect(journals == "1  Journal\n1  Travel\n")
        // Filters match tags and journal names in any case and Unicode form, as note apps
        // match tags; a new one keeps the spelling it was written in, and one typed in
        // another case is the one there is (#Sea is #sea).
        _ = try run(["add", "--tag", "Sea", "--tag", "cafe\u{301}", "c"], store)
        #expect(try run(["list", "--tag", "sea", "--json"], store).stdout.components(separatedBy: #""sea""#).count == 4)
        #expect(try run(["list", "--tag", "SEA"], store).stdout.split(separator: "\n").count == 3)
        #expect(try run(["list", "--tag", "#Café"], store).stdout.contains("#cafe\u{301}"))
        #expect(try run(["search", "b", "--journal", "travel"], store).stdout.hasPrefix(id(try run(["list", "--journal", "Travel"], store)).prefix(8) + "  "))
        #expect(try run(["tags"], store).stdout == "3  #sea\n1  #cafe\u{301}\n1  #summer\n", "counted as --tag finds them")
        let typo = try QuireBinary.run(["list", "--journal", "Travle"], store: store)
        #expect(typo.status == 1 && typo.stderr.hasPrefix("quire: error: no journal named \"Travle\" (the journals: Journal, Travel)")
                && typo.stderr.contains("quire journals"), "\(typo.stderr)")
        #expect(try QuireBinary.run(["list", "--tag", "nowhere"], store: store).stdout.isEmpty)
        let empty = try QuireBinary.run(["list", "--tag", "#"], store: store)
        #expect(empty.status == 1 && empty.stderr.hasPrefix("quire: error: tag \"#\" is empty"), "\(empty.stderr)")
        // A journal typed in another case is the journal there is, not a second one.
        let more = id(try run(["add", "--journal", "TRAVEL", "d"], store))
        _ = try run(["edit", more, "--journal", "journal"], store)
        _ = try run(["add", "--journal", "travel", "e"], store)
        #expect(try run(["journals"], store).stdout == "3  Journal\n2  Travel\n")
        // So is a tag; and one removed in any case goes.
        let cased = id(try run(["add", "--tag", "SUMMER", "--tag", "Summer", "f"], store))
        func tagsOf(_ entry: String) throws -> [String] {
            try JSONValue.parse(try run(["show", entry, "--json"], store).stdout).object?["tags"]?.array?.compactMap(\.string) ?? []
        }
        #expect(try tagsOf(cased) == ["summer"])
        _ = try run(["edit", cased, "--add-tag", "#SEA", "--remove-tag", "#Summer"], store)
        #expect(try tagsOf(cased) == ["sea"])
        _ = try run(["edit", cased, "--remove-tag", "Sea"], store)
        #expect(try tagsOf(cased).isEmpty)
        // Renaming: a tag in any case, a journal into one that exists.
        #expect(try run(["tags", "rename", "#SEA", "ocean"], store).stdout == "Renamed tag #sea to #ocean (3 entries).\n")
        #expect(try run(["tags"], store).stdout == "3  #ocean\n1  #cafe\u{301}\n1  #summer\n")
        let merged = try JSONValue.parse(try run(["journals", "rename", "travel", "Journal", "--json"], store).stdout).object
        #expect(merged?["from"]?.array?.compactMap(\.string) == ["Travel"] && merged?["entries"]?.integer == 2 && merged?["already"]?.integer == 4)
        #expect(try run(["journals"], store).stdout == "6  Journal\n")
        let gone = try QuireBinary.run(["journals", "rename", "Travel", "Trips"], store: store)
        #expect(gone.status == 1 && gone.stderr.hasPrefix("quire: error: no journal named \"Travel\" (the journals: Journal)"), "\(gone.stderr)")
        let unknown = try QuireBinary.run(["tags", "merge", "a", "b"], store: store)
        #expect(unknown.status == 2 && unknown.stderr.hasPrefix("quire: error: unknown action 'merge'"), "\(unknown.stderr)")
    }

    /// `quire edit ID` with no option opens $EDITOR on the entry (title, blank line, text);
    /// what is saved is the entry, and saying nothing changes nothing.
    @Test func editWithoutOptionsOpensTheEditor() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        let entry = id(try run(["add", "--title", "Old title", "Old text."], store))
        let editor = dir.file("editor.sh", "#!/bin/sh\nprintf 'New title\\n\\nNew text, written in the editor.\\n' > \"$1\"\n")
        chmod(editor, 0o755)
        let terminal = try Terminal(["edit", String(entry.prefix(8))], store: store, environment: ["EDITOR": editor])
        #expect(terminal.finish() == 0, "\(terminal.output)")
        #expect(terminal.output.contains("Changed the title, text of \(entry.prefix(8))."), "\(terminal.output)")
        let shown = try run(["show", entry, "--json"], store).stdout
        #expect(shown.contains(#""title": "New title""#) && shown.contains(#""body": "New text, written in the editor.""#), "\(shown)")
        let unchanged = dir.file("same.sh", "#!/bin/sh\nexit 0\n")
        chmod(unchanged, 0o755)
        let again = try Terminal(["edit", entry], store: store, environment: ["EDITOR": unchanged])
        #expect(again.finish() == 0 && again.output.contains("No change"), "\(again.output)")
        // Without a terminal the editor the person named still runs (a GUI editor, a script):
        // $VISUAL before $EDITOR.
        let scripted = dir.file("scripted.sh", "#!/bin/sh\nprintf 'Scripted\\n\\nBy a script.\\n' > \"$1\"\n")
        chmod(scripted, 0o755)
        let piped = try QuireBinary.run(["edit", entry], store: store, environment: ["VISUAL": scripted, "EDITOR": editor])
        #expect(piped.status == 0 && piped.stderr.contains("Changed the title, text"), "\(piped.stderr)")
        #expect(try run(["show", entry, "--json"], store).stdout.contains(#""body": "By a script.""#))
        // An editor set to save DOS files (CRLF, a byte order mark) gives the same title and
        // text; one that only turned the line ends changed nothing.
        let dos = dir.file("dos.sh", "#!/bin/sh\nprintf '\\357\\273\\277Título\\r\\n\\r\\nLínea uno\\r\\nLínea dos\\r\\n' > \"$1\"\n")
        chmod(dos, 0o755)
        let saved = try QuireBinary.run(["edit", entry], store: store, environment: ["EDITOR": dos])
        #expect(saved.status == 0 && saved.stderr.contains("Changed the title, text"), "\(saved.stderr)")
        let dosShown = try run(["show", entry, "--json"], store).stdout
        #expect(dosShown.contains(#""title": "Título""#) && dosShown.contains(#""body": "Línea uno\nLínea dos""#), "\(dosShown)")
        let toDOS = dir.file("todos.sh", "#!/bin/sh\nsed -i 's/$/\\r/' \"$1\"\n")
        chmod(toDOS, 0o755)
        let turned = try QuireBinary.run(["edit", entry], store: store, environment: ["EDITOR": toDOS])
        #expect(turned.status == 0 && turned.stderr.contains("No change"), "\(turned.stderr)")
        // With none named and no terminal there is nothing to open: a usage error saying what to give.
        let none = try QuireBinary.run(["edit", entry], store: store, environment: ["VISUAL": "", "EDITOR": ""])
        #expect(none.status == 2 && none.stderr.contains("--title") && none.stderr.contains("EDITOR"), "\(none.stderr)")
    }

    /// Each command that changes something says what it did, on a terminal.
    @Test func commandsSayWhatTheyDid() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        let entry = id(try run(["add", "--title", "Note", "x"], store))
        _ = dir.file("memo.wav", bytes: wav(seconds: 2))
        let media = id(try run(["attach", entry, dir.path + "/memo.wav"], store))
        func onTerminal(_ arguments: [String]) throws -> String {
            let terminal = try Terminal(arguments, store: store)
            #expect(terminal.finish() == 0, "\(arguments): \(terminal.output)")
            return terminal.output
        }
        #expect(try onTerminal(["edit", entry, "--add-tag", "t"]).contains("Changed the tags of \(entry.prefix(8))."))
        #expect(try onTerminal(["edit", entry, "--add-tag", "t"]).contains("No change"))
        #expect(try onTerminal(["transcript", media, "--text", "three short words"]).contains("Set the transcript of voice note \(media.prefix(8)): 3 words."))
        #expect(try onTerminal(["export", "markdown", dir.path + "/md"]).contains("Wrote 1 entry as Markdown and 1 attachment into \(dir.path)/md"))
        let json = try onTerminal(["export", "json", dir.path + "/dump"])
        #expect(json.contains("Wrote 1 entry and 1 attachment file to \(dir.path)/dump/entries.jsonl"), "\(json)")
        #expect(!json.contains("[####"), "a finished bar does not stay on the screen: \(json)")
        #expect(try onTerminal(["rm", media, "--yes"]).contains("Deleted the voice \(media.prefix(8)) (memo.wav)."))
        // On a terminal rm names what will go and asks; anything but yes keeps it.
        let asked = try Terminal(["rm", entry], store: store)
        #expect(asked.waitFor("Delete the entry \(entry.prefix(8)) “Note” of "))
        #expect(asked.waitFor("[y/N] "))
        asked.type("n")
        #expect(asked.finish() == 0 && asked.output.contains("Nothing was deleted."), "\(asked.output)")
        #expect(try run(["list"], store).stdout.contains("Note"))
        let sure = try Terminal(["rm", entry], store: store)
        #expect(sure.waitFor("[y/N] "))
        sure.type("y")
        #expect(sure.finish() == 0 && sure.output.contains("Deleted the entry \(entry.prefix(8)) “Note”"), "\(sure.output)")
        #expect(try !run(["list"], store).stdout.contains("Note"))
        let written = dir.path + "/tpl"
        let templates = try run(["export", "templates", written], store)
        #expect(templates.status == 0 && FileManager.default.fileExists(atPath: written + "/epub/entry.xhtml")
                && FileManager.default.fileExists(atPath: written + "/markdown/entry.md"))
    }

    /// The same file attached twice is there once; a recording's duration comes from the
    /// file; a transcript running past the recording's end is said.
    @Test func attachingIsIdempotentAndReadsTheDuration() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        let entry = id(try run(["add", "x"], store))
        _ = dir.file("memo.wav", bytes: wav(seconds: 3))
        let first = id(try run(["attach", entry, dir.path + "/memo.wav"], store))
        let again = try run(["attach", entry, dir.path + "/memo.wav"], store)
        #expect(id(again) == first && again.stderr.contains("attached to this entry already"))
        let shown = try run(["show", entry, "--json"], store).stdout
        #expect(shown.components(separatedBy: #""kind": "voice""#).count == 2, "one attachment: \(shown)")
        #expect(shown.contains(#""duration": 3"#), "\(shown)")
        _ = dir.file("late.srt", "1\n00:00:00,000 --> 00:00:02,000\nHello\n\n2\n00:00:02,000 --> 00:00:09,000\nmuch later\n")
        _ = dir.file("other.wav", bytes: wav(seconds: 3, tone: 9))
        let late = try run(["attach", entry, dir.path + "/other.wav", "--srt", dir.path + "/late.srt"], store)
        #expect(late.stderr.contains("warning: the transcript runs to 0:09, past the end of the recording (0:03)"), "\(late.stderr)")
    }

    @Test func aMistypedCommandIsGuessedAndTheVersionShown() throws {
        let typo = try QuireBinary.run(["lsit"])
        #expect(typo.status == 2 && typo.stderr.contains("did you mean `quire list`?"), "\(typo.stderr)")
        #expect(try QuireBinary.run(["-V"]).stdout.hasPrefix("quire "))
        #expect(try QuireBinary.run(["add", "--help"]).stdout.contains("[--star]"))
    }

    /// A WAV file of silence (or a tone byte) lasting `seconds` at 8 kHz, 8-bit mono.
    func wav(seconds: Int, tone: UInt8 = 128) -> [UInt8] {
        let rate = 8000, data = rate * seconds
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        return Array("RIFF".utf8) + le(36 + data, 4) + Array("WAVEfmt ".utf8) + le(16, 4) + le(1, 2) + le(1, 2)
            + le(rate, 4) + le(rate, 4) + le(1, 2) + le(8, 2) + Array("data".utf8) + le(data, 4) + Array(repeating: tone, count: data)
    }

    /// Two machines edit one title before syncing: the loser is listed with an id; `keep`
    /// makes it the title again and lists the title it replaced in its place (named in its
    /// message), and `dismiss` lets the winner stand, on both machines.
    @Test func conflictsCanBeKeptOrDismissed() throws {
        let dir = TempDir()
        let env = ["QUIRE_KDF_COST": "1,8192", "QUIRE_PASSPHRASE": "pw"]
        let (a, b, repo) = (dir.path + "/a", dir.path + "/b", "file://" + dir.path + "/repo")
        let entry = id(try run(["add", "--title", "first", "x"], a))
        _ = try run(["remote", "set", repo], a)
        _ = try run(["remote", "init"], a, environment: env)
        _ = try run(["sync"], a, environment: env)
        _ = try run(["restore", repo], b, environment: env)
        _ = try run(["edit", entry, "--title", "from A", "--body", "body A"], a)
        _ = try run(["edit", entry, "--title", "from B", "--body", "body B"], b)
        for store in [a, b, a] { _ = try run(["sync"], store, environment: env) }
        func conflicts(_ store: String) throws -> [[String: JSONValue]] {
            try (JSONValue.parse(try run(["conflicts", "--json"], store).stdout).array ?? []).compactMap(\.object)
        }
        let listed = try conflicts(b)
        #expect(listed.count == 2, "\(listed)")
        let title = try #require(listed.first { $0["field"]?.string == "title" })
        let body = try #require(listed.first { $0["field"]?.string == "body" })
        let lostTitle = try #require(title["value"]?.string)
        let wonTitle = lostTitle == "from A" ? "from B" : "from A"
        let kept = try QuireBinary.run(["conflicts", "keep", String(try #require(title["conflict"]?.string).prefix(8))], store: b)
        _ = try run(["conflicts", "dismiss", try #require(body["conflict"]?.string)], b)
        let replaced = try conflicts(b)
        #expect(replaced.map { $0["value"]?.string } == [wonTitle], "\(replaced)")
        let replacedID = try #require(replaced.first?["conflict"]?.string)
        #expect(kept.status == 0 && kept.stderr.contains("kept as conflict \(replacedID.prefix(8))"), "\(kept.stderr)")
        for store in [b, a] { _ = try run(["sync"], store, environment: env) }
        #expect(try conflicts(a).map { $0["conflict"]?.string } == [replacedID])
        #expect(try run(["show", entry, "--json"], a).stdout.contains(#""title": "\#(lostTitle)""#))
        _ = try run(["conflicts", "dismiss", replacedID], a)
        for store in [a, b] { _ = try run(["sync"], store, environment: env) }
        #expect(try conflicts(a).isEmpty && conflicts(b).isEmpty)
        let unknown = try QuireBinary.run(["conflicts", "dismiss", "ffffffff"], store: a)
        #expect(unknown.status == 1 && unknown.stderr.contains("no conflict with id ffffffff"))
    }
}
