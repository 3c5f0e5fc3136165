import Foundation
import QuireKit

struct ListCommand: Command {
    static let name = "list"
    static let abstract = "List entries, oldest first (or the newest, with -n)."
    static let usage = """
        Usage: quire list [--journal J]... [--tag T]... [--from DATE] [--to DATE] [--starred] [--on-this-day]
                          [-n N] [--newest-first] [--json]

        DATE is RFC 3339, YYYY-MM-DD, or words: today, yesterday, monday, last monday, last
        week, 3 days ago. -n N shows the N newest entries (oldest of them first, unless
        --newest-first). --on-this-day shows what was written on today's date in every year.
        """
    static let options: [OptionSpec] = OptionSpec.filters + [
        .flag("starred", "only starred entries"),
        .flag("on-this-day", "only entries written on this day of the year, in any year"),
        OptionSpec.value("number", "N", "the N newest entries").short("n"),
        .flag("newest-first", "the newest entry first"),
        .flag("json", "a JSON array of entries in the interchange shape"),
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        var filter = try Options.filter(arguments)
        filter.starredOnly = arguments.flag("starred")
        if arguments.flag("on-this-day") { filter.monthDay = EntryFilter.monthDay() }
        let count = try arguments.value("number").map { text throws(CLIError) -> Int in
            guard let n = Int(text), n > 0 else { throw CLIError.usage("-n must be a positive number of entries") }
            return n
        }
        let store = try context.openStore(reading: true)
        // -n: the newest N, shown in the order asked for.
        var entries: [Entry] = []
        let newestFirst = arguments.flag("newest-first")
        let json = arguments.flag("json")
        var first = true
        func show(_ entry: Entry) {
            if json {
                FileHandle.standardOutput.write(Data(((first ? "\n" : ",\n") + store.json(of: entry)).utf8))
            } else {
                context.print(Format.entryLine(entry))
            }
            first = false
        }
        if json { FileHandle.standardOutput.write(Data("[".utf8)) }
        if let count {
            try store.forEachEntry(matching: filter, newestFirst: true, limit: count) { entries.append($0) }
            (newestFirst ? entries : entries.reversed()).forEach(show)
        } else {
            try store.forEachEntry(matching: filter, newestFirst: newestFirst, show)
        }
        if json { FileHandle.standardOutput.write(Data((first ? "]\n" : "\n]\n").utf8)) }
        if first && !json && context.stderrIsTerminal {
            context.printError(try store.entryCount() == 0 ? "No entries yet: `quire add \"text\"` writes one, `quire import` brings them in."
                               : "No entries match.")
        }
    }
}
