import Foundation
import QuireKit
#if canImport(Glibc)
import Glibc
#endif

struct RestoreCommand: Command {
    static let name = "restore"
    static let abstract = "Restore a journal from its encrypted repository into an empty store."
    static let usage = """
        Usage: quire restore URL [--user USER] [--password-file F] [--passphrase-file F] [--insecure-http]
                                 [--ca-file F] [--not-before DATE] [--json]
               quire restore s3://BUCKET[/PREFIX] [--endpoint URL] [--region R] [--path-style] [--profile NAME] [--credentials-file F] …

        Brings back every entry, attachment and transcript, byte for byte, into a new store
        (--store or QUIRE_STORE), in constant memory; anything damaged is named and not used.
        If it is interrupted, running the same command again continues; if it fails before it
        began (a mistyped passphrase, a server that does not answer), nothing is left behind. The restored store
        is a new device of the same journal: `quire sync` keeps it in step from then on.
        It ends by saying when the newest change it found was written, and by which device: a
        server that lost or hides its newest changes shows an older one. With --not-before, a
        repository whose newest change is older than DATE is refused and nothing is kept.
        """
    static let options: [OptionSpec] = [.user, .passwordFile, .passphraseFile, .insecureHTTP, .caFile] + OptionSpec.s3 + [
                                        .value("not-before", "DATE", "refuse a repository whose newest change is older (RFC 3339, YYYY-MM-DD or words)"),
                                        .flag("json", "print {\"entries\", \"segments\", \"attachments\", \"newest_change\", \"requests\", \"bytes_down\"}")]

    static func run(_ arguments: Arguments, context: Context) throws {
        Interruption.install(saying: "What was restored is kept; the same command continues the restore.")
        let url = try arguments.positionals("URL")[0]
        let address = try Options.remoteAddress(url, arguments, environment: context.environment)
        let existed = FileManager.default.fileExists(atPath: context.storePath)
        let notBefore = try Options.date(arguments, "not-before")
        // A page cache of 32 MiB: a restore writes every row once, and with 4 MiB a batch's
        // pages spilled to the log mid-transaction (0.4 s of 11.5 at 100,000 entries); the
        // key derivation's 256 MiB are freed before the first batch, so the peak stays its.
        let store = try context.openStore(create: true, cacheMebibytes: 32)
        let (journal, unlock, traffic) = try SyncSession.journal(store, arguments, context: context)
        let report: SyncReport
        do {
            report = try SyncSession.askingAgain(arguments, context: context) {
                try journal.restore(from: address, unlock, notBefore: notBefore.map { Date(timeIntervalSince1970: Double($0.microseconds) / 1e6) },
                                    progress: SyncSession.progress(context))
            }
        } catch {
            SyncSession.endProgress(context)
            // A restore that failed before it began leaves nothing behind that it made, so the
            // same command simply runs again; one under way stays, to continue. One refused as
            // older than --not-before leaves nothing either: what it read is not the journal.
            if (error as? SyncError)?.kind == .stale {
                try? store.discardRestored(removingFolder: !existed)
            } else if !existed, (try? store.holdsNoJournal()) == true {
                try? FileManager.default.removeItem(atPath: context.storePath)
            }
            throw error
        }
        SyncSession.endProgress(context)
        let newest = try store.newestChange()
        if arguments.flag("json") {
            var json = JSONOutput()
            json.object([("entries", .int(try store.entryCount())), ("segments", .int(report.segmentsPulled)),
                         ("attachments", .int(report.blobsDownloaded)), ("newest_change", Self.newestJSON(newest, store: store))]
                        + traffic.members(up: false))
            context.print(json.text)
        } else {
            if context.stderrIsTerminal {
                context.printError("Restored \(Format.count(try store.entryCount(), "entry", "entries")) and \(Format.count(report.blobsDownloaded, "attachment")).")
            }
            context.printError(Self.newestLine(newest, store: store))
        }
    }

    /// When the newest change was written and by which device, for people.
    static func newestLine(_ newest: NewestChange?, store: Store) -> String {
        newest.map { "The newest change is from \(newestText($0, store: store))." } ?? "The repository holds no change yet."
    }

    /// "2026-12-01 14:03 (device 3fa9c2e1)", in this machine's time zone.
    static func newestText(_ newest: NewestChange, store: Store) -> String {
        let local = Timestamp(microseconds: newest.timestamp.microseconds, offsetSeconds: TimeZone.current.secondsFromGMT(for: newest.time))
        let name = (try? store.deviceLabel(newest.device)) ?? Format.short(newest.device)
        let who = newest.device == store.deviceID ? "this machine" : name == Format.short(newest.device) ? "device \(name)" : name
        return "\(local.localMinute) (\(who))"
    }

    static func newestJSON(_ newest: NewestChange?, store: Store) -> JSONOutput.Value {
        guard let newest else { return .null }
        return .object([("time", .string(newest.timestamp.text)), ("device", .string(newest.device))])
    }
}
