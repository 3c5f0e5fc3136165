import Foundation
import QuireKit

struct AddCommand: Command {
    static let name = "add"
    static let abstract = "Add an entry and print its id."
    static let usage = """
        Usage: quire add [TEXT...] [--journal J] [--title T] [--date DATE] [--tag T]... [--star]
                         [--body TEXT | --body-file F]

        The text is CommonMark/GFM: the words after `add` (quire add "Went to the sea."), or
        --body, or --body-file; with none of them it is read from standard input. DATE is
        RFC 3339, YYYY-MM-DD, or words (yesterday, last friday). It prints the new entry's
        id; any 8 or more of its first characters name it to `show`, `edit` and `rm`.
        """
    static let options: [OptionSpec] = [
        .value("journal", "J", "journal to add to (default \"Journal\")"),
        .value("title", "T", "title"),
        .value("date", "DATE", "when it happened: RFC 3339, YYYY-MM-DD or words (default now)"),
        .repeated("tag", "T", "a tag; repeat for more"),
        .flag("star", "mark the entry starred"),
        .value("body", "TEXT", "the text"),
        .value("body-file", "F", "read the text from F (- for standard input)"),
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        let words = arguments.positionals.joined(separator: " ")
        if !words.isEmpty, arguments.has("body") || arguments.has("body-file") {
            throw CLIError.usage("give the text as words or with --body/--body-file, not both")
        }
        let created = try Options.date(arguments, "date")
        let body = words.isEmpty ? try Options.body(arguments, context: context, stdinFallback: true) ?? "" : words
        let store = try context.openStore(create: true)
        let entry = try store.add(NewEntry(journal: arguments.value("journal") ?? Store.defaultJournal, title: arguments.value("title") ?? "",
                                           body: body, created: created, tags: arguments.all("tag"), starred: arguments.flag("star")))
        context.print(entry.id)
        if context.stderrIsTerminal {
            context.printError("Added to \(entry.journal), \(entry.created.localMinute) (id \(Format.short(entry.id))).")
        }
    }
}
