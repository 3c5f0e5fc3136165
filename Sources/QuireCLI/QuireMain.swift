import Foundation
import QuireStore

/// Dispatches `quire COMMAND ...` and turns every error into one line and an exit code.
enum QuireMain {
    static let version = "0.1.0"

    static let commands: [any Command.Type] = [
        AddCommand.self, EditCommand.self, RemoveCommand.self, AttachCommand.self, TranscriptCommand.self,
        ListCommand.self, ShowCommand.self, SearchCommand.self, ConflictsCommand.self,
        ImportCommand.self, ExportCommand.self, RemoteCommand.self, PasswdCommand.self,
        SyncCommand.self, StatusCommand.self, RestoreCommand.self, VerifyCommand.self, PruneCommand.self, ServiceCommand.self,
    ]

    static var overview: String {
        var text = "quire — a private journal: write, attach voice notes and photos, search, sync end-to-end encrypted, restore\n\nUsage: quire [--store DIR] COMMAND [OPTIONS]\n\nCommands:\n"
        for command in commands {
            text += "  " + command.name.padding(toLength: 12, withPad: " ", startingAt: 0) + command.abstract + "\n"
        }
        text += "\nRun `quire COMMAND --help` for a command's options. Exit codes: 0 done, 1 failed, 2 usage error."
        return text
    }

    static func run(_ args: [String], environment: [String: String]) -> Int32 {
        // --store may stand anywhere; take it out before the command parses the rest.
        var rest: [String] = []
        var storeOption: String?
        var i = 0
        while i < args.count {
            let arg = args[i]
            if arg == "--" { rest += args[i...]; break }
            if arg == "--store" {
                guard i + 1 < args.count else { return report(.usage("option --store needs a value"), command: nil) }
                storeOption = args[i + 1]
                i += 2
                continue
            }
            if arg.hasPrefix("--store=") { storeOption = String(arg.dropFirst(8)); i += 1; continue }
            rest.append(arg)
            i += 1
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
        if name == "--version" || name == "version" {
            print("quire \(version)")
            return 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            return report(.usage("unknown command '\(name)'"), command: nil)
        }
        let context = Context(storeOption: storeOption, environment: environment)
        do {
            var spec = command.spec
            spec.flags.insert("help")
            let arguments = try Arguments(Array(rest.dropFirst()), spec: spec)
            if arguments.flag("help") {
                print(command.fullHelp)
                return 0
            }
            try command.run(arguments, context: context)
            return 0
        } catch {
            return report(Messages.describe(error), command: command)
        }
    }

    static func report(_ error: CLIError, command: (any Command.Type)?) -> Int32 {
        let stderr = FileHandle.standardError
        switch error {
        case .usage(let message):
            stderr.write(Data("quire: error: \(oneLine(message))\n".utf8))
            let helpFor = command.map { "quire \($0.name) --help" } ?? "quire --help"
            stderr.write(Data("hint: see `\(helpFor)`\n".utf8))
        case .failure(let message, let hint):
            stderr.write(Data("quire: error: \(oneLine(message))\n".utf8))
            if let hint { stderr.write(Data("hint: \(oneLine(hint))\n".utf8)) }
        }
        return error.exitCode
    }

    /// Error messages are one line, whatever they quote, with no control character in it: they
    /// quote server object names and file names, which anyone may have chosen.
    static func oneLine(_ text: String) -> String {
        TerminalText.escaped(text.split(whereSeparator: \.isNewline).joined(separator: " "), keepingNewlines: false)
    }
}
