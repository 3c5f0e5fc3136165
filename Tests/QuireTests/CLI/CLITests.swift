import Foundation
import Testing
@testable import QuireStore

/// The command line as a person and a script use it: exit codes, one-line errors, --json.
@Suite struct CLITests {
    let commands = ["add", "edit", "rm", "attach", "transcript", "transcribe", "list", "show", "search", "conflicts", "import", "export", "remote", "passwd", "sync", "status", "restore", "verify", "prune"]

    func expectOneLineError(_ run: QuireRun, status: Int32, mentioning words: String..., sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == status, "stderr: \(run.stderr)", sourceLocation: sourceLocation)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.first?.hasPrefix("quire: error: ") == true, "stderr: \(run.stderr)", sourceLocation: sourceLocation)
        #expect(lines.count <= 2 && lines.dropFirst().allSatisfy { $0.hasPrefix("hint: ") }, "stderr: \(run.stderr)", sourceLocation: sourceLocation)
        for word in words {
            #expect(run.stderr.contains(word), "'\(word)' not in: \(run.stderr)", sourceLocation: sourceLocation)
        }
    }

    @Test func everyCommandHasHelp() throws {
        for command in commands {
            let run = try QuireBinary.run([command, "--help"])
            #expect(run.status == 0)
            #expect(run.stdout.contains("Usage: quire \(command)"), "\(command) --help")
        }
        let overview = try QuireBinary.run(["--help"])
        #expect(overview.status == 0)
        for command in commands { #expect(overview.stdout.contains("  " + command)) }
    }

    /// `--help` texts are part of the contract: compared with Fixtures/help/*.txt.
    /// Run with QUIRE_UPDATE_GOLDEN=1 to rewrite them after a deliberate change.
    @Test func helpTextsMatchTheirGoldenFiles() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/help")
        let update = ProcessInfo.processInfo.environment["QUIRE_UPDATE_GOLDEN"] == "1"
        for command in commands + ["overview"] {
            let run = try QuireBinary.run(command == "overview" ? ["--help"] : [command, "--help"])
            let golden = folder.appendingPathComponent(command + ".txt")
            if update {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try Data(run.stdout.utf8).write(to: golden)
            }
            let expected = try String(contentsOf: golden, encoding: .utf8)
            #expect(run.stdout == expected, "quire \(command) --help differs from \(golden.lastPathComponent)")
        }
    }

    @Test func usageErrorsExitTwo() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        expectOneLineError(try QuireBinary.run(["frobnicate"], store: store), status: 2, mentioning: "unknown command")
        expectOneLineError(try QuireBinary.run(["add", "--colour", "red"], store: store), status: 2, mentioning: "--colour")
        expectOneLineError(try QuireBinary.run(["add", "--date", "the day after tomorrow", "--body", "x"], store: store), status: 2, mentioning: "not a date")
        expectOneLineError(try QuireBinary.run(["add", "--body", "x", "--body-file", "y"], store: store), status: 2, mentioning: "only one")
        expectOneLineError(try QuireBinary.run(["show"], store: store), status: 2, mentioning: "missing ID")
        expectOneLineError(try QuireBinary.run(["export", "pdf", dir.path], store: store), status: 2, mentioning: "pdf")
        expectOneLineError(try QuireBinary.run(["attach", "12345678", "f", "--kind", "hologram"], store: store), status: 2, mentioning: "--kind")
        #expect(!FileManager.default.fileExists(atPath: store))  // nothing was created
    }

    /// Each option belongs to its command: `--store` is never taken from another option's
    /// value, and remote's subcommands take only their own options.
    @Test func optionsBelongToTheirCommand() throws {
        let dir = TempDir()
        let store = dir.path + "/s", elsewhere = dir.path + "/elsewhere"
        // An option is never another option's value: `--tag --store x` forgot the tag.
        expectOneLineError(try QuireBinary.run(["list", "--tag", "--store", "x"], store: store, stdin: ""), status: 2, mentioning: "'--store'")
        expectOneLineError(try QuireBinary.run(["add", "--title", "--store", "--body", "b"], store: store), status: 2, mentioning: "--title=--store")
        #expect(!FileManager.default.fileExists(atPath: store))
        // Written with `=`, it is the value.
        let titled = try QuireBinary.run(["add", "--title=--store", "--body", "b"], store: store)
        #expect(titled.status == 0)
        #expect(try QuireBinary.run(["list"], store: store).stdout.contains("--store"))
        // --store after the command works like any option; twice with two folders is an error.
        #expect(try QuireBinary.run(["list", "--store", store]).stdout.contains("--store"))
        expectOneLineError(try QuireBinary.run(["list", "--store", elsewhere], store: store), status: 2, mentioning: "--store is given twice")
        #expect(!FileManager.default.fileExists(atPath: elsewhere))
        for (arguments, stray) in [(["remote", "init", "--user", "bob"], "--user"), (["remote", "forget-key", "--json"], "--json"),
                                   (["remote", "set", "file:///tmp/r", "--passphrase-file", "p"], "--passphrase-file"),
                                   (["remote", "check", "--max-object-size", "1M"], "--max-object-size")] {
            expectOneLineError(try QuireBinary.run(arguments, store: store), status: 2, mentioning: stray)
        }
        #expect(try QuireBinary.run(["remote", "--json"], store: store).status == 0)
    }

    @Test func addListShowEditSearchRemove() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        let add = try QuireBinary.run(["add", "--title", "Утро", "--tag", "утро", "--date", "2025-03-01T07:30:00+03:00"], store: store,
                                      stdin: "Проснулся рано, пил чай. 朝ごはんを食べた。")
        #expect(add.status == 0, "\(add.stderr)")
        let id = add.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(StableID.isValid(id))

        let list = try QuireBinary.run(["list"], store: store)
        #expect(list.stdout == "\(id.prefix(8))  2025-03-01 07:30  Утро  #утро\n")

        let search = try QuireBinary.run(["search", "ごはん", "--json"], store: store)
        let hits = try #require(try JSONValue.parse(search.stdout).array)
        #expect(hits.count == 1 && hits[0].object?["id"]?.string == id)

        #expect(try QuireBinary.run(["edit", String(id.prefix(8)), "--title", "Morning", "--add-tag", "tea"], store: store).status == 0)
        let shown = try QuireBinary.run(["show", id, "--json"], store: store)
        let entry = try #require(try JSONValue.parse(shown.stdout).object)
        #expect(entry["title"]?.string == "Morning")
        #expect(entry["tags"]?.array?.compactMap(\.string) == ["tea", "утро"])
        #expect(entry["created"]?.string == "2025-03-01T07:30:00+03:00")

        #expect(try QuireBinary.run(["rm", String(id.prefix(10))], store: store).status == 0)
        #expect(try QuireBinary.run(["list"], store: store).stdout.isEmpty)
        expectOneLineError(try QuireBinary.run(["show", id], store: store), status: 1, mentioning: "no entry")
    }

    /// `-word` after `search` is a word to leave out, not an unknown option; `--word` is one.
    @Test func searchLeavesOutDashWordsAndTakesPhrases() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        func add(_ text: String) throws -> String {
            String(try QuireBinary.run(["add", text], store: store).stdout.prefix(8))
        }
        let pizza = try add("Dinner with pizza at home")
        let pasta = try add("Dinner with pasta after work")
        let office = try add("Swimming before work, dinner skipped")
        func found(_ words: [String]) throws -> [String] {
            let run = try QuireBinary.run(["search"] + words + ["--json"], store: store)
            #expect(run.status == 0, "\(run.stderr)")
            return (try JSONValue.parse(run.stdout).array ?? []).compactMap { $0.object?["id"]?.string.map { String($0.prefix(8)) } }
        }
        #expect(try found(["dinner", "-work"]) == [pizza])
        #expect(try Set(found(["dinner", "pizza", "OR", "pasta"])) == [pizza, pasta])
        #expect(try found(["\"dinner with pasta\""]) == [pasta])
        #expect(try found(["swim", "-pizza"]) == [office], "English is stemmed")
        expectOneLineError(try QuireBinary.run(["search", "-work"], store: store), status: 1, mentioning: "only words to leave out")
        expectOneLineError(try QuireBinary.run(["search", "dinner", "--work"], store: store), status: 2, mentioning: "--work")
    }

    @Test func attachWithSubtitlesAndTranscripts() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        let id = try QuireBinary.run(["add", "--body", "voice"], store: store).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let audio = dir.file("note.ogg", bytes: [0x4F, 0x67, 0x67, 0x53])
        let srt = dir.file("note.srt", "1\n00:00:00,000 --> 00:00:01,500\nдобрый день\n\n2\n00:00:01,500 --> 00:00:03,000\nкак дела\n")
        let attach = try QuireBinary.run(["attach", id, audio, "--srt", srt, "--duration", "3"], store: store)
        #expect(attach.status == 0, "\(attach.stderr)")
        let mediaID = attach.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let shown = try QuireBinary.run(["show", id, "--json"], store: store).stdout
        #expect(shown.contains(#""transcript": "добрый день как дела""#))
        #expect(shown.contains(#""kind": "voice""#))
        #expect(try QuireBinary.run(["search", "дел"], store: store).stdout.contains(String(id.prefix(8))))

        let bad = dir.file("bad.vtt", "WEBVTT\n\n00:01.000 --> 00:0x.000\nbroken\n")
        expectOneLineError(try QuireBinary.run(["transcript", mediaID, "--vtt", bad], store: store), status: 1, mentioning: "bad.vtt:3")
        #expect(try QuireBinary.run(["show", id, "--json"], store: store).stdout == shown)

        #expect(try QuireBinary.run(["transcript", String(mediaID.prefix(8)), "--text", "new words"], store: store).status == 0)
        #expect(try QuireBinary.run(["search", "words"], store: store).stdout.contains(String(id.prefix(8))))
        expectOneLineError(try QuireBinary.run(["attach", id, dir.path + "/nope.jpg"], store: store), status: 1, mentioning: "nope.jpg")
    }

    @Test func badInputIsOneLineAndChangesNothing() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        let latin1 = dir.file("latin1.txt", bytes: [0x63, 0x61, 0x66, 0xE9])
        expectOneLineError(try QuireBinary.run(["add", "--body-file", latin1], store: store), status: 1, mentioning: "UTF-8")
        expectOneLineError(try QuireBinary.run(["add", "--body-file", dir.path + "/missing"], store: store), status: 1, mentioning: "missing")
        expectOneLineError(try QuireBinary.run(["list"], store: store), status: 1, mentioning: "no journal here yet")

        // Two entries whose ids share a long prefix.
        let a = "abcdef01-0000-4000-8000-000000000001", b = "abcdef01-0000-4000-8000-000000000002"
        let file = dir.file("two.jsonl", #"{"id": "\#(a)", "created": "2025-01-01T00:00:00Z"}"# + "\n" + #"{"id": "\#(b)", "created": "2025-01-02T00:00:00Z"}"#)
        #expect(try QuireBinary.run(["import", file], store: store).status == 0)
        expectOneLineError(try QuireBinary.run(["show", "abcdef01"], store: store), status: 1, mentioning: "more than one")
        expectOneLineError(try QuireBinary.run(["show", "abc"], store: store), status: 1, mentioning: "not an id")
        expectOneLineError(try QuireBinary.run(["rm", "99999999"], store: store), status: 1, mentioning: "no entry or attachment")
        #expect(try QuireBinary.run(["show", "abcdef01-0000-4000-8000-000000000002"], store: store).status == 0)

        let malformed = dir.file("bad.jsonl", #"{"created": "2025-05-05T00:00:00Z"}"# + "\n" + #"{"created": 5}"#)
        expectOneLineError(try QuireBinary.run(["import", malformed], store: store), status: 1, mentioning: "bad.jsonl:2")
        #expect(try QuireBinary.run(["list"], store: store).stdout.split(separator: "\n").count == 2)
    }

    /// Foundation traps on one-character paths in places; names like "a" must just work.
    @Test func oneCharacterFileNames() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        _ = dir.file("a", bytes: [1, 2, 3])
        _ = dir.file("j", #"{"created": "2025-01-01T00:00:00Z", "title": "x", "media": [{"path": "a"}]}"#)
        let imported = try QuireBinary.run(["import", "j"], store: store, cwd: dir.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        let id = try QuireBinary.run(["add", "--body", "b"], store: store).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let attached = try QuireBinary.run(["attach", id, "a"], store: store, cwd: dir.path)
        #expect(attached.status == 0, "\(attached.stderr)")
        #expect(PathText.parent("a") == "" && PathText.parent("/a") == "/" && PathText.parent("x/y/") == "x")
    }

    @Test func aStoreInUseIsAClearError() throws {
        let dir = TempDir()
        let path = dir.path + "/s"
        let store = try Store(folder: path, options: .init(create: true))
        try store.database.execute("BEGIN IMMEDIATE")
        let run = try QuireBinary.run(["add", "--body", "blocked"], store: path, environment: ["QUIRE_BUSY_TIMEOUT_MS": "100"])
        expectOneLineError(run, status: 1, mentioning: "in use by another process")
        try store.database.execute("ROLLBACK")
        #expect(try store.entryCount() == 0)
        #expect(try QuireBinary.run(["add", "--body", "now"], store: path).status == 0)
    }

    @Test func anUnreadableStoreIsRefusedUntouched() throws {
        let dir = TempDir()
        let garbage = dir.file("s/journal.sqlite", String(repeating: "garbage", count: 200))
        expectOneLineError(try QuireBinary.run(["add", "--body", "x"], store: dir.path + "/s"), status: 1, mentioning: "journal.sqlite")
        #expect(dir.read("s/journal.sqlite") == String(repeating: "garbage", count: 200))
        _ = garbage
        let notAFolder = dir.file("file", "x")
        expectOneLineError(try QuireBinary.run(["list"], store: notAFolder), status: 1, mentioning: "not a folder")
    }

    @Test func importExportRoundTripThroughTheCommandLine() throws {
        let dir = TempDir()
        let file = InterchangeTests.sampleFile(in: dir)
        let imported = try QuireBinary.run(["import", file, "--json"], store: dir.path + "/a")
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try JSONValue.parse(imported.stdout).object?["added"]?.number == 4)
        #expect(try QuireBinary.run(["export", "json", dir.path + "/out1"], store: dir.path + "/a").status == 0)
        #expect(try QuireBinary.run(["import", dir.path + "/out1/entries.jsonl"], store: dir.path + "/b").status == 0)
        #expect(try QuireBinary.run(["export", "json", dir.path + "/out2"], store: dir.path + "/b").status == 0)
        #expect(dir.read("out1/entries.jsonl") == dir.read("out2/entries.jsonl"))
        let list = try QuireBinary.run(["list", "--journal", "Сны", "--json"], store: dir.path + "/b")
        #expect(try JSONValue.parse(list.stdout).array?.count == 1)
        let conflicts = try QuireBinary.run(["conflicts", "--json"], store: dir.path + "/b")
        #expect(conflicts.status == 0 && conflicts.stdout == "[]\n")
    }
}
