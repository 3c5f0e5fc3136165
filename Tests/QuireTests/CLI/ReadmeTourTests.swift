import Foundation
import Testing
@testable import QuireStore

/// README.md's short tour, run line by line as written, through bash, with a `quire` on the
/// PATH: only what a reader must put in is put in (the ids `add` and `attach` printed for
/// the tour's `0732c635` and `5f2e81aa`, this run's server for the example one, the
/// passwords), and each line must succeed. Between lines the test makes what the tour talks
/// about: a concurrent edit on a second machine before `quire conflicts`.
@Suite(.enabled(if: Backends.servers.contains { $0.name == "apache" }, "needs the Apache that scripts/test starts"))
struct ReadmeTourTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md").path

    /// The command lines of the tour's shell block: comments and comment-only lines dropped.
    static func tourLines() throws -> [String] {
        let text = try String(contentsOfFile: readme, encoding: .utf8)
        guard let tour = text.range(of: "## A short tour"), let open = text.range(of: "```sh\n", range: tour.upperBound..<text.endIndex),
              let close = text.range(of: "\n```", range: open.upperBound..<text.endIndex) else { return [] }
        return text[open.upperBound..<close.lowerBound].split(separator: "\n").compactMap { line in
            guard !line.hasPrefix(" ") else { return nil }  // a comment continued
            // A comment starts at "  #" (two spaces or more before it), never inside the words.
            let command = line.range(of: "  #").map { String(line[..<$0.lowerBound]) } ?? String(line)
            let trimmed = command.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? nil : trimmed
        }
    }

    @Test func theTourRunsAsWritten() throws {
        let apache = try #require(Backends.servers.first { $0.name == "apache" }?.url)
        let password = try #require(Backends.settings.password)
        let dir = TempDir()
        let home = dir.path + "/home", work = dir.path + "/work", bin = dir.path + "/bin"
        for folder in [home, work, bin] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        try FileManager.default.createSymbolicLink(atPath: bin + "/quire", withDestinationPath: QuireBinary.path)
        // What the tour's lines name in the current folder.
        try FileManager.default.copyItem(atPath: ImportFixtures.media + "/voice.ogg", toPath: work + "/memo.ogg")
        try FileManager.default.copyItem(atPath: ImportFixtures.media + "/photo.jpg", toPath: work + "/cover.jpg")
        _ = dir.file("work/memo.srt", "1\n00:00:00,000 --> 00:00:01,500\nA voice note from the sea.\n\n2\n00:00:01,500 --> 00:00:03,000\nThe waves were loud.\n")
        let editor = dir.file("bin/tour-editor", "#!/bin/sh\nprintf '\\nAdded in the editor.\\n' >> \"$1\"\n")
        chmod(editor, 0o755)
        // A systemd that takes the unit (ServiceTests' stand-in).
        _ = dir.file("bin/systemctl", "#!/bin/sh\ncase \"$2\" in is-active) echo active ;; esac\nexit 0\n")
        chmod(bin + "/systemctl", 0o755)
        let repository = apache + "tour-" + UUID().uuidString.lowercased() + "/"

        var environment = ProcessInfo.processInfo.environment
        for inherited in ["QUIRE_STORE", "QUIRE_PASSPHRASE", "QUIRE_NEW_PASSPHRASE", "QUIRE_WEBDAV_PASSWORD", "XDG_DATA_HOME"] {
            environment[inherited] = nil
        }
        environment["HOME"] = home
        environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["EDITOR"] = editor
        environment["XDG_CONFIG_HOME"] = home + "/.config"
        environment["LANG"] = "C.UTF-8"
        environment["QUIRE_KDF_COST"] = "1,8192"
        environment["QUIRE_PASSPHRASE"] = "four random words first"
        environment["QUIRE_NEW_PASSPHRASE"] = "four random words second"
        var entry = "", attachment = ""

        func bash(_ line: String) throws -> QuireRun {
            try QuireBinary.run(["-c", line], environment: environment, cwd: work, executable: "/bin/bash")
        }

        let lines = try Self.tourLines()
        #expect(lines.count >= 30, "the tour was found: \(lines)")
        var ran = 0
        for written in lines {
            var line = written
            if line.hasPrefix("export ") {
                let assignment = line.dropFirst("export ".count)
                guard let eq = assignment.firstIndex(of: "=") else { continue }
                let name = String(assignment[..<eq])
                var value = String(assignment[assignment.index(after: eq)...])
                if value == "…" { value = password }  // the reader's own password
                environment[name] = value.hasPrefix("~") ? home + value.dropFirst() : value
                continue
            }
            line = line.replacingOccurrences(of: "0732c635", with: String(entry.prefix(8)))
                .replacingOccurrences(of: "5f2e81aa", with: String(attachment.prefix(8)))
                .replacingOccurrences(of: "https://cloud.example.org/remote.php/dav/files/me/journal/", with: repository)
                .replacingOccurrences(of: "https://…", with: repository)
                .replacingOccurrences(of: " --user me", with: " --user quire")
            if line.hasPrefix("quire conflicts keep") {
                let listed = try bash("quire conflicts --json")
                let id = try JSONValue.parse(listed.stdout).array?.first?.object?["conflict"]?.string
                line = line.replacingOccurrences(of: "3fa9c2e1", with: String(try #require(id, "a conflict to keep: \(listed.stdout)").prefix(8)))
            }
            if line == "quire conflicts" {
                // A second machine edits the first entry while this one does too.
                let other = dir.path + "/other"
                let restored = try bash("quire --store \(other) restore \(repository) --user quire")
                #expect(restored.status == 0, "\(restored.stderr)")
                #expect(try bash("quire --store \(other) edit \(entry) --body 'Went to the sea today, with Anna.'").status == 0)
                #expect(try bash("quire --store \(other) sync").status == 0)
                #expect(try bash("quire edit \(entry) --body 'Went to the sea today, alone.'").status == 0)
                #expect(try bash("quire sync").status == 0)
            }
            let result = try bash(line)
            #expect(result.status == 0, "\(line)\n\(result.stderr)")
            ran += 1
            if line.hasPrefix("quire add Went to the sea") { entry = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
            if line.hasPrefix("quire attach") { attachment = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
            if line.hasPrefix("quire passwd") { environment["QUIRE_PASSPHRASE"] = environment["QUIRE_NEW_PASSPHRASE"] }
            // What the tour promises of its searches.
            if line.hasPrefix("quire search Москва") { #expect(result.stdout.contains("Москве"), "\(result.stdout)") }
            if line.hasPrefix("quire search 東京") { #expect(result.stdout.contains("東京タワー"), "\(result.stdout)") }
            if line.hasPrefix("quire search travel") { #expect(result.stdout.contains("東京タワー"), "\(result.stdout)\(result.stderr)") }
            if line.hasPrefix("quire conflicts keep") { #expect(result.stderr.contains("Kept it"), "\(result.stderr)") }
            if line.hasPrefix("quire --store ~/new restore") {
                let restored = try bash("quire --store ~/new list")
                #expect(restored.stdout.contains("Вечер в Москве") && restored.stdout.contains("Went to the sea today"), "\(restored.stdout)")
            }
        }
        #expect(ran == lines.filter { !$0.hasPrefix("export ") }.count)
        #expect(!entry.isEmpty && !attachment.isEmpty)
    }
}
