import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// How an app unlocks a store's repository: with the key an earlier unlock cached in the
/// store, or a passphrase when none is (the app decides where one comes from: a prompt, a
/// keychain), or never with a passphrase (a background service).
public enum Unlock {
    /// The cached key, else fail with `SyncError.noKey`.
    case cachedKeyOnly
    /// The cached key, else the passphrase `passphrase()` gives (asked only when needed).
    case cachedKeyOr(passphrase: () throws -> SecureBytes)
}

extension Syncer {
    /// Connections besides the main one a sync opens by default: uploads go over all of them,
    /// downloads over all but the quarter that read segments ahead.
    package static let defaultWorkers = 8

    /// Opens the repository `store` syncs with, over connections `connect` makes (one for
    /// the work, `workers` more to read segments ahead and download attachments while
    /// merging), unlocked as `unlock` says. A first unlock records the repository's id in the
    /// store (a store syncs with one repository, ever), the key file that opened it (tried
    /// first next time) and caches the key (`KeyCache`), so later opens need no passphrase.
    /// - Throws: `SyncError` (wrong repository, wrong passphrase, `.locked` without a
    ///   cached key under `.cachedKeyOnly`), `RemoteError`.
    package static func open(store: Store, connect: () throws -> Backend, unlock: Unlock, workers: Int = Syncer.defaultWorkers) throws -> Syncer {
        let remote = try store.remoteSettings()
        let backend = try connect()
        let repository: Repository
        var workerBackends: [Backend] = []
        var early: EarlySegments?
        var packs: EarlyPacks?
        var confirmed = true
        if let id = remote?.repositoryID, let keys = KeyCache.load(storeFolder: store.folder, repositoryID: id) {
            // No request: the first listing of `heads/` confirms the repository is this one
            // (`confirmRepository`), so a sync that finds nothing new is that one request.
            repository = Repository(backend: backend, id: id, keys: keys, keyName: "")
            confirmed = false
        } else {
            guard case .cachedKeyOr(let passphrase) = unlock else {
                throw SyncError(.noKey, detail: "no key is cached for this journal's repository")
            }
            let secret = try passphrase()
            // While the key derivation runs, worker connections fetch the first segments: three
            // when there are enough (the merges wait for segments, never for packs).
            let logs = try store.syncLogs()
            if workers > 0 {
                let connections = try (0..<(workers >= 5 ? 3 : 1)).map { _ in try connect() }
                workerBackends += connections
                early = EarlySegments()
                early?.start(over: connections, after: logs.mapValues(\.seq))
            }
            // A device that has merged nothing will need every pack: two more connections
            // read packs meanwhile, so the link is not idle once the segments are in.
            if workers >= 3 && logs.isEmpty {
                let connections = try (0..<2).map { _ in try connect() }
                let blobs = store.blobs
                let fetching = EarlyPacks { try blobs.temporaryPath() }
                fetching.start(over: connections)
                // They join the downloads once their last chunk is in.
                workerBackends += connections.map(fetching.gated)
                packs = fetching
            }
            var unlocked = false
            defer {
                early?.stop()
                if !unlocked { packs?.stop() }
            }
            // The key files are listed over a worker connection meanwhile.
            let side = workers > 0 ? try connect() : nil
            repository = try Repository.unlock(for: store, backend: backend, passphrase: secret, listingOver: side)
            unlocked = true
            packs?.stopFetching()
            if let side { workerBackends.append(side) }
            if remote?.repositoryID == nil { try store.setRepositoryID(repository.id) }
            try KeyCache.save(repository.keys, storeFolder: store.folder, repositoryID: repository.id)
        }
        let syncer = Syncer(store: store, repository: repository)
        let context = syncer.context
        context.repositoryConfirmed = confirmed
        context.workerBackends = try workerBackends + (workerBackends.count..<max(0, workers)).map { _ in try connect() }
        context.earlySegments = early
        context.earlyPacks = packs
        let meter = context.downloadMeter
        packs?.whenEnded { meter.add($0) }  // stopped since the unlock; counted once in
        return syncer
    }
}

extension Repository {
    /// Opens the repository `store` syncs with (any, when it has none recorded yet) with a
    /// passphrase, trying the key file that opened last time first, and remembers the one
    /// that opened it.
    /// - Throws: `SyncError` (wrong repository, wrong passphrase), `RemoteError`.
    /// `side`: a second connection, to list the key files over (`open`).
    package static func unlock(for store: Store, backend: Backend, passphrase: SecureBytes, listingOver side: Backend? = nil) throws -> Repository {
        let remote = try store.remoteSettings()
        let repository = try open(backend: backend, passphrase: passphrase, expectedID: remote?.repositoryID, preferredKey: remote?.keyName,
                                  listingOver: side)
        if repository.keyName != remote?.keyName { try store.setRepositoryKeyName(repository.keyName) }
        return repository
    }
}
