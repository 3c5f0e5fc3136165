import Foundation
import QuireKit

struct ListCommand: Command {
    static let name = "list"
    static let abstract = "List entries, oldest first."
    static let usage = """
        Usage: quire list [--journal J]... [--tag T]... [--from DATE] [--to DATE] [--json]
        """
    static let options: [OptionSpec] = OptionSpec.filters + [.flag("json", "a JSON array of entries in the interchange shape")]

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        let filter = try Options.filter(arguments)
        let store = try context.openStore(reading: true)
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
