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
    var requests: Int { connections.reduce(0) { $0 + ($1.wireRequests ?? $1.requests) } }
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
