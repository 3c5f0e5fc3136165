import Foundation
import Testing
@testable import QuireStore

/// The snags of a newcomer's first week, each through the command line as a person meets it.
@Suite struct FirstWeekTests {
    let dir = TempDir()
    var store: String { dir.path + "/s" }

    func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> QuireRun {
        try QuireBinary.run(arguments, store: store, environment: environment, stdin: stdin)
    }

    func entries() throws -> [[String: JSONValue]] {
        try JSONValue.parse(try run(["list", "--json"]).stdout).array?.compactMap(\.object) ?? []
    }

    /// jrnl 3/4's own text file, `[2024-05-08 09:15:00 PM] Title`, imports as jrnl shows it; a
    /// line in another date format is named, and nothing is imported.
    @Test func jrnlsDefaultTextFileImports() throws {
        let file = dir.file("journal.txt", "[2024-05-08 09:15:00 PM] Evening walk. Along the river with @anna.\n\n[2024-05-09 07:02:00 AM] Coffee.\n")
        let imported = try run(["import", "jrnl", file], environment: ["TZ": "Europe/Berlin"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let list = try run(["list"]).stdout
        #expect(list.contains("2024-05-08 21:15  Evening walk.  #anna") && list.contains("2024-05-09 07:02  Coffee."), "\(list)")
        let bad = dir.file("bad.txt", "[2024-05-08 09:15:00 PM] Fine.\n[08.05.2024 21:15] Other.\n")
        let refused = try QuireBinary.run(["import", "jrnl", bad], store: dir.path + "/t")
        #expect(refused.status == 1 && refused.stderr.contains("\(bad): line 2: starts like an entry"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 2)
    }

    /// The dates a jrnl user types; a day without a time is a date-only entry and lists so.
    @Test func datesInWordsAndDateOnlyEntries() throws {
        #expect(try run(["add", "--date", "yesterday at 9pm", "Late"]).status == 0)
        #expect(try run(["add", "--date", "2 December 2026", "A day"]).status == 0)
        let listed = try run(["list"]).stdout
        #expect(listed.contains(" 21:00  Late"), "\(listed)")
        #expect(listed.contains("2026-12-02        A day"), "no made-up 00:00: \(listed)")
        let shown = try run(["show", String(listed.split(separator: "\n").first { $0.contains("A day") }?.prefix(8) ?? "")]).stdout
        #expect(shown.contains("created:   Wednesday 2 December 2026\n"), "\(shown)")
        let bad = try run(["add", "--date", "the day before", "x"])
        #expect(bad.status == 2 && bad.stderr.contains("YYYY-MM-DD HH:MM"), "\(bad.stderr)")
    }

    /// `@work` and `#work` are the tag `work`; `--tags-from-text` takes jrnl-style tags from
    /// the words; an empty entry is refused with one line, as jrnl does.
    @Test func tagsAsTypedAndEmptyEntries() throws {
        #expect(try run(["add", "--tag", "@work", "--tag", "#home", "Tagged"]).status == 0)
        #expect(try run(["add", "--tags-from-text", "Met @Tom about #garden-plans, mail tom@example.com"]).status == 0)
        #expect(try run(["add", "Met @Ann"]).status == 0)
        let tags = Dictionary(try entries().map { ($0["body"]?.string ?? "", $0["tags"]?.array?.compactMap(\.string) ?? []) }) { a, _ in a }
        #expect(tags["Tagged"] == ["home", "work"])
        #expect(tags["Met @Tom about #garden-plans, mail tom@example.com"] == ["Tom", "garden-plans"])
        #expect(tags["Met @Ann"] == [], "without the flag the text is only text")
        #expect(try run(["list", "--tag", "@work"]).stdout.contains("Tagged"))
        for (arguments, stdin) in [(["add", ""], nil), (["add"], ""), (["add", "--body", "  \n"], nil)] as [([String], String?)] {
            let empty = try run(arguments, stdin: stdin)
            #expect(empty.status == 1 && empty.stderr.hasPrefix("quire: error: the entry is empty: nothing was added\n"), "\(arguments): \(empty.stderr)")
        }
        #expect(try entries().count == 3)
    }

    /// An option's value is never the next option (`add --title --store x` forgot the title),
    /// and an unknown option is guessed.
    @Test func optionsAreNotValuesAndTyposAreGuessed() throws {
        let forgot = try run(["add", "--title", "--store", dir.path + "/x", "text"])
        #expect(forgot.status == 2 && forgot.stderr.contains("option --title needs a value, not the option '--store'"), "\(forgot.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store) && !FileManager.default.fileExists(atPath: dir.path + "/x"))
        #expect(try run(["add", "--title=--store", "meant"]).status == 0, "written with = it is the value")
        let typo = try run(["list", "--tga", "x"])
        #expect(typo.status == 2 && typo.stderr.contains("unknown option '--tga'; did you mean --tag?"), "\(typo.stderr)")
        let far = try run(["list", "--zzzzzz"])
        #expect(far.status == 2 && far.stderr.contains("unknown option '--zzzzzz'\n"), "\(far.stderr)")
    }

    /// An Obsidian note prints as Obsidian shows it, in the EPUB (checked by EPUBCheck) and the
    /// PDF; the Markdown export keeps what the note holds, comments and unresolved links too.
    @Test func obsidianNotesPrintAsObsidianShowsThem() throws {
        _ = dir.file("vault/Journal/2025-03-01.md", """
            Market %%private: too dear%% with Marie; see [[Ideas]].

            A ==marked== day[^why].

            > [!note] Remember
            > Bread.

            [^why]: Because.
            """)
        _ = dir.file("vault/Journal/Undated idea.md", "No date here.\n")
        let imported = try run(["import", "markdown", dir.path + "/vault/Journal"])
        #expect(imported.status == 0 && imported.stderr.contains("Passed over 1 note without a date"), "\(imported.stderr)")

        let book = dir.path + "/book.epub"
        #expect(try run(["export", "epub", book]).status == 0)
        if ExternalTool.path("epubcheck") != nil {
            let (problems, _) = try EPUBCheck.problems(book, dir: dir)
            #expect(problems.isEmpty, "\(problems)")
        }
        let page = try ExternalTool.run("unzip", ["-p", book, "EPUB/text/2025-03.xhtml"]).stdout
        #expect(page.contains("<p>Market with Marie; see Ideas.</p>") && page.contains("<mark>marked</mark>"), "\(page)")
        #expect(page.contains("<div class=\"callout callout-note\">") && !page.contains("private"), "\(page)")

        let pdf = dir.path + "/book.pdf"
        #expect(try run(["export", "pdf", pdf]).status == 0)
        let text = try ExternalTool.run("pdftotext", [pdf, "-"]).stdout
        #expect(text.contains("Market with Marie; see Ideas.") && !text.contains("private") && !text.contains("[["), "\(text)")
        #expect(text.contains("A marked day1.") && text.contains("1. Because.") && !text.contains("[why]"), "\(text)")
        #expect(text.contains("Remember\nBread.") && !text.contains("[!note]"), "\(text)")

        #expect(try run(["export", "markdown", dir.path + "/md"]).status == 0)
        let month = dir.path + "/md/2025/03"
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: month).first { $0.hasSuffix(".md") })
        let markdown = try String(contentsOfFile: month + "/" + name, encoding: .utf8)
        #expect(markdown.contains("Market %%private: too dear%% with Marie; see [[Ideas]].") && markdown.contains("> [!note] Remember"), "\(markdown)")
    }

    /// `remote init` reaches the server before it asks for a passphrase: a server that is not
    /// there costs no passphrase typed for nothing.
    @Test func remoteInitReachesTheServerBeforeAskingForAPassphrase() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let port = UInt16(bigEndian: address.sin_port)
        close(listener)  // nothing listens there now
        #expect(try run(["remote", "set", "http://127.0.0.1:\(port)/dav/journal/"]).status == 0)
        let terminal = try Terminal(["remote", "init"], store: store, environment: ["QUIRE_HTTP_ATTEMPTS": "1"])
        #expect(terminal.finish() == 1)
        #expect(terminal.output.contains("http://127.0.0.1:\(port)/dav/journal/") && terminal.output.contains("refused the connection"), "\(terminal.output)")
        #expect(!terminal.output.contains("passphrase"), "never asked: \(terminal.output)")
    }

    /// With a user named and no password anywhere, `remote init` asks for the WebDAV password
    /// on the terminal (once), then for the passphrase; errors name the URL, not "/".
    @Test(.enabled(if: Backends.servers.contains { $0.name == "apache" }, "needs the Apache that scripts/test starts"))
    func remoteInitAsksForTheWebDAVPasswordAndNamesTheURL() throws {
        let apache = try #require(Backends.servers.first { $0.name == "apache" }?.url)
        let password = try #require(Backends.settings.password)
        let home = dir.path + "/home"  // no ~/.netrc there
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let url = apache + "week-" + UUID().uuidString.lowercased() + "/"
        #expect(try run(["add", "x"]).status == 0)
        #expect(try run(["remote", "set", url, "--user", "quire"]).status == 0)
        let terminal = try Terminal(["remote", "init"], store: store, environment: ["HOME": home, "QUIRE_KDF_COST": "1,8192"])
        #expect(terminal.waitFor("WebDAV password for quire at 127.0.0.1: "))
        terminal.type(password)
        #expect(terminal.waitFor("New repository passphrase"))
        terminal.type("four random words here")
        #expect(terminal.waitFor("Again: "))
        terminal.type("four random words here")
        #expect(terminal.finish() == 0, "\(terminal.output)")
        #expect(!terminal.output.contains(password), "the password is not echoed")
        #expect(terminal.output.components(separatedBy: "WebDAV password").count == 2, "asked once: \(terminal.output)")

        // A URL under a folder that is not there: the error names that URL.
        #expect(try QuireBinary.run(["remote", "set", apache + "no-such-folder/deeper/", "--user", "quire"], store: dir.path + "/t").status == 0)
        let missing = try QuireBinary.run(["remote", "init"], store: dir.path + "/t", environment: ["QUIRE_WEBDAV_PASSWORD": password])
        #expect(missing.status == 1 && missing.stderr.hasPrefix("quire: error: \(apache)no-such-folder/deeper/: HTTP 409"), "\(missing.stderr)")
    }

    /// Machines are named once (`quire device name laptop`) and the name syncs; `conflicts`
    /// shows the kept version against the text now, line by line, naming both machines.
    @Test func conflictsShowBothVersionsAndNameTheMachines() throws {
        let env = ["QUIRE_KDF_COST": "1,8192", "QUIRE_PASSPHRASE": "pw"]
        let (a, b, repo) = (dir.path + "/a", dir.path + "/b", "file://" + dir.path + "/repo")
        func quire(_ arguments: [String], _ store: String) throws -> QuireRun {
            let result = try QuireBinary.run(arguments, store: store, environment: env)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return result
        }
        let entry = try quire(["add", "--title", "Sea", "--body", "Went to the sea.\nThe water was cold.\nHome by six."], a).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try quire(["device", "name", "laptop"], a)
        _ = try quire(["remote", "set", repo], a)
        _ = try quire(["remote", "init"], a)
        _ = try quire(["sync"], a)
        _ = try quire(["restore", repo], b)
        _ = try quire(["device", "name", "desk"], b)
        _ = try quire(["edit", entry, "--body", "Went to the sea.\nThe water was warm.\nHome by six."], a)
        _ = try quire(["edit", entry, "--body", "Went to the sea.\nThe water was freezing.\nHome by six."], b)
        for store in [a, b, a] { _ = try quire(["sync"], store) }
        let names = try JSONValue.parse(try quire(["device", "--json"], a).stdout).object?["devices"]?.array?.compactMap { $0.object?["name"]?.string }
        #expect(Set(names ?? []) == ["laptop", "desk"], "both names reached a: \(names ?? [])")
        for store in [a, b] {
            let listed = try quire(["conflicts"], store).stdout
            let lines = listed.split(separator: "\n").map(String.init)
            // Which side won depends on the clocks; the listing names both machines either way.
            let here = store == a ? "laptop" : "desk", there = store == a ? "desk" : "laptop"
            let header = try #require(lines.first, "\(listed)")
            #expect(header.contains("body: the version") && (header.contains(there) || header.contains("this machine"))
                    && (header.contains(here) || header.contains("this machine")), "\(listed)")
            #expect(lines.contains("    Went to the sea.") && lines.contains("    Home by six."), "line breaks kept: \(listed)")
            #expect(lines.filter { $0.hasPrefix("  - The water was") }.count == 1 && lines.filter { $0.hasPrefix("  + The water was") }.count == 1,
                    "\(listed)")
        }
        let status = try quire(["status"], b).stdout
        #expect(status.contains("(desk)"), "\(status)")
    }

    /// A corrected transcript keeps its timing: `--text` gives each word the time of the old
    /// word it matches, and `--edit` opens the timed text (SRT) in the editor.
    @Test func correctingATranscriptKeepsItsTiming() throws {
        let entry = try run(["add", "Voice"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = dir.file("memo.wav", bytes: EverydayCommandTests().wav(seconds: 9))
        _ = dir.file("memo.srt", "1\n00:00:00,000 --> 00:00:03,000\nWe walked to the see.\n\n2\n00:00:03,000 --> 00:00:06,500\nIt was cold and gray.\n\n3\n00:00:06,500 --> 00:00:09,000\nThen home.\n")
        let media = try run(["attach", entry, dir.path + "/memo.wav", "--srt", dir.path + "/memo.srt"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        func segments() throws -> [(Double, String)] {
            let shown = try JSONValue.parse(try run(["show", media, "--json"]).stdout)
            let item = shown.object?["media"]?.array?.first?.object
            return (item?["segments"]?.array ?? []).compactMap { s in
                guard let o = s.object, let start = o["start"]?.number, let text = o["text"]?.string else { return nil }
                return (start, text)
            }
        }
        #expect(try run(["transcript", media, "--text", "We walked to the sea. It was cold and very grey. Then home."]).status == 0)
        let fixed = try segments()
        #expect(fixed.map(\.0) == [0, 3, 6.5] && fixed.map(\.1) == ["We walked to the sea.", "It was cold and very grey.", "Then home."], "\(fixed)")

        let editor = dir.file("fix.sh", "#!/bin/sh\nsed -i 's/Then home./Then we went home./' \"$1\"\n")
        chmod(editor, 0o755)
        let edited = try run(["transcript", media, "--edit"], environment: ["EDITOR": editor])
        #expect(edited.status == 0 && edited.stderr.contains("3 timed segments"), "\(edited.stderr)")
        #expect(try segments().map(\.1).last == "Then we went home." && segments().map(\.0) == [0, 3, 6.5])
        let broken = dir.file("break.sh", "#!/bin/sh\nsed -i 's/-->/->/' \"$1\"\n")
        chmod(broken, 0o755)
        let refused = try run(["transcript", media, "--edit"], environment: ["EDITOR": broken])
        #expect(refused.status == 1 && refused.stderr.contains("the edited transcript:1: expected a timing line")
                && refused.stderr.contains("nothing was changed"), "\(refused.stderr)")
        #expect(try segments().count == 3, "nothing changed")
    }

    /// `transcribe --pending` with nothing to hear says so; the hint for a missing engine
    /// names a script that exists (this checkout's, by its full path) or, for a quire
    /// installed away from its source, where to get it.
    @Test func voiceNoteMessagesFitWhereQuireRuns() throws {
        let none = ["QUIRE_FASTER_WHISPER": dir.path + "/none"]
        #expect(try run(["add", "x"]).status == 0)
        let idle = try run(["transcribe", "--pending"], environment: none)
        #expect(idle.status == 0 && idle.stderr.contains("Nothing to transcribe"), "\(idle.stderr)")
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/install-whisper").path
        let here = try run(["transcribe", "--engines"], environment: none).stdout
        #expect(here.contains("install one with \(checkout)"), "\(here)")
        let installed = dir.path + "/bin/quire"
        try FileManager.default.createDirectory(atPath: dir.path + "/bin", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: QuireBinary.path, toPath: installed)
        let away = try QuireBinary.run(["transcribe", "--engines"], store: store, environment: none, executable: installed).stdout
        #expect(away.contains("scripts/install-whisper from Quire's source") && away.contains("QUIRE_FASTER_WHISPER"), "\(away)")
    }

    /// Two voice notes with the same bytes keep their own names in the Markdown export.
    @Test func theMarkdownExportNamesEachVoiceNoteByItsOwnName() throws {
        let bytes = EverydayCommandTests().wav(seconds: 1)
        _ = dir.file("monday.wav", bytes: bytes)
        _ = dir.file("tuesday.wav", bytes: bytes)
        let a = try run(["add", "--date", "2025-03-01", "Monday"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let b = try run(["add", "--date", "2025-03-02", "Tuesday"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try run(["attach", a, dir.path + "/monday.wav"]).status == 0)
        #expect(try run(["attach", b, dir.path + "/tuesday.wav"]).status == 0)
        #expect(try run(["export", "markdown", dir.path + "/md"]).status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/md/attachments").sorted()
        #expect(files == ["monday.wav", "tuesday.wav"], "\(files)")
        let notes = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/md/2025/03").sorted()
        let tuesday = try String(contentsOfFile: dir.path + "/md/2025/03/" + (notes.last ?? ""), encoding: .utf8)
        #expect(tuesday.contains("attachments/tuesday.wav"), "\(tuesday)")
    }

    /// `search` finds journal names too and says so on stderr when nothing matches;
    /// `import jrnl` without its file says the file is missing.
    @Test func searchSaysWhenNothingMatchesAndFindsJournals() throws {
        #expect(try run(["add", "--journal", "Travel", "--date", "yesterday", "今日は東京タワーに行きました。"]).status == 0)
        #expect(try run(["add", "Nothing to do with it."]).status == 0)
        let travel = try run(["search", "travel", "--from", "last monday"])
        #expect(travel.status == 0 && travel.stdout.contains("東京タワー") && !travel.stdout.contains("Nothing"), "\(travel.stdout)")
        let none = try run(["search", "zebra"])
        #expect(none.status == 0 && none.stdout.isEmpty && none.stderr == "No entry matches zebra.\n", "\(none.stderr)")
        let filtered = try run(["search", "zebra", "--tag", "x"])
        #expect(filtered.stderr == "No entry matches zebra with those filters.\n")
        let forgot = try run(["import", "jrnl"])
        #expect(forgot.status == 2 && forgot.stderr.contains("missing the jrnl file to import: quire import jrnl FILE"), "\(forgot.stderr)")
    }
}
