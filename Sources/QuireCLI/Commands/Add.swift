import Foundation
import QuireKit

struct AddCommand: Command {
    static let name = "add"
    static let abstract = "Add an entry and print its id."
    static let usage = """
        Usage: quire add [--journal J] [--title T] [--date DATE] [--tag T]... [--body TEXT | --body-file F]

        The body is CommonMark/GFM. Without --body or --body-file it is read from standard input.
        """
    static let options: [OptionSpec] = [
        .value("journal", "J", "journal to add to (default \"Journal\")"),
        .value("title", "T", "title"),
        .value("date", "DATE", "when it happened: RFC 3339 with offset, or YYYY-MM-DD (default now)"),
        .repeated("tag", "T", "a tag; repeat for more"),
        .flag("star", "mark the entry starred"),
        .value("body", "TEXT", "the text"),
        .value("body-file", "F", "read the text from F (- for standard input)"),
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        let created = try Options.date(arguments, "date")
        let body = try Options.body(arguments, context: context, stdinFallback: true) ?? ""
        let store = try context.openStore(create: true)
        let entry = try store.add(NewEntry(journal: arguments.value("journal") ?? Store.defaultJournal, title: arguments.value("title") ?? "",
                                           body: body, created: created, tags: arguments.all("tag"), starred: arguments.flag("star")))
        context.print(entry.id)
    }
}
