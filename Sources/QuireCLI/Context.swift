import Foundation
import QuireKit
import QuireSupport
#if canImport(Glibc)
import Glibc
#endif

/// What a command runs with: where the store is, the environment, and the terminal.
final class Context {
    let storePath: String
    let environment: [String: String]
    let stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
    let stderrIsTerminal = isatty(STDERR_FILENO) == 1

    init(storeOption: String?, environment: [String: String]) {
        self.environment = environment
        if let storeOption, !storeOption.isEmpty {
            storePath = storeOption
        } else if let fromEnv = environment["QUIRE_STORE"], !fromEnv.isEmpty {
            storePath = fromEnv
        } else if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            storePath = data + "/quire"
        } else {
            storePath = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share/quire"
        }
    }

    /// Opens the store; `create` for commands that write something new, `reading` for
    /// commands that only read (a store this user may not write then opens read-only).
    func openStore(create: Bool = false, reading: Bool = false, cacheMebibytes: Int = 16) throws -> Store {
        var options = Store.Options(create: create)
        options.readOnlyIfUnwritable = reading
        options.cacheMebibytes = cacheMebibytes
        #if DEBUG  // a test knob: how long to wait for another process's write lock
        if let ms = environment["QUIRE_BUSY_TIMEOUT_MS"].flatMap(Int32.init) { options.busyTimeoutMilliseconds = ms }
        #endif
        return try Store(folder: storePath, options: options)
    }

    /// Prints a line of output; on a terminal, control characters in it are escaped
    /// (`TerminalText`). In a pipe the bytes are the journal's own.
    func print(_ text: String) {
        FileHandle.standardOutput.write(Data(((stdoutIsTerminal ? TerminalText.escaped(text) : text) + "\n").utf8))
    }

    func printError(_ text: String) {
        FileHandle.standardError.write(Data(((stderrIsTerminal ? TerminalText.escaped(text) : text) + "\n").utf8))
    }

    /// A progress line on a terminal's stderr; nothing in pipes.
    func progress(_ label: String) -> ProgressHandler? {
        guard stderrIsTerminal else { return nil }
        return { done, total in
            let line: String
            if total > 0 {
                let fraction = min(1, Double(done) / Double(total))
                let width = 30
                let filled = Int(fraction * Double(width))
                line = "\r\(label) [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
                    + "] \(Int(fraction * 100))%"
            } else {
                line = "\r\(label) \(done)"
            }
            // A finished bar is cleared, not left standing: an import's or export's phases
            // each reach their end, and the line saying what was done replaces the bar.
            FileHandle.standardError.write(Data((total > 0 && done >= total ? "\r\u{1B}[2K" : line).utf8))
        }
    }

    /// Reads a text file that must be UTF-8.
    func readText(_ path: String, what: String) throws -> String {
        try readText(path, what: what, hint: "convert it, e.g. with iconv -t UTF-8") { String(validating: $0, as: UTF8.self) }
    }

    /// A file an editor wrote back, as `SourceText` reads it: an editor set to save DOS
    /// files (CRLF, a byte order mark) gives the same lines as one that saves Unix ones.
    func readEditedText(_ path: String, what: String) throws -> String {
        try readText(path, what: what, hint: "save it as UTF-8 in the editor", decode: SourceText.decode)
    }

    private func readText(_ path: String, what: String, hint: String, decode: (Data) -> String?) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError.failure("cannot read \(what) \(path)", hint: nil)
        }
        guard let text = decode(data) else { throw CLIError.failure("\(what) \(path) is not UTF-8 text", hint: hint) }
        return text
    }

    /// Asks a yes-or-no question on the terminal; true only for an answer starting with y.
    /// Nil when standard input is not a terminal: there is no one to ask.
    func confirm(_ question: String) -> Bool? {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        FileHandle.standardError.write(Data((TerminalText.escaped(question) + " [y/N] ").utf8))
        guard let answer = Swift.readLine(strippingNewline: true) else { return false }
        return answer.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("y")
    }

    /// Reads all of standard input as UTF-8 text.
    func readStandardInput(what: String) throws -> String {
        if isatty(STDIN_FILENO) == 1 {
            printError("Type the \(what); end with Ctrl-D on a line of its own.")
        }
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard let text = String(validating: data, as: UTF8.self) else {
            throw CLIError.failure("standard input is not UTF-8 text", hint: nil)
        }
        return text
    }
}

/// A subcommand: a one-sentence abstract, its help text, and `run`.
protocol Command: Sendable {
    static var name: String { get }
    static var abstract: String { get }
    /// Usage lines and what the command does: `--help` without the option list.
    static var usage: String { get }
    /// Every option the command takes, declared once: parsing, `--help` and docs/CLI.md come from it.
    static var options: [OptionSpec] { get }
    /// The parser's view of `options` (a command may change it: search's `-word`).
    static var spec: Arguments.Spec { get }
    static func run(_ arguments: Arguments, context: Context) throws
}

extension Command {
    static var spec: Arguments.Spec { OptionSpec.spec(options) }

    /// Usage, what it does, and the options.
    static var help: String { options.isEmpty ? usage : usage + "\n\nOptions:\n" + OptionSpec.render(options) }

    static var fullHelp: String {
        "\(abstract)\n\n\(help)\n\nGlobal options:\n  --store DIR   the journal store (default $QUIRE_STORE, else $XDG_DATA_HOME/quire)\n  -h, --help    show this help"
    }
}
