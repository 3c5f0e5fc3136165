import Foundation
import QuireKit
#if canImport(Glibc)
import Glibc
#endif

/// What a session's connections sent and received, the background ones' included (read it
/// when the work is done: each connection is counted by the one thread that uses it).
final class Traffic {
    private(set) var connections: [CountingBackend] = []
    var requests: Int { connections.reduce(0) { $0 + $1.requestsSent } }
    var bytesUp: Int64 { connections.reduce(0) { $0 + $1.bytesUp } }
    var bytesDown: Int64 { connections.reduce(0) { $0 + $1.bytesDown } }

    func counting(_ backend: Backend) -> Backend {
        let counted = CountingBackend(backend)
        connections.append(counted)
        return counted
    }

    /// The counts as JSON members, less those of `earlier` (a previous round of `--watch`).
    func members(since earlier: (requests: Int, up: Int64, down: Int64) = (0, 0, 0), up: Bool = true) -> [(String, JSONOutput.Value)] {
        [("requests", .int(requests - earlier.requests))]
            + (up ? [("bytes_up", .int(Int(bytesUp - earlier.up)))] : [])
            + [("bytes_down", .int(Int(bytesDown - earlier.down)))]
    }

    var totals: (requests: Int, up: Int64, down: Int64) { (requests, bytesUp, bytesDown) }
}

/// Shared by the commands that reach the repository: the library's `Journal` for a store,
/// with the CLI's sources of secrets, its traffic counting and its test knobs.
enum SyncSession {
    /// The journal of `store`, its WebDAV password read from the remote's password file,
    /// every connection counted; and the unlock the arguments ask for (`--cached-key-only`
    /// never asks for a passphrase).
    static func journal(_ store: Store, _ arguments: Arguments, context: Context) throws -> (Journal, Unlock, Traffic) {
        let journal = Journal(store: store)
        let traffic = Traffic()
        // Asked for at most once a run, however many connections are made.
        var asked: (url: String, password: String?)?
        journal.connection.password = { remote in
            if let asked, asked.url == remote.url { return asked.password }
            let password = try Secrets.webdavPassword(for: remote, context: context)
            asked = (remote.url, password)
            return password
        }
        journal.connection.environment = context.environment
        journal.connection.tune = { settings in
            if let attempts = context.environment["QUIRE_HTTP_ATTEMPTS"].flatMap(Int.init), attempts >= 1 { settings.attempts = attempts }
            #if DEBUG
            if let seconds = context.environment["QUIRE_HTTP_LOW_SPEED_TIME"].flatMap(Int.init), seconds >= 1 { settings.lowSpeedTime = seconds }
            #endif
            // A wait for a server that says nothing, and each try again, show on a terminal.
            if context.stderrIsTerminal { settings.notice = { showProgressLine($0) } }
        }
        journal.connection.wrap = traffic.counting
        // Test knobs (segment and merge sizes, a kill at a named step) exist in debug builds
        // alone, the ones the test suite runs; a release `quire` ignores them.
        #if DEBUG
        let crash = try crashPoint(context)
        #endif
        journal.prepare = { syncer in
            if let grace = context.environment["QUIRE_GC_GRACE_SECONDS"].flatMap(Double.init), grace >= 0 { syncer.context.options.collectionGrace = grace }
            #if DEBUG
            if let n = context.environment["QUIRE_SEGMENT_CHANGES"].flatMap(Int.init), n > 0 { syncer.context.options.changesPerSegment = n }
            if let n = context.environment["QUIRE_MERGE_CHANGES"].flatMap(Int.init), n > 0 {
                syncer.context.options.changesPerMerge = n
                syncer.context.options.changesPerRestoreMerge = n
            }
            if let crash { installCrashPoint(crash, on: syncer) }
            #endif
        }
        let unlock: Unlock = arguments.flag("cached-key-only") ? .cachedKeyOnly
            : .cachedKeyOr(passphrase: { try Secrets.passphrase(arguments, context: context) })
        return (journal, unlock, traffic)
    }

    /// Runs `body`; where the passphrase came from the prompt and opened no key, says so and
    /// runs it again (asking again), three tries in all. A mistyped passphrase costs a retype,
    /// not the command.
    static func askingAgain<T>(_ arguments: Arguments, context: Context, _ body: () throws -> T) throws -> T {
        let prompted = arguments.value("passphrase-file") == nil && context.environment["QUIRE_PASSPHRASE"] == nil && isatty(STDIN_FILENO) == 1
        var tries = 1
        while true {
            do {
                return try body()
            } catch let error as CryptoError where error.kind == .wrongPassphrase && prompted && tries < 3 {
                tries += 1
                context.printError("That passphrase opens no key of this repository; try again (\(tries) of 3).")
            }
        }
    }

    /// Tests set QUIRE_CRASH_AT=NAME[:N[:INT]] to SIGKILL this process (or with `INT`, to
    /// press Ctrl-C: SIGINT, which `Interruption` turns into its last line) the N-th time it
    /// reaches the named step (`SyncCheckpoint`), proving that every step can be interrupted.
    /// A name the code does not have is a usage error, never a crash that silently does not come.
    static func crashPoint(_ context: Context) throws(CLIError) -> (point: SyncCheckpoint, hit: Int, signal: Int32)? {
        guard let spec = context.environment["QUIRE_CRASH_AT"] else { return nil }
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false)
        guard let point = SyncCheckpoint(rawValue: String(parts.first ?? "")), parts.count <= 3,
              let hit = parts.count > 1 ? Int(parts[1]) : 1, hit >= 1, parts.count < 3 || parts[2] == "INT" else {
            throw .usage("QUIRE_CRASH_AT=\(spec) names no step; the steps are " + SyncCheckpoint.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return (point, hit, parts.count == 3 ? SIGINT : SIGKILL)
    }

    static func installCrashPoint(_ crash: (point: SyncCheckpoint, hit: Int, signal: Int32), on syncer: Syncer) {
        var hits = 0
        syncer.installCheckpoints { point in
            guard point == crash.point else { return }
            hits += 1
            guard hits == crash.hit else { return }
            kill(getpid(), crash.signal)
            // The signal's own thread ends the process; this step goes no further meanwhile.
            while true { sleep(60) }
        }
    }

    static func progress(_ context: Context) -> ((String) -> Void)? {
        context.stderrIsTerminal ? { showProgressLine($0) } : nil
    }

    /// Replaces the terminal's progress line with `step` (cut to fit).
    @Sendable static func showProgressLine(_ step: String) {
        let safe = TerminalText.escaped(step, keepingNewlines: false)
        let line = safe.count > 78 ? String(safe.prefix(77)) + "…" : safe
        FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line).utf8))
    }

    static func endProgress(_ context: Context) {
        if context.stderrIsTerminal { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }
}
