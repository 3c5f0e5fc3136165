import Foundation
import Testing
@testable import QuireCLI

/// Every option a command accepts is documented in its `--help`, and every option its help
/// names is one it accepts: the parser's spec and the help text cannot drift apart.
@Suite struct OptionDriftTests {
    /// `--name` words in a help text (`--store` and `--help` are global).
    static func documented(_ help: String) -> Set<String> {
        var names = Set<String>()
        var rest = Substring(help)
        while let range = rest.range(of: "--") {
            let name = rest[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" }
            if let first = name.first, first.isLetter { names.insert(String(name)) }
            rest = rest[range.upperBound...]
        }
        return names.subtracting(["store", "help"])
    }

    /// Options of other programs a help text mentions: `jrnl --export json`, `sync --watch`.
    static let mentions: [String: Set<String>] = ["import": ["export"], "service": ["watch"]]

    @Test func helpAndSpecNameTheSameOptions() throws {
        for command in QuireMain.commands {
            let spec = command.spec
            let accepted = spec.options.union(spec.flags)
            let documented = Self.documented(command.help).subtracting(Self.mentions[command.name] ?? [])
            let undocumented = accepted.subtracting(documented).sorted()
            let unaccepted = documented.subtracting(accepted).sorted()
            #expect(undocumented.isEmpty, "\(command.name): accepted but not documented: \(undocumented)")
            #expect(unaccepted.isEmpty, "\(command.name): documented but not accepted: \(unaccepted)")
        }
    }
}
