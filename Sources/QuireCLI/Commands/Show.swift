import Foundation
import QuireKit

struct ShowCommand: Command {
    static let name = "show"
    static let abstract = "Show one entry with its attachments and transcripts."
    static let usage = """
        Usage: quire show ID [--json]

        ID is an entry id (or attachment id: its entry is shown), or a unique prefix of 8+ characters.
        """
    static let options: [OptionSpec] = [.flag("json", "the entry in the interchange shape; attachment paths point into the store")]

    static func run(_ arguments: Arguments, context: Context) throws {
        let id = try arguments.positionals("ID")[0]
        let store = try context.openStore(reading: true)
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
