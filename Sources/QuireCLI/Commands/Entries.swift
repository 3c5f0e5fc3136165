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

struct RemoveCommand: Command {
    static let name = "rm"
    static let abstract = "Delete an entry, or one attachment."
    static let help = """
        Usage: quire rm ID

        ID is an entry id (the entry and its attachments go) or an attachment id (only it goes),
        or a unique prefix of 8 or more characters. Deletions sync to your other machines.
        """
    static let spec = Arguments.Spec()

    static func run(_ arguments: Arguments, context: Context) throws {
        let id = try arguments.positionals("ID")[0]
        let store = try context.openStore()
        switch try store.resolve(id) {
        case .entry(let entryID): try store.remove(entryID: entryID)
        case .media(let mediaID): try store.remove(mediaID: mediaID)
        }
    }
}

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

struct ShowCommand: Command {
    static let name = "show"
    static let abstract = "Show one entry with its attachments and transcripts."
    static let help = """
        Usage: quire show ID [--json]

        ID is an entry id (or attachment id: its entry is shown), or a unique prefix of 8+ characters.
          --json   the entry in the interchange shape; attachment paths point into the store
        """
    static let spec = Arguments.Spec(flags: ["json"])

    static func run(_ arguments: Arguments, context: Context) throws {
        let id = try arguments.positionals("ID")[0]
        let store = try context.openStore()
        let entryID: String
        switch try store.resolve(id) {
        case .entry(let found): entryID = found
        case .media(let mediaID):
            guard let media = try store.media(id: mediaID) else { throw CLIError.failure("no attachment with id \(id)", hint: nil) }
            entryID = media.entryID
        }
        guard let entry = try store.entry(id: entryID) else { throw CLIError.failure("no entry with id \(id)", hint: nil) }
        context.print(arguments.flag("json") ? store.json(of: entry) : Format.entryDetail(entry))
    }
}
