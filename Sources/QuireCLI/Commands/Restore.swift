import Foundation
import QuireKit
#if canImport(Glibc)
import Glibc
#endif

struct RestoreCommand: Command {
    static let name = "restore"
    static let abstract = "Restore a journal from its encrypted repository into an empty store."
    static let usage = """
        Usage: quire restore URL [--user USER] [--password-file F] [--passphrase-file F] [--insecure-http] [--json]

        Brings back every entry, attachment and transcript, byte for byte, into a new store
        (--store or QUIRE_STORE), in constant memory; anything damaged is named and not used.
        If it is interrupted, running the same command again continues; if it fails before it
        began (a mistyped passphrase, a server that does not answer), nothing is left behind. The restored store
        is a new device of the same journal: `quire sync` keeps it in step from then on.
        """
    static let options: [OptionSpec] = [.user, .passwordFile, .passphraseFile, .insecureHTTP, .flag("json", "print {\"entries\", \"segments\", \"attachments\", \"requests\", \"bytes_down\"}")]

    static func run(_ arguments: Arguments, context: Context) throws {
        let url = try arguments.positionals("URL")[0]
        let address = try Options.remoteAddress(url, arguments)
        let existed = FileManager.default.fileExists(atPath: context.storePath)
        let store = try context.openStore(create: true, cacheMebibytes: 4)
        let (journal, unlock, traffic) = try SyncSession.journal(store, arguments, context: context)
        let report: SyncReport
        do {
            report = try SyncSession.askingAgain(arguments, context: context) {
                try journal.restore(from: address, unlock, progress: SyncSession.progress(context))
            }
        } catch {
            SyncSession.endProgress(context)
            // A restore that failed before it began leaves nothing behind that it made, so the
            // same command simply runs again; one under way stays, to continue.
            if !existed, (try? store.holdsNoJournal()) == true { try? FileManager.default.removeItem(atPath: context.storePath) }
            throw error
        }
        SyncSession.endProgress(context)
        if arguments.flag("json") {
            var json = JSONOutput()
            json.object([("entries", .int(try store.entryCount())), ("segments", .int(report.segmentsPulled)),
                         ("attachments", .int(report.blobsDownloaded))] + traffic.members(up: false))
            context.print(json.text)
        } else if context.stderrIsTerminal {
            context.printError("Restored \(try store.entryCount()) entries and \(report.blobsDownloaded) attachments.")
        }
    }
}
