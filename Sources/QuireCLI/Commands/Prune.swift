import Foundation
import QuireKit
#if canImport(Glibc)
import Glibc
#endif

struct PruneCommand: Command {
    static let name = "prune"
    static let abstract = "Snapshot the journal and delete change-log segments no device needs any more."
    static let usage = """
        Usage: quire prune [--json] [--passphrase-file F]

        Syncs, writes an encrypted snapshot of the whole journal (new devices and restores
        start from it), then deletes the segments every device has merged (as each device's
        head says) and older snapshots. A device that was offline keeps everything it still
        needs. Attachments nothing needs any more (those of deleted entries and attachments, and
        uploads whose sync never finished) are marked, and deleted by a later prune once a
        day has passed (QUIRE_GC_GRACE_SECONDS changes the wait), they are still unneeded and
        every device has synced past the deletion. This machine's copies go at once. A pack
        that is mostly garbage is repacked first: the attachments still needed move to a new
        pack (read from this machine, encrypted anew) and the old pack is collected the same way.
        A bucket that keeps old versions (S3 versioning; Backblaze B2 always) keeps what prune
        deletes until a lifecycle rule expires noncurrent versions: prune says so.
        """
    static let options: [OptionSpec] = [
        .flag("json", "{\"snapshot\", \"segments_deleted\", \"snapshots_deleted\", \"blobs_deleted\",\n\"blobs_marked\", \"local_files_removed\", \"packs_repacked\", \"old_versions_kept\"}"),
        .passphraseFile,
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        let store = try context.openStore()
        let (journal, unlock, _) = try SyncSession.journal(store, arguments, context: context)
        let report = try journal.prune(unlock, progress: SyncSession.progress(context))
        SyncSession.endProgress(context)
        if arguments.flag("json") {
            var json = JSONOutput()
            json.object([("snapshot", .string(report.snapshot)), ("segments_deleted", .int(report.segmentsDeleted)),
                         ("snapshots_deleted", .int(report.snapshotsDeleted)), ("blobs_deleted", .int(report.blobsDeleted)),
                         ("blobs_marked", .int(report.blobsMarked)), ("local_files_removed", .int(report.localFilesRemoved)),
                         ("packs_repacked", .int(report.packsRepacked)),
                         ("old_versions_kept", report.oldVersionsKept.map(JSONOutput.Value.bool) ?? .null)])
            context.print(json.text)
        } else if context.stderrIsTerminal {
            context.printError(Self.sentence(report))
        }
    }

    /// What prune did, as a person says it: "Wrote a snapshot of the journal and deleted 12
    /// change logs no device needs and 1 older snapshot; deleted 3 attachments no entry uses
    /// any more."
    static func sentence(_ report: PruneReport) -> String {
        var deleted: [String] = []
        if report.segmentsDeleted > 0 { deleted.append(Format.count(report.segmentsDeleted, "change log") + " no device needs") }
        if report.snapshotsDeleted > 0 { deleted.append(Format.count(report.snapshotsDeleted, "older snapshot")) }
        var line = "Wrote a snapshot of the journal" + (deleted.isEmpty ? "; nothing else could go yet" : " and deleted " + deleted.joined(separator: " and "))
        if report.packsRepacked > 0 {
            line += "; repacked \(Format.count(report.packsRepacked, "pack")) that held mostly deleted attachments"
        }
        if report.blobsDeleted > 0 { line += "; deleted \(Format.count(report.blobsDeleted, "attachment")) no entry uses any more" }
        if report.blobsMarked > 0 {
            line += "; \(Format.count(report.blobsMarked, "more goes", "more go")) once every device has synced and a day has passed"
        }
        return line + "." + (report.oldVersionsKept == true ? " " + oldVersionsNote.prefix(1).uppercased() + oldVersionsNote.dropFirst() : "")
    }

    /// Said where the bucket keeps what is deleted (`PruneReport.oldVersionsKept`).
    static let oldVersionsNote = "the bucket keeps what is deleted as old versions (versioning is on): those bytes stay, "
        + "and are billed, until a lifecycle rule expires noncurrent versions (Backblaze B2: \"Keep only the last version of the file\")."
}
