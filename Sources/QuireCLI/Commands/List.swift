import Foundation
import QuireStore

struct ListCommand: Command {
    static let name = "list"
    static let abstract = "List entries, oldest first."
    static let help = """
        Usage: quire list [--journal J]... [--tag T]... [--from DATE] [--to DATE] [--json]

          --journal J   only entries of journal J (repeat for several)
          --tag T       only entries with tag T (repeat: all of them)
          --from DATE   created at or after DATE (RFC 3339 or YYYY-MM-DD)
          --to DATE     created at or before DATE (a bare date includes that whole day)
          --json        a JSON array of entries in the interchange shape
        """
    static let spec = Arguments.Spec(options: Options.filterSpec, repeatable: ["journal", "tag"], flags: ["json"])

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        let filter = try Options.filter(arguments)
        let store = try context.openStore()
        let json = arguments.flag("json")
        var first = true
        if json { FileHandle.standardOutput.write(Data("[".utf8)) }
        try store.forEachEntry(matching: filter) { entry in
            if json {
                FileHandle.standardOutput.write(Data(((first ? "\n" : ",\n") + store.json(of: entry)).utf8))
            } else {
                context.print(Format.entryLine(entry))
            }
            first = false
        }
        if json { FileHandle.standardOutput.write(Data((first ? "]\n" : "\n]\n").utf8)) }
    }
}
