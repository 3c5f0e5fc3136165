import Foundation
import Testing
@testable import QuireCLI
@testable import QuireStore

/// Entry text and server object names reach the terminal: control characters in them are
/// shown as escapes there, error lines stay one line everywhere, pipes get the journal's bytes.
@Suite struct TerminalSafetyTests {
    static let hostile = "title\u{1B}]0;pwned\u{07}\u{1B}[2J\r\u{202E}gnp.exe"

    @Test func showAndListOnATerminalEscapeControlCharacters() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        let id = try QuireBinary.run(["add", "--title", Self.hostile, "--body", "line one\nline two\u{1B}[31m"], store: store)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for command in [["show", id], ["list"], ["search", "line"]] {
            let screen = try onTerminal(["--store", store] + command)
            #expect(!screen.contains("\u{1B}") && !screen.contains("\u{07}") && !screen.contains("\u{202E}"), "\(command): \(screen)")
            #expect(screen.contains("\\x1b]0;pwned\\x07") && screen.contains("<U+202E>"), "\(command): \(screen)")
        }
        #expect(try onTerminal(["--store", store, "show", id]).contains("line one"))
        // In a pipe the bytes are the journal's own: scripts and exports lose nothing.
        #expect(try QuireBinary.run(["show", id], store: store).stdout.contains(Self.hostile))
    }

    @Test func anErrorQuotingAHostileNameIsOneLineEverywhere() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        let id = try QuireBinary.run(["add", "--body", "x"], store: store).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let run = try QuireBinary.run(["attach", id, dir.path + "/no\nsuch\u{1B}[2Jfile.ogg"], store: store)
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        #expect(lines.count <= 2 && lines[0].hasPrefix("quire: error: ") && lines[0].contains("no such\\x1b[2Jfile.ogg"), "\(run.stderr)")
        #expect(!run.stderr.contains("\u{1B}"))
    }

    @Test func escapingKeepsOrdinaryTextOfEveryScript() {
        let text = "Вечер в Москве — 東京タワー — مرحبا\tok\n"
        #expect(TerminalText.escaped(text) == text)
        #expect(TerminalText.escaped("a\nb", keepingNewlines: false) == "a\\nb")
        #expect(TerminalText.escaped("\u{9B}31m\u{7F}") == "\\x9b31m\\x7f")
    }

    /// Runs quire under `script`, which gives it a pseudo-terminal, and returns what it printed.
    private func onTerminal(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let command = ([QuireBinary.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        process.arguments = ["-qec", command, "/dev/null"]
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
