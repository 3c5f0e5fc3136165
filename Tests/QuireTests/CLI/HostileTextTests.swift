import Foundation
import Testing
@testable import QuireStore

/// Text that is legal but rarely seen: a NUL inside an entry is kept and given back exactly
/// (it was cut off at the first one), a control character in a store path never reaches a
/// systemd unit, and an error line quotes no more than a few hundred characters of what it
/// was given.
@Suite struct HostileTextTests {
    let dir = TempDir()
    var store: String { dir.path + "/journal" }

    @Test func aNulInsideTheTextIsKeptAndRoundTripsExactly() throws {
        let add = try QuireBinary.run(["add", "--title", "nul"], store: store, stdin: "before\u{0}after the NUL")
        #expect(add.status == 0, "\(add.stderr)")
        let id = add.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let shown = try QuireBinary.run(["show", id, "--json"], store: store).stdout
        #expect(try JSONValue.parse(shown).object?["body"]?.string == "before\u{0}after the NUL")
        // The lossless dump: a field with a NUL comes back whole through import and export.
        let line = #"{"id": "5b0f3a52-8c1e-4a61-9a55-3d2e6f1b7c90", "created": "2025-03-01T21:14:05+03:00", "title": "t\u0000itle", "body": "a\u0000b\u0000"}"#
        let file = dir.file("in.jsonl", line + "\n")
        #expect(try QuireBinary.run(["import", file], store: dir.path + "/other").status == 0)
        #expect(try QuireBinary.run(["export", "json", dir.path + "/dump"], store: dir.path + "/other").status == 0)
        let dumped = try String(contentsOfFile: dir.path + "/dump/entries.jsonl", encoding: .utf8)
        let entry = try #require(try JSONValue.parse(String(dumped.split(separator: "\n")[0])).object)
        #expect(entry["title"]?.string == "t\u{0}itle" && entry["body"]?.string == "a\u{0}b\u{0}")
        #expect(try QuireBinary.run(["search", "after"], store: store).stdout.contains(String(id.prefix(8))))
    }

    @Test func aStorePathWithANewlineIsRefusedByServiceInstall() throws {
        let odd = dir.path + "/journal\nExecStartPre=/bin/true"
        #expect(try QuireBinary.run(["add", "x"], store: odd).status == 0)
        let run = try QuireBinary.run(["service", "install"], store: odd, environment: ["XDG_CONFIG_HOME": dir.path + "/config"])
        #expect(run.status == 1 && run.stderr.contains("control character"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/config/systemd"))
        #expect(run.stderr.split(separator: "\n").count <= 2)
    }

    @Test func anErrorLineQuotesAFewHundredCharactersAtMost() throws {
        let huge = String(repeating: "x", count: 100_000)
        let run = try QuireBinary.run(["add", "--date", huge, "text"], store: store)
        #expect(run.status == 2)
        let line = run.stderr.split(separator: "\n").first ?? ""
        #expect(line.hasPrefix("quire: error: --date '") && line.count < 700, "\(line.count) characters")
    }
}
