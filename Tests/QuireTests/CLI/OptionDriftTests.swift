import Foundation
import Testing
@testable import QuireCLI

/// Options are declared once (`OptionSpec`): parsing and the option list of `--help` come
/// from the declaration. What is still written by hand (usage lines, prose) may name only
/// declared options, and docs/CLI.md's reference is the declarations' own output.
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
    static let mentions: [String: Set<String>] = ["import": ["export", "pending"], "attach": ["pending"], "service": ["watch"], "tags": ["tag"],
                                                  "journals": ["journal"]]

    @Test func helpAndSpecNameTheSameOptions() throws {
        for command in QuireMain.commands {
            let spec = command.spec
            let accepted = spec.options.union(spec.flags)
            let written = Self.documented(command.usage).subtracting(Self.mentions[command.name] ?? [])
            let unaccepted = written.subtracting(accepted).sorted()
            #expect(unaccepted.isEmpty, "\(command.name): its usage names options it does not take: \(unaccepted)")
            #expect(Set(command.options.map(\.name)).count == command.options.count, "\(command.name): an option declared twice")
            for option in command.options {
                #expect(command.help.contains("\n  " + option.label), "\(command.name): --\(option.name) is not listed in --help")
            }
        }
    }

    /// docs/CLI.md ends with the reference the declarations generate; QUIRE_UPDATE_GOLDEN=1
    /// rewrites it after a deliberate change.
    @Test func cliReferenceIsGenerated() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/CLI.md").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let marker = "\n## Reference\n"
        let contract = text.range(of: marker).map { String(text[..<$0.lowerBound]) } ?? text
        let expected = contract + "\n" + QuireMain.reference
        if ProcessInfo.processInfo.environment["QUIRE_UPDATE_GOLDEN"] == "1" {
            try expected.write(toFile: path, atomically: true, encoding: .utf8)
        }
        #expect(text == expected, "docs/CLI.md's reference is not what the declarations generate")
    }
}
