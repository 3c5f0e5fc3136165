import Foundation
import QuireKit

struct RemoveCommand: Command {
    static let name = "rm"
    static let abstract = "Delete an entry, or one attachment."
    static let usage = """
        Usage: quire rm ID [--yes]

        ID is an entry id (the entry and its attachments go) or an attachment id (only it goes),
        or a unique prefix of 8 or more characters. On a terminal it names what will go and
        asks first (--yes does not ask); without one it does not ask. It then says what
        went. Deletions sync to your other machines.
        """
    static let options: [OptionSpec] = [.flag("yes", "delete without asking on a terminal").short("y")]

    static func run(_ arguments: Arguments, context: Context) throws {
        let id = try arguments.positionals("ID")[0]
        let store = try context.openStore()
        let what: String
        let remove: () throws -> Void
        switch try store.resolve(id) {
        case .entry(let entryID):
            let entry = try store.entry(id: entryID)
            let attachments = entry?.media.count ?? 0
            what = "the entry \(Format.short(entryID))" + (entry.map { " “\($0.displayTitle)”" } ?? "")
                + (entry.map { " of \(Format.listed($0.created).trimmingCharacters(in: .whitespaces))" } ?? "")
                + (attachments > 0 ? " and its \(Format.count(attachments, "attachment"))" : "")
            remove = { try store.remove(entryID: entryID) }
        case .media(let mediaID):
            let media = try store.media(id: mediaID)
            what = "the \(media?.kind.name ?? "attachment") \(Format.short(mediaID))" + (media.map { " (\($0.filename))" } ?? "")
            remove = { try store.remove(mediaID: mediaID) }
        }
        if !arguments.flag("yes") {
            switch context.confirm("Delete \(what)?") {
            case nil:
                break  // no terminal to ask on: a script, which said what it meant
            case false?:
                context.printError("Nothing was deleted.")
                return
            case true?:
                break
            }
        }
        try remove()
        context.printError("Deleted " + what + (try store.remoteSettings() != nil ? "; the deletion reaches your other machines at the next sync." : "."))
    }
}
