import Foundation
import QuireStore
import QuireSync

/// Sync, restore, verify, prune and the watch. Each that writes holds the store's sync lock
/// (`SyncLock`) while it works, so two processes never sync one store at once.
extension Journal {
    /// Opens the journal's repository for the work of a `Syncer` (sync, restore, verify,
    /// prune, a watch), unlocked as `unlock` says, over connections made as ``connection``
    /// says. Use it for progress, cancelling (`isCancelled`) or several steps on one unlock.
    /// Its sync, restore, prune and repairing verify take the store's sync lock themselves,
    /// so no two of them, in any process or thread, ever work on one store at once.
    /// - Throws: `SyncError` (`.noRemote` …), `RemoteError`.
    package func syncer(_ unlock: Unlock) throws -> Syncer {
        let connect = try connection.connector(for: try remoteSettings())
        let syncer = try Syncer.open(store: store, connect: connect, unlock: unlock, workers: connection.workers)
        prepare(syncer)
        return syncer
    }

    /// Pulls what other devices wrote, merges it, pushes what this one wrote, and records
    /// when it synced (`Store.lastSync`).
    /// - Throws: `SyncError`, `RemoteError`: nothing is lost; the next sync
    ///   finishes the job.
    @discardableResult
    public func sync(_ unlock: Unlock, progress: ((String) -> Void)? = nil) throws -> SyncReport {
        try whileSyncing {
            let report = try syncer(unlock).sync(progress: progress)
            try store.recordSync(at: Timestamp.now())
            return report
        }
    }

    /// Restores the journal at `address` into this store, which must be empty: every entry,
    /// attachment and transcript, byte for byte, in constant memory. Run again after an
    /// interruption, it continues. The store is then a new device of the journal: `sync`
    /// keeps it in step.
    /// A restore that failed before it began (a wrong passphrase, a server that did not
    /// answer) leaves a store that holds no journal; running it again simply starts over.
    /// With `notBefore`, a repository whose newest change (`Store.newestChange`) is older is
    /// refused with `SyncError.stale` once its text is in: the store then holds what was
    /// restored, for the caller to discard (the CLI removes it).
    /// - Throws: `SyncError.notEmpty` when the store holds a journal (and is not in the
    ///   middle of restoring one), `RemoteError.invalid` for an address Quire cannot use.
    @discardableResult
    public func restore(from address: RemoteAddress, _ unlock: Unlock, notBefore: Date? = nil,
                        progress: ((String) -> Void)? = nil) throws -> SyncReport {
        try Remotes.validate(address.url, insecureHTTP: address.insecureHTTP, caFile: address.caFile)
        return try whileSyncing {
            if try store.restoringFrom() == nil {
                // Restored from this address already (a restore stopped after it finished but
                // before it said so, or run twice): bring what is new, as the restore would.
                if try store.restoredFrom() != nil, try store.remoteSettings()?.url == address.url {
                    let report = try syncer(unlock).sync(progress: progress)
                    try store.recordSync(at: Timestamp.now())
                    return report
                }
                guard try store.holdsNoJournal() else { throw SyncError(.notEmpty, detail: "\(store.folder) already holds a journal") }
                let previous = try store.remoteSettings()
                if previous?.url != address.url { try store.forgetRepository() }
                try store.setRemote(url: address.url, user: address.user, passwordFile: address.passwordFile, insecureHTTP: address.insecureHTTP, caFile: address.caFile)
            }
            return try syncer(unlock).restore(notBefore: notBefore, progress: progress)
        }
    }

    /// Checks the repository: every object there, readable with the key, hashes matching;
    /// with `readData`, every attachment's bytes too. With `repair`, what the server lost
    /// that this store holds (this device's segments and head, the packs of attachments it
    /// has) is put back first, holding the sync lock, and the report is of what is left.
    public func verify(_ unlock: Unlock, readData: Bool, repair: Bool = false, progress: ((String) -> Void)? = nil) throws -> VerifyReport {
        guard repair else {
            defer { keepWhatTheServerTaught() }
            return try namingRemote { try syncer(unlock).verify(readData: readData, progress: progress) }
        }
        return try whileSyncing { try syncer(unlock).verify(readData: readData, repair: true, progress: progress) }
    }

    /// Syncs, then writes a snapshot and removes what no device needs any more.
    public func prune(_ unlock: Unlock, progress: ((String) -> Void)? = nil) throws -> PruneReport {
        try whileSyncing {
            let syncer = try syncer(unlock)
            _ = try syncer.sync(progress: progress)
            return try syncer.prune(progress: progress)
        }
    }

    /// Keeps the journal in step until `shouldStop` says so: a sync every `interval` seconds
    /// and soon after a change made here, waiting longer while the server fails
    /// (`SyncWatch`). Failures, opening the repository's included, are recorded for
    /// `Store.lastSyncFailure`; `round` hears of each round.
    /// - Throws: only when the repository cannot be opened at all (locked key, wrong
    ///   repository), another process is syncing this store, or a newer Quire has upgraded
    ///   the store meanwhile (`StoreError.newerSchema`: open it again with that Quire).
    public func watch(_ unlock: Unlock, interval: TimeInterval, progress: ((String) -> Void)? = nil,
                      shouldStop: @escaping @Sendable () -> Bool, round: (WatchRound, _ next: TimeInterval) -> Void) throws {
        try whileSyncing {
            let syncer: Syncer
            do {
                syncer = try self.syncer(unlock)
                // A watch that cannot reach its repository at all says so and ends, rather
                // than retrying a wrong address forever.
                try syncer.confirmRepository()
            } catch {
                try? store.recordSyncFailure("\(error)", at: Timestamp.now())
                throw error
            }
            try SyncWatch(syncer: syncer, interval: interval).run(progress: progress, shouldStop: shouldStop, round: round)
        }
    }

    /// Runs `body` holding the store's sync lock.
    /// - Throws: `SyncError.locked` when another process is syncing this store.
    private func whileSyncing<T>(_ body: () throws -> T) throws -> T {
        let lock = try SyncLock(storeFolder: store.folder)
        defer { withExtendedLifetime(lock) {} }
        defer { keepWhatTheServerTaught() }
        return try namingRemote(body)
    }

    /// Runs `body`; a `RemoteError` it throws names the remote's URL (as `remote set` was
    /// given it, without credentials), not only a path inside the repository.
    func namingRemote<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch var error as RemoteError where error.location == nil {
            if let url = try? store.remoteSettings()?.url { error.location = Remotes.shown(url) }
            throw error
        }
    }

    /// Keeps the authentication scheme the server asked for in this run, for the next (or
    /// forgets the remembered one the server no longer wants), and the region an S3 service
    /// said the bucket is in. Best-effort: the next run only meets one more 401, or one
    /// more request to the wrong region, when it fails.
    func keepWhatTheServerTaught() {
        let region = connection.regions.toRemember, scheme = connection.auth.toRemember
        guard region != nil || scheme != nil, let remote = try? store.remoteSettings() else { return }
        if let region, remote.learnedRegion != region { try? store.setLearnedRegion(region) }
        if let scheme, remote.authScheme != scheme { try? store.setAuthScheme(scheme.isEmpty ? nil : scheme) }
    }
}
