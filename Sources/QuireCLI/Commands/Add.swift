import Foundation
import QuireStore

struct AddCommand: Command {
    static let name = "add"
    static let abstract = "Add an entry and print its id."
    static let help = """
        Usage: quire add [--journal J] [--title T] [--date DATE] [--tag T]... [--body TEXT | --body-file F]

        The body is CommonMark/GFM. Without --body or --body-file it is read from standard input.
          --journal J      journal to add to (default "Journal")
          --title T        title
          --date DATE      when it happened: RFC 3339 with offset, or YYYY-MM-DD (default now)
          --tag T          a tag; repeat for more
          --star           mark the entry starred
          --body TEXT      the text
          --body-file F    read the text from F (- for standard input)
        """
    static let spec = Arguments.Spec(options: ["journal", "title", "date", "tag", "body", "body-file"], repeatable: ["tag"], flags: ["star"])

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
