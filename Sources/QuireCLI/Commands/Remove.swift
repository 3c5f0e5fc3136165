import Foundation
import QuireKit

struct RemoveCommand: Command {
    static let name = "rm"
    static let abstract = "Delete an entry, or one attachment."
    static let usage = """
        Usage: quire rm ID

        ID is an entry id (the entry and its attachments go) or an attachment id (only it goes),
        or a unique prefix of 8 or more characters. Deletions sync to your other machines.
        """
    static let options: [OptionSpec] = []

    static func run(_ arguments: Arguments, context: Context) throws {
        let id = try arguments.positionals("ID")[0]
        let store = try context.openStore()
        switch try store.resolve(id) {
        case .entry(let entryID): try store.remove(entryID: entryID)
        case .media(let mediaID): try store.remove(mediaID: mediaID)
        }
    }
}
