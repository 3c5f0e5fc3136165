import Foundation
import QuireCrypto
import QuireRemote
import QuireStore
import QuireSync
#if canImport(Glibc)
import Glibc
#endif

/// What a session's connections sent and received, the background ones' included (read it
/// when the work is done: each connection is counted by the one thread that uses it).
struct Traffic {
    let connections: [CountingBackend]
    var requests: Int { connections.reduce(0) { $0 + $1.wireRequests } }
    var bytesUp: Int64 { connections.reduce(0) { $0 + $1.bytesUp } }
    var bytesDown: Int64 { connections.reduce(0) { $0 + $1.bytesDown } }

    /// The counts as JSON members, less those of `earlier` (a previous round of `--watch`).
    func members(since earlier: (requests: Int, up: Int64, down: Int64) = (0, 0, 0), up: Bool = true) -> [(String, JSONOutput.Value)] {
        [("requests", .int(requests - earlier.requests))]
            + (up ? [("bytes_up", .int(Int(bytesUp - earlier.up)))] : [])
            + [("bytes_down", .int(Int(bytesDown - earlier.down)))]
    }

    var totals: (requests: Int, up: Int64, down: Int64) { (requests, bytesUp, bytesDown) }
}

/// Shared by sync, restore and verify: a locked, unlocked repository for a store.
enum SyncSession {
    /// Opens the repository for `store` (the library's `Syncer.open`), counting what every
    /// connection sends and receives; `--cached-key-only` never asks for a passphrase.
    static func open(_ store: Store, _ arguments: Arguments, context: Context) throws -> (Syncer, Traffic) {
        let (_, makeBackend) = try RemoteCommand.connections(store, context: context)
        var connections: [CountingBackend] = []
        let unlock: Unlock = arguments.flag("cached-key-only") ? .cachedKeyOnly
            : .cachedKeyOr(passphrase: { try Secrets.passphrase(arguments, context: context) })
        let syncer = try Syncer.open(store: store, connect: {
            let backend = CountingBackend(try makeBackend())
            connections.append(backend)
            return backend
        }, unlock: unlock)
        if let n = context.environment["QUIRE_SEGMENT_CHANGES"].flatMap(Int.init), n > 0 { syncer.changesPerSegment = n }
        if let grace = context.environment["QUIRE_GC_GRACE_SECONDS"].flatMap(Double.init), grace >= 0 { syncer.collectionGrace = grace }
        installCrashPoint(syncer, context: context)
        return (syncer, Traffic(connections: connections))
    }

    /// Tests set QUIRE_CRASH_AT=NAME[:N] to SIGKILL this process the N-th time it reaches the
    /// named step, proving that every step can be interrupted.
    static func installCrashPoint(_ syncer: Syncer, context: Context) {
        guard let spec = context.environment["QUIRE_CRASH_AT"] else { return }
        let parts = spec.split(separator: ":")
        let name = String(parts.first ?? "")
        let target = parts.count > 1 ? Int(parts[1]) ?? 1 : 1
        var hits = 0
        syncer.installCheckpoints { point in
            guard point == name else { return }
            hits += 1
            if hits == target { kill(getpid(), SIGKILL) }
        }
    }

    static func progress(_ context: Context) -> ((String) -> Void)? {
        guard context.stderrIsTerminal else { return nil }
        return { step in
            let safe = TerminalText.escaped(step, keepingNewlines: false)
            let line = safe.count > 70 ? String(safe.prefix(69)) + "…" : safe
            FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line).utf8))
        }
    }

    static func endProgress(_ context: Context) {
        if context.stderrIsTerminal { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }
}

/// Set by SIGINT/SIGTERM; `sync --watch` stops after the current step.
nonisolated(unsafe) private var stopRequested: sig_atomic_t = 0

struct SyncCommand: Command {
    static let name = "sync"
    static let abstract = "Sync the journal with its encrypted repository (pull, merge, push)."
    static let help = """
        Usage: quire sync [--watch [--interval SECONDS]] [--json] [--passphrase-file F]

        Pulls what other devices wrote, merges it field by field (the later write wins; a
        concurrent edit of a title, body or transcript that loses is kept: `quire conflicts`),
        then pushes local changes: attachments first, then the change log, then its head.
        When nothing changed anywhere this costs one request. Interrupted at any point, the
        next sync finishes the job. A store syncs with one repository: a different or empty
        one at the URL is refused and nothing changes here. Two syncs of one store never run
        at once. The passphrase is asked once per machine: the unlocked key is kept in the
        store (0600) beside the journal it protects (`quire remote forget-key` removes it).
          --watch           sync again every --interval seconds (default 300), and soon after
                            a change made here, until Ctrl-C or SIGTERM (which stop it cleanly
                            after the current step); while the server fails, each try waits
                            longer (15 s, 30 s, … up to 30 min)
          --cached-key-only never ask for the passphrase: use the key cached by an earlier
                            sync, or fail (the user service runs with it)
          --json            {"requests", "bytes_up", "bytes_down", "segments_pulled",
                             "segments_pushed", "fields_merged", "conflicts", ...}
        """
    static let spec = Arguments.Spec(options: ["interval", "passphrase-file"], flags: ["watch", "json", "cached-key-only"])

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        var interval = 300.0
        if let text = arguments.value("interval") {
            guard arguments.flag("watch") else { throw CLIError.usage("--interval goes with --watch") }
            guard let seconds = Double(text), seconds >= 1 else { throw CLIError.usage("--interval must be at least 1 second") }
            interval = seconds
        }
        let store = try context.openStore()
        let lock = try SyncLock(storeFolder: store.folder)
        defer { withExtendedLifetime(lock) {} }
        let opened: (Syncer, Traffic)
        do {
            opened = try SyncSession.open(store, arguments, context: context)
        } catch {
            // What `quire service status` shows when the service could not even start.
            if arguments.flag("watch") {
                var message = "\(error)"
                if case .failure(let text, _) = Messages.describe(error) { message = text }
                try? store.recordSyncFailure(message, at: Timestamp.now())
            }
            throw error
        }
        let (syncer, traffic) = opened
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
                             ("fields_merged", .int(report.fieldsMerged)), ("conflicts", .int(report.conflicts)),
                             ("blobs_uploaded", .int(report.blobsUploaded)), ("blobs_downloaded", .int(report.blobsDownloaded))])
                context.print(json.text)
            } else if context.stderrIsTerminal || arguments.flag("watch") {
                context.printError("Synced: \(report.segmentsPulled) pulled, \(report.changesPushed) changes pushed"
                                   + (report.conflicts > 0 ? ", \(report.conflicts) conflicts kept (quire conflicts)" : "") + ".")
            }
            before = traffic.totals
        }
        guard arguments.flag("watch") else {
            let report = try syncer.sync(progress: SyncSession.progress(context))
            SyncSession.endProgress(context)
            try store.recordSync(at: Timestamp.now())
            return show(report)
        }
        SyncWatch(syncer: syncer, interval: interval).run(progress: SyncSession.progress(context), shouldStop: { stopRequested != 0 }) { round, next in
            SyncSession.endProgress(context)
            switch round {
            case .synced(let report):
                show(report)
            case .failed(let error):
                var message = "\(error)"
                if case .failure(let text, _) = Messages.describe(error) { message = text }
                context.printError("Sync failed: \(message). Trying again in \(Int(next)) s.")
            }
        }
    }
}

struct StatusCommand: Command {
    static let name = "status"
    static let abstract = "Show pending local changes, the last sync and the remote."
    static let help = """
        Usage: quire status [--json]

        Works offline: it reads only this machine's store.
          --json   {"entries", "pending", "last_sync", "remote", "repository", "device"}
        """
    static let spec = Arguments.Spec(flags: ["json"])

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        let store = try context.openStore()
        let remote = try store.remoteSettings()
        let pending = try store.pendingCount()
        let last = try store.lastSync()
        if arguments.flag("json") {
            var json = JSONOutput()
            json.object([("entries", .int(try store.entryCount())), ("pending", .int(pending)), ("last_sync", .string(last ?? "")),
                         ("remote", .string(remote?.url ?? "")), ("repository", .string(remote?.repositoryID ?? "")),
                         ("device", .string(store.deviceID))])
            context.print(json.text)
            return
        }
        context.print("entries:    \(try store.entryCount())")
        context.print("pending:    \(pending == 0 ? "nothing to push" : "\(pending) changed record\(pending == 1 ? "" : "s") to push")")
        context.print("last sync:  \(last ?? "never")")
        context.print("remote:     \(remote?.url ?? "none (quire remote set URL)")")
        if let id = remote?.repositoryID { context.print("repository: \(id)") }
        context.print("device:     \(store.deviceID)")
    }
}

struct RestoreCommand: Command {
    static let name = "restore"
    static let abstract = "Restore a journal from its encrypted repository into an empty store."
    static let help = """
        Usage: quire restore URL [--user USER] [--password-file F] [--passphrase-file F] [--insecure-http] [--json]

        Brings back every entry, attachment and transcript, byte for byte, into a new store
        (--store or QUIRE_STORE), in constant memory; anything damaged is named and not used.
        If it is interrupted, running the same command again continues. The restored store
        is a new device of the same journal: `quire sync` keeps it in step from then on.
        """
    static let spec = Arguments.Spec(options: ["user", "password-file", "passphrase-file"], flags: ["json", "insecure-http"])

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

struct VerifyCommand: Command {
    static let name = "verify"
    static let abstract = "Check that every object of the repository is present and authentic."
    static let help = """
        Usage: quire verify [--read-data] [--json] [--passphrase-file F]

        Checks every device's chain of change-log segments from the first to its head (each
        authenticated, each naming the one before, none rolled back from what this journal
        has seen) and that every attachment they reference exists. With --read-data every
        attachment is downloaded and decrypted in full. Names every problem; exits 1 if any.
          --json   {"devices", "segments", "attachments", "problems": [{"object", "problem"}]}
        """
    static let spec = Arguments.Spec(options: ["passphrase-file"], flags: ["read-data", "json"])

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        let store = try context.openStore()
        let (syncer, _) = try SyncSession.open(store, arguments, context: context)
        let report = try syncer.verify(readData: arguments.flag("read-data"), progress: SyncSession.progress(context))
        SyncSession.endProgress(context)
        if arguments.flag("json") {
            var json = JSONOutput()
            json.object([("devices", .int(report.devices)), ("segments", .int(report.segments)), ("attachments", .int(report.blobs)),
                         ("read", .int(report.blobsRead))])
            var problems = JSONOutput()
            problems.array(report.problems) { j, p in j.object([("object", .string(p.object)), ("problem", .string(p.detail))]) }
            context.print(String(json.text.dropLast()) + ", \"problems\": " + problems.text + "}")
        } else {
            for problem in report.problems { context.print("problem: \(problem)") }
            context.print("\(report.devices) devices, \(report.segments) segments, \(report.blobs) attachments"
                          + (arguments.flag("read-data") ? " (\(report.blobsRead) read in full)" : "") + ": "
                          + (report.problems.isEmpty ? "all present and authentic" : "\(report.problems.count) problems"))
        }
        if !report.problems.isEmpty {
            throw CLIError.failure("the repository has \(report.problems.count) problem\(report.problems.count == 1 ? "" : "s") (listed above)",
                                   hint: "a damaged object is never used; restore from another device's copy or re-sync from a device that has the data")
        }
    }
}

struct PruneCommand: Command {
    static let name = "prune"
    static let abstract = "Snapshot the journal and delete change-log segments no device needs any more."
    static let help = """
        Usage: quire prune [--json] [--passphrase-file F]

        Syncs, writes an encrypted snapshot of the whole journal (new devices and restores
        start from it), then deletes the segments every device has merged (as each device's
        head says) and older snapshots. A device that was offline keeps everything it still
        needs. Attachments nothing needs any more (those of deleted entries and attachments, and
        uploads whose sync never finished) are marked, and deleted by a later prune once a
        day has passed (QUIRE_GC_GRACE_SECONDS changes the wait), they are still unneeded and
        every device has synced past the deletion. This machine's copies go at once.
          --json   {"snapshot", "segments_deleted", "snapshots_deleted", "blobs_deleted", "blobs_marked",
                    "local_files_removed"}
        """
    static let spec = Arguments.Spec(options: ["passphrase-file"], flags: ["json"])

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        let store = try context.openStore()
        let lock = try SyncLock(storeFolder: store.folder)
        defer { withExtendedLifetime(lock) {} }
        let (syncer, _) = try SyncSession.open(store, arguments, context: context)
        _ = try syncer.sync(progress: SyncSession.progress(context))
        let report = try syncer.prune(progress: SyncSession.progress(context))
        SyncSession.endProgress(context)
        if arguments.flag("json") {
            var json = JSONOutput()
            json.object([("snapshot", .string(report.snapshot)), ("segments_deleted", .int(report.segmentsDeleted)),
                         ("snapshots_deleted", .int(report.snapshotsDeleted)), ("blobs_deleted", .int(report.blobsDeleted)),
                         ("blobs_marked", .int(report.blobsMarked)), ("local_files_removed", .int(report.localFilesRemoved))])
            context.print(json.text)
        } else if context.stderrIsTerminal {
            var line = "Snapshot written; \(report.segmentsDeleted) segments and \(report.snapshotsDeleted) old snapshots deleted"
            if report.blobsDeleted > 0 { line += "; \(report.blobsDeleted) unneeded attachments collected" }
            if report.blobsMarked > 0 { line += "; \(report.blobsMarked) more wait until every device has synced and a day has passed" }
            context.printError(line + ".")
        }
    }
}
