import Foundation
import QuireKit
#if canImport(Glibc)
import Glibc
#endif

struct StatusCommand: Command {
    static let name = "status"
    static let abstract = "Show pending local changes, the last sync and the remote."
    static let usage = """
        Usage: quire status [--json]

        Works offline: it reads only this machine's store.
        """
    static let options: [OptionSpec] = [.flag("json", "{\"entries\", \"pending\", \"last_sync\", \"failure\", \"failed_at\", \"newest_change\",\n\"remote\", \"repository\", \"device\"}")]

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        let store = try context.openStore(reading: true)
        let remote = try store.remoteSettings()
        let pending = try store.pendingCount()
        let last = try store.lastSync()
        let newest = try store.newestChange()
        let failure = try store.lastSyncFailure()
        if arguments.flag("json") {
            var json = JSONOutput()
            json.object([("entries", .int(try store.entryCount())), ("pending", .int(pending)), ("last_sync", .string(last ?? "")),
                         ("failure", .string(failure?.reason ?? "")), ("failed_at", .string(failure?.time ?? "")),
                         ("newest_change", RestoreCommand.newestJSON(newest, store: store)),
                         ("remote", .string(remote?.url ?? "")), ("repository", .string(remote?.repositoryID ?? "")),
                         ("device", .string(store.deviceID))])
            context.print(json.text)
            return
        }
        context.print("entries:    \(try store.entryCount())")
        context.print("pending:    \(pending == 0 ? "nothing to push" : Format.count(pending, "changed record") + " to push (quire sync)")")
        context.print("last sync:  \(last.map { Format.happened($0) } ?? "never")")
        // A failure is kept until a sync succeeds: a service that stopped syncing says why here.
        if let failure { context.print("last error: \(Format.happened(failure.time)): \(failure.reason)") }
        if let newest { context.print("newest:     \(RestoreCommand.newestText(newest, store: store))") }
        context.print("remote:     \(remote?.url ?? "none (quire remote set URL)")")
        if let id = remote?.repositoryID { context.print("repository: \(id)") }
        let name = try store.deviceNames()[store.deviceID]
        context.print("device:     \(store.deviceID)" + (name.map { " (\($0))" } ?? ""))
    }
}
