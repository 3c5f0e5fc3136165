import Foundation
import QuireKit

/// `quire tags` and `quire journals`: what the journal holds, with counts.
struct TagsCommand: Command {
    static let name = "tags"
    static let abstract = "List every tag with how many entries carry it, or rename one."
    static let usage = """
        Usage: quire tags [--json]
               quire tags rename OLD NEW [--json]

        Most used first. `quire list --tag T` shows the entries of one.
        rename: every entry tagged OLD (in any case: #Travel and #travel are one tag) is
        tagged NEW instead, and a tag nested in OLD moves with it (#travel/italy becomes
        #trips/italy); to a tag that exists, the two become one. Syncs like an edit.
        """
    static let options: [OptionSpec] = [.flag("json", "a JSON array of {\"tag\", \"entries\"}; rename: {\"from\", \"to\", \"entries\", \"already\", \"nested\"}")]

    static func run(_ arguments: Arguments, context: Context) throws {
        if try Renaming.wanted(arguments) {
            let names = try arguments.positionals("rename", "OLD", "NEW")
            let renamed = try context.openStore().renameTag(names[1], to: names[2], progress: context.progress("renaming"))
            return Renaming.show(renamed, what: "tag", prefix: "#", arguments, context)
        }
        let store = try context.openStore(reading: true)
        Counts.show(try store.tagCounts(), key: "tag", prefix: "#", empty: "No tags yet: `quire add --tag T` or `quire edit ID --add-tag T`.",
                    arguments, context)
    }
}

struct JournalsCommand: Command {
    static let name = "journals"
    static let abstract = "List the journals with how many entries each holds, or rename one."
    static let usage = """
        Usage: quire journals [--json]
               quire journals rename OLD NEW [--json]

        `quire list --journal J` shows the entries of one; `quire add --journal J` writes in it.
        rename: every entry of journal OLD (in any case: Travel and travel are one) moves to
        journal NEW; to a journal that exists, the two become one. Syncs like an edit.
        """
    static let options: [OptionSpec] = [.flag("json", "a JSON array of {\"journal\", \"entries\"}; rename: {\"from\", \"to\", \"entries\", \"already\"}")]

    static func run(_ arguments: Arguments, context: Context) throws {
        if try Renaming.wanted(arguments) {
            let names = try arguments.positionals("rename", "OLD", "NEW")
            let renamed = try context.openStore().renameJournal(names[1], to: names[2], progress: context.progress("renaming"))
            return Renaming.show(renamed, what: "journal", prefix: "", arguments, context)
        }
        let store = try context.openStore(reading: true)
        Counts.show(try store.journalCounts(), key: "journal", prefix: "", empty: "No entries yet.", arguments, context)
    }
}

/// `quire tags rename` and `quire journals rename`.
enum Renaming {
    /// Whether the arguments ask for a rename; a usage error for any other action.
    static func wanted(_ arguments: Arguments) throws -> Bool {
        guard let action = arguments.positionals.first else { return false }
        guard action == "rename" else { throw CLIError.usage("unknown action '\(action)' (the one there is: rename OLD NEW)") }
        return true
    }

    static func show(_ renamed: Renamed, what: String, prefix: String, _ arguments: Arguments, _ context: Context) {
        if arguments.flag("json") {
            var json = JSONOutput()
            let nested = renamed.nested.sorted { $0.key < $1.key }.map { [("from", JSONOutput.Value.string($0.key)), ("to", .string($0.value))] }
            json.object([("from", .strings(renamed.from)), ("to", .string(renamed.to)), ("entries", .int(renamed.entries)),
                         ("already", .int(renamed.alreadyThere)), ("nested", .objects(nested))])
            return context.print(json.text)
        }
        let to = prefix + renamed.to
        guard !renamed.from.isEmpty || !renamed.nested.isEmpty else { return context.print("Nothing to rename: the \(what) is already \(to).") }
        let entries = Format.count(renamed.entries, "entry", "entries")
        var line: String
        if renamed.from.isEmpty {  // only tags nested in the one named
            line = "Renamed " + renamed.nested.sorted { $0.key < $1.key }.map { "\(prefix)\($0.key) to \(prefix)\($0.value)" }
                .joined(separator: ", ") + " (\(entries))"
        } else {
            var from = renamed.from.map { prefix + $0 }.joined(separator: " and ")
            if !renamed.nested.isEmpty { from += " and " + Format.count(renamed.nested.count, "tag") + " nested in it" }
            line = "Renamed \(what) \(from) to \(to) (\(entries))"
        }
        if renamed.alreadyThere > 0 {
            line += "; \(renamed.alreadyThere) " + (what == "tag" ? "already had \(to)" : renamed.alreadyThere == 1 ? "was in \(to) already" : "were in \(to) already")
        }
        context.print(line + ".")
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
