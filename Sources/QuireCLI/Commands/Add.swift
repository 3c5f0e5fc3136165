import Foundation
import QuireKit

struct AddCommand: Command {
    static let name = "add"
    static let abstract = "Add an entry and print its id."
    static let usage = """
        Usage: quire add [TEXT...] [--journal J] [--title T] [--date DATE] [--tag T]... [--star]
                         [--tags-from-text] [--body TEXT | --body-file F]

        The text is CommonMark/GFM: the words after `add` (quire add "Went to the sea."), or
        --body, or --body-file; with none of them it is read from standard input. An entry
        with neither text nor title is refused. DATE is RFC 3339, YYYY-MM-DD [HH:MM], or
        words (yesterday 21:30, yesterday at 9pm, Dec 2, a week ago); without a time it is a
        date-only entry. A tag may be typed @work or #work: it is stored as work. It prints
        the new entry's id; any 8 or more of its first characters name it to `show`, `edit`
        and `rm`.
        """
    static let options: [OptionSpec] = [
        .value("journal", "J", "journal to add to (default \"Journal\"); case ignored where it exists"),
        .value("title", "T", "title"),
        .value("date", "DATE", "when it happened: RFC 3339, YYYY-MM-DD or words (default now)"),
        .repeated("tag", "T", "a tag; repeat for more; case ignored where it exists"),
        .flag("star", "mark the entry starred"),
        .flag("tags-from-text", "also tag the entry with the @tags and #tags written in its text (as jrnl does)"),
        .value("body", "TEXT", "the text"),
        .value("body-file", "F", "read the text from F (- for standard input)"),
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        let words = arguments.positionals.joined(separator: " ")
        if !arguments.positionals.isEmpty, arguments.has("body") || arguments.has("body-file") {
            throw CLIError.usage("give the text as words or with --body/--body-file, not both")
        }
        let created = try Options.date(arguments, "date")
        // `quire add ""` is an empty entry, not a request to read standard input.
        let body = arguments.positionals.isEmpty ? try Options.body(arguments, context: context, stdinFallback: true) ?? "" : words
        let title = arguments.value("title") ?? ""
        guard !(body + title).allSatisfy(\.isWhitespace) else {
            throw CLIError.failure("the entry is empty: nothing was added", hint: "give its text: quire add \"Went to the sea.\"")
        }
        var tags = arguments.all("tag")
        if arguments.flag("tags-from-text") { tags += Store.tags(inText: title + "\n" + body) }
        let store = try context.openStore(create: true)
        let journal = try arguments.value("journal").map { try store.journalName(typed: $0) } ?? Store.defaultJournal
        let entry = try store.add(NewEntry(journal: journal, title: title, body: body, created: created,
                                           tags: try tags.map { try store.tagName(typed: $0) }, starred: arguments.flag("star")))
        context.print(entry.id)
        if context.stderrIsTerminal {
            context.printError("Added to \(entry.journal), \(Format.forPeople(entry.created)) (id \(Format.short(entry.id))).")
        }
    }
}
