import Foundation
import QuireKit

/// Dispatches `quire COMMAND ...` and turns every error into one line and an exit code.
enum QuireMain {
    static let version = "0.1.0"

    static let commands: [any Command.Type] = [
        AddCommand.self, EditCommand.self, RemoveCommand.self, AttachCommand.self, TranscriptCommand.self, TranscribeCommand.self,
        ListCommand.self, ShowCommand.self, SearchCommand.self, TagsCommand.self, JournalsCommand.self, ConflictsCommand.self,
        ImportCommand.self, ExportCommand.self, RemoteCommand.self, PasswdCommand.self,
        SyncCommand.self, StatusCommand.self, RestoreCommand.self, VerifyCommand.self, PruneCommand.self, ServiceCommand.self,
        DeviceCommand.self,
    ]

    static var overview: String {
        var text = "quire — a private journal: write, attach voice notes and photos, search, sync end-to-end encrypted, restore\n\nUsage: quire [--store DIR] COMMAND [OPTIONS]\n\nCommands:\n"
        for command in commands {
            text += "  " + command.name.padding(toLength: 12, withPad: " ", startingAt: 0) + command.abstract + "\n"
        }
        text += "\nRun `quire COMMAND --help` for a command's options; `quire --version` (-V) prints the version.\n"
            + "Exit codes: 0 done, 1 failed, 2 usage error."
        return text
    }

    /// The command reference of docs/CLI.md: every command's `--help`, from the declarations.
    static var reference: String {
        var text = "## Reference\n\nGenerated from the commands' declarations (`swift test --filter cliReference`\n"
            + "with QUIRE_UPDATE_GOLDEN=1 rewrites it); `quire COMMAND --help` prints the same.\n"
        for command in commands {
            text += "\n### quire \(command.name)\n\n```\n" + command.fullHelp + "\n```\n"
        }
        return text
    }

    static func run(_ args: [String], environment: [String: String]) -> Int32 {
        // --store before the command is Quire's own; after it, the command's parser reads it
        // like any other option, so it is never taken from another option's value
        // (`quire add --title --store` titles an entry "--store").
        var rest = args
        var storeOption: String?
        while let first = rest.first, first == "--store" || first.hasPrefix("--store=") {
            if first == "--store" {
                guard rest.count > 1 else { return report(.usage("option --store needs a value"), command: nil) }
                storeOption = rest[1]
                rest.removeFirst(2)
            } else {
                storeOption = String(first.dropFirst(8))
                rest.removeFirst()
            }
        }
        guard let name = rest.first else {
            print(overview)
            return 2
        }
        if name == "--help" || name == "-h" || name == "help" {
            if rest.count > 1, let command = commands.first(where: { $0.name == rest[1] }) {
                print(command.fullHelp)
            } else {
                print(overview)
            }
            return 0
        }
        if name == "--version" || name == "-V" || name == "version" {
            print("quire \(version)")
            return 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            if let near = nearest(name) {
                return report(.failure("unknown command '\(name)'", hint: "did you mean `quire \(near)`? (`quire --help` lists every command)"),
                              command: nil, exitCode: 2)
            }
            return report(.usage("unknown command '\(name)'"), command: nil)
        }
        do {
            var spec = command.spec
            spec.flags.insert("help")
            spec.options.insert("store")
            var arguments = try Arguments(Array(rest.dropFirst()), spec: spec)
            if arguments.flag("help") {
                print(command.fullHelp)
                return 0
            }
            if let store = arguments.value("store") {
                guard storeOption == nil || storeOption == store else { throw CLIError.usage("--store is given twice") }
                storeOption = store
            }
            arguments.forget("store")
            try command.run(arguments, context: Context(storeOption: storeOption, environment: environment))
            return 0
        } catch {
            return report(Messages.describe(error), command: command)
        }
    }

    /// The command `typed` was most likely meant to be: at most two letters off, or a start.
    static func nearest(_ typed: String) -> String? {
        let names = commands.map { $0.name } + ["help", "version"]
        let scored = names.map { ($0, editDistance(typed.lowercased(), $0)) }.filter { $0.1 <= 2 }
        if let best = scored.min(by: { $0.1 < $1.1 }) { return best.0 }
        return typed.count >= 2 ? names.first { $0.hasPrefix(typed.lowercased()) } : nil
    }

    /// Levenshtein distance, with a swap of two neighbours counting one (`lsit` → `list`).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        guard !x.isEmpty else { return y.count }
        guard !y.isEmpty else { return x.count }
        var d = (0...x.count).map { i in (0...y.count).map { j in i == 0 ? j : j == 0 ? i : 0 } }
        for i in 1...x.count {
            for j in 1...y.count {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[x.count][y.count]
    }

    static func report(_ error: CLIError, command: (any Command.Type)?, exitCode: Int32? = nil) -> Int32 {
        let stderr = FileHandle.standardError
        // A progress line may stand unfinished on a terminal: the error replaces it.
        if isatty(STDERR_FILENO) == 1 { stderr.write(Data("\r\u{1B}[2K".utf8)) }
        switch error {
        case .usage(let message):
            stderr.write(Data("quire: error: \(oneLine(message))\n".utf8))
            let helpFor = command.map { "quire \($0.name) --help" } ?? "quire --help"
            stderr.write(Data("hint: see `\(helpFor)`\n".utf8))
        case .failure(let message, let hint):
            stderr.write(Data("quire: error: \(oneLine(message))\n".utf8))
            if let hint { stderr.write(Data("hint: \(oneLine(hint))\n".utf8)) }
        }
        return exitCode ?? error.exitCode
    }

    /// Error messages are one line, whatever they quote, with no control character in it: they
    /// quote server object names and file names, which anyone may have chosen. What they quote
    /// is cut to `quotedLimit` characters (a 100 KB argument is not echoed whole), and the
    /// line to `lineLimit`.
    static func oneLine(_ text: String) -> String {
        let line = TerminalText.escaped(text.split(whereSeparator: \.isNewline).joined(separator: " "), keepingNewlines: false)
        var out = "", quoted: String?
        for character in line {
            if character == "'" {
                if let inside = quoted {
                    out += (inside.count > quotedLimit ? String(inside.prefix(quotedLimit)) + "…" : inside) + "'"
                    quoted = nil
                } else {
                    out += "'"
                    quoted = ""
                }
            } else if quoted != nil {
                quoted?.append(character)
            } else {
                out.append(character)
            }
        }
        if let inside = quoted { out += inside }
        return out.count > lineLimit ? String(out.prefix(lineLimit)) + "…" : out
    }

    static let quotedLimit = 200
    static let lineLimit = 1000
}
