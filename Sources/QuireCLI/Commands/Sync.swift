import Foundation
import QuireKit
#if canImport(Glibc)
import Glibc
#endif

/// Set by SIGINT/SIGTERM; `sync --watch` stops after the current step.
nonisolated(unsafe) private var stopRequested: sig_atomic_t = 0

struct SyncCommand: Command {
    static let name = "sync"
    static let abstract = "Sync the journal with its encrypted repository (pull, merge, push)."
    static let usage = """
        Usage: quire sync [--watch [--interval SECONDS]] [--json] [--passphrase-file F]

        Pulls what other devices wrote, merges it field by field (the later write wins; a
        concurrent edit of a title, body or transcript that loses is kept: `quire conflicts`),
        then pushes local changes: attachments first, then the change log, then its head.
        When nothing changed anywhere this costs one request. Interrupted at any point, the
        next sync finishes the job. A store syncs with one repository: a different or empty
        one at the URL is refused and nothing changes here. Two syncs of one store never run
        at once. The passphrase is asked once per machine: the unlocked key is kept in the
        store (0600) beside the journal it protects (`quire remote forget-key` removes it).
        """
    static let options: [OptionSpec] = [
        .flag("watch", "sync again every --interval seconds, and soon after a change made here,\nuntil Ctrl-C or SIGTERM (which stop it cleanly after the current step);\nwhile the server fails, each try waits longer (15 s, 30 s, … up to 30 min)"),
        .value("interval", "SECONDS", "with --watch: seconds between syncs (default 300)"),
        .flag("cached-key-only", "never ask for the passphrase: use the key cached by an earlier sync,\nor fail (the user service runs with it)"),
        .flag("json", "{\"requests\", \"bytes_up\", \"bytes_down\", \"segments_pulled\", \"segments_pushed\",\n\"records_pushed\", \"changes_pushed\", \"fields_merged\", \"conflicts\", ...}"),
        .passphraseFile,
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        var interval = 300.0
        if let text = arguments.value("interval") {
            guard arguments.flag("watch") else { throw CLIError.usage("--interval goes with --watch") }
            guard let seconds = Double(text), seconds >= 1 else { throw CLIError.usage("--interval must be at least 1 second") }
            interval = seconds
        }
        if !arguments.flag("watch") {
            Interruption.install(saying: "What was synced is kept; `quire sync` continues from there.")
        }
        // A small page cache, as restore's and the exports': a first sync of a lifetime's journal
        // reads it record by record, and the system's page cache holds the file anyway.
        let store = try context.openStore(cacheMebibytes: 4)
        let (journal, unlock, traffic) = try SyncSession.journal(store, arguments, context: context)
        if arguments.flag("watch") {
            signal(SIGINT) { _ in stopRequested = 1 }
            signal(SIGTERM) { _ in stopRequested = 1 }
            // A parent may have started us with these blocked (the mask is inherited).
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGINT)
            sigaddset(&set, SIGTERM)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
        }
        var before = (requests: 0, up: Int64(0), down: Int64(0))  // the first round counts the repository check too
        func show(_ report: SyncReport) {
            if arguments.flag("json") {
                var json = JSONOutput()
                json.object(traffic.members(since: before) + [("segments_pulled", .int(report.segmentsPulled)),
                             ("segments_pushed", .int(report.segmentsPushed)), ("changes_pushed", .int(report.changesPushed)),
                             ("records_pushed", .int(report.recordsPushed)),
                             ("fields_merged", .int(report.fieldsMerged)), ("conflicts", .int(report.conflicts)),
                             ("blobs_uploaded", .int(report.blobsUploaded)), ("blobs_downloaded", .int(report.blobsDownloaded)),
                             ("repaired", .int(report.objectsRepaired))])
                context.print(json.text)
            } else if context.stderrIsTerminal || arguments.flag("watch") {
                var parts = [report.recordsPushed == 0 ? "nothing to push"
                             : "\(Format.count(report.recordsPushed, "changed record")) pushed (\(Format.count(report.changesPushed, "field change")))"]
                parts.append(report.fieldsMerged == 0 ? "nothing new pulled"
                             : "\(Format.count(report.fieldsMerged, "field")) merged from \(Format.count(report.segmentsPulled, "segment"))")
                if report.blobsUploaded + report.blobsDownloaded > 0 {
                    parts.append("\(Format.count(report.blobsUploaded, "attachment")) up, \(report.blobsDownloaded) down")
                }
                if report.objectsRepaired > 0 { parts.append("put back \(Format.count(report.objectsRepaired, "object")) the server had lost") }
                if report.conflicts > 0 { parts.append("\(Format.count(report.conflicts, "conflict")) kept (quire conflicts)") }
                context.printError("Synced: " + parts.joined(separator: "; ") + ".")
            }
            before = traffic.totals
        }
        guard arguments.flag("watch") else {
            let report = try SyncSession.askingAgain(arguments, context: context) { try journal.sync(unlock, progress: SyncSession.progress(context)) }
            SyncSession.endProgress(context)
            return show(report)
        }
        try SyncSession.askingAgain(arguments, context: context) { try watch(journal, unlock, interval: interval, arguments, context, show) }
    }

    private static func watch(_ journal: Journal, _ unlock: Unlock, interval: Double, _ arguments: Arguments, _ context: Context,
                              _ show: (SyncReport) -> Void) throws {
        try journal.watch(unlock, interval: interval, progress: SyncSession.progress(context), shouldStop: { stopRequested != 0 }) { round, next in
            SyncSession.endProgress(context)
            switch round {
            case .synced(let report):
                show(report)
            case .failed(let error):
                context.printError("Sync failed: \(Messages.text(of: error)). Trying again in \(Int(next)) s.")
            }
        }
    }
}
