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
        let told: String
        switch try store.resolve(id) {
        case .entry(let entryID):
            let entry = try store.entry(id: entryID)
            try store.remove(entryID: entryID)
            let attachments = entry?.media.count ?? 0
            told = "Deleted the entry \(Format.short(entryID))" + (entry.map { " “\($0.displayTitle)”" } ?? "")
                + (attachments > 0 ? " and its \(Format.count(attachments, "attachment"))" : "")
        case .media(let mediaID):
            let media = try store.media(id: mediaID)
            try store.remove(mediaID: mediaID)
            told = "Deleted the \(media?.kind.rawValue ?? "attachment") \(Format.short(mediaID))" + (media.map { " (\($0.filename))" } ?? "")
        }
        if context.stderrIsTerminal {
            context.printError(told + (try store.remoteSettings() != nil ? "; the deletion reaches your other machines at the next sync." : "."))
        }
    }
}
