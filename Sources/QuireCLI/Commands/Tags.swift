import Foundation
import QuireKit

/// `quire tags` and `quire journals`: what the journal holds, with counts.
struct TagsCommand: Command {
    static let name = "tags"
    static let abstract = "List every tag with how many entries carry it."
    static let usage = """
        Usage: quire tags [--json]

        Most used first. `quire list --tag T` shows the entries of one.
        """
    static let options: [OptionSpec] = [.flag("json", "a JSON array of {\"tag\", \"entries\"}")]

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        let store = try context.openStore(reading: true)
        Counts.show(try store.tagCounts(), key: "tag", prefix: "#", empty: "No tags yet: `quire add --tag T` or `quire edit ID --add-tag T`.",
                    arguments, context)
    }
}

struct JournalsCommand: Command {
    static let name = "journals"
    static let abstract = "List the journals with how many entries each holds."
    static let usage = """
        Usage: quire journals [--json]

        `quire list --journal J` shows the entries of one; `quire add --journal J` writes in it.
        """
    static let options: [OptionSpec] = [.flag("json", "a JSON array of {\"journal\", \"entries\"}")]

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        let store = try context.openStore(reading: true)
        Counts.show(try store.journalCounts(), key: "journal", prefix: "", empty: "No entries yet.", arguments, context)
    }
}

enum Counts {
    static func show(_ counts: [(name: String, count: Int)], key: String, prefix: String, empty: String,
                     _ arguments: Arguments, _ context: Context) {
        if arguments.flag("json") {
            var json = JSONOutput()
            json.array(counts) { j, item in j.object([(key, .string(item.name)), ("entries", .int(item.count))]) }
            context.print(json.text)
            return
        }
        if counts.isEmpty { return context.printError(empty) }
        let width = counts.map { String($0.count).count }.max() ?? 1
        for item in counts {
            context.print(String(repeating: " ", count: width - String(item.count).count) + "\(item.count)  " + prefix + item.name)
        }
    }
}
