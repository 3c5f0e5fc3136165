import Foundation
import QuireStore

struct EditCommand: Command {
    static let name = "edit"
    static let abstract = "Change an entry's title, text, date, journal or tags."
    static let help = """
        Usage: quire edit ID [--title T] [--body TEXT | --body-file F] [--date D] [--journal J]
                             [--add-tag T]... [--remove-tag T]... [--star | --unstar]

        Only what is given changes; an edit that changes nothing writes nothing.
        ID is an entry id or a unique prefix of 8 or more characters.
        """
    static let spec = Arguments.Spec(options: ["title", "body", "body-file", "date", "journal", "add-tag", "remove-tag"],
                                     repeatable: ["add-tag", "remove-tag"], flags: ["star", "unstar"])

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
