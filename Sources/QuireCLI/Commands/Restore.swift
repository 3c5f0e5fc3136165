import Foundation
import QuireCrypto
import QuireRemote
import QuireStore
import QuireSync
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
        If it is interrupted, running the same command again continues. The restored store
        is a new device of the same journal: `quire sync` keeps it in step from then on.
        """
    static let options: [OptionSpec] = [.user, .passwordFile, .passphraseFile, .insecureHTTP, .flag("json", "print {\"entries\", \"segments\", \"attachments\", \"requests\", \"bytes_down\"}")]

    static func run(_ arguments: Arguments, context: Context) throws {
        let url = try arguments.positionals("URL")[0]
        do {
            try Remotes.validate(url, insecureHTTP: arguments.flag("insecure-http"))
        } catch let error as RemoteError {
            throw CLIError.usage(error.detail)
        }
        let store = try context.openStore(create: true, cacheMebibytes: 4)
        let lock = try SyncLock(storeFolder: store.folder)
        defer { withExtendedLifetime(lock) {} }
        let resuming = try store.restoringFrom()
        if resuming == nil {
            guard try store.entryCount() == 0, try store.remoteSettings() == nil else {
                throw CLIError.failure("\(store.folder) already holds a journal", hint: "restore into a new folder: quire --store DIR restore URL")
            }
            let passwordFile = arguments.value("password-file").map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            try store.setRemote(url: url, user: arguments.value("user"), passwordFile: passwordFile,
                                insecureHTTP: arguments.flag("insecure-http"))
        }
        let (syncer, traffic) = try SyncSession.open(store, arguments, context: context)
        let report = try syncer.restore(progress: SyncSession.progress(context))
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
