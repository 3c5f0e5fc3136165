import Foundation
import QuireKit

struct EditCommand: Command {
    static let name = "edit"
    static let abstract = "Change an entry's title, text, date, journal or tags."
    static let usage = """
        Usage: quire edit ID [--title T] [--body TEXT | --body-file F] [--date D] [--journal J]
                             [--add-tag T]... [--remove-tag T]... [--star | --unstar]

        Only what is given changes; an edit that changes nothing writes nothing.
        ID is an entry id or a unique prefix of 8 or more characters.
        """
    static let options: [OptionSpec] = [
        .value("title", "T", "the new title"),
        .value("body", "TEXT", "the new text"),
        .value("body-file", "F", "the new text from F (- for standard input)"),
        .value("date", "D", "when it happened: RFC 3339 with offset, or YYYY-MM-DD"),
        .value("journal", "J", "move it to journal J"),
        .repeated("add-tag", "T", "add tag T; repeat for more"),
        .repeated("remove-tag", "T", "remove tag T; repeat for more"),
        .flag("star", "mark it starred"),
        .flag("unstar", "mark it not starred"),
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        let id = try arguments.positionals("ID")[0]
        try arguments.exclusive("star", "unstar")
        let created = try Options.date(arguments, "date")
        let body = try Options.body(arguments, context: context, stdinFallback: false)
        let store = try context.openStore()
        let entryID = try Options.entryID(id, in: store)
        let starred: Bool? = arguments.flag("star") ? true : arguments.flag("unstar") ? false : nil
        try store.edit(entryID: entryID, EntryEdit(title: arguments.value("title"), body: body, created: created,
                                                   journal: arguments.value("journal"), addTags: arguments.all("add-tag"),
                                                   removeTags: arguments.all("remove-tag"), starred: starred))
    }
}
