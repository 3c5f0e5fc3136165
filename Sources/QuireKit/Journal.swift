import Foundation
import QuireCrypto
import QuireExport
import QuireRemote
import QuireStore
import QuireSync

/// A journal: its store on this machine and the encrypted repository it syncs with.
///
/// The one entry point an app needs. Entries, attachments, transcripts and search are the
/// ``store``'s (`add`, `edit`, `attach`, `setTranscript`, `search`, `entries`); a journal
/// adds where it syncs to, sync, restore, verify, prune and export. The app decides where a
/// passphrase comes from (a prompt, a keychain) and passes it as an ``Unlock``; nothing here
/// asks a person anything or prints.
///
/// ```swift
/// let journal = try Journal(folder: path, create: true)
/// let entry = try journal.store.add(NewEntry(title: "Утро", body: "…"))
/// try journal.setRemote(RemoteAddress(url: "https://dav.example.org/journal"))
/// try journal.createRepository(passphrase: passphrase)
/// let report = try journal.sync(.cachedKeyOr(passphrase: { passphrase }))
/// ```
///
/// A `Journal` is used from one thread at a time; two processes never sync one store at
/// once (each sync holds the store's sync lock).
public final class Journal {
    /// The journal on this machine.
    public let store: Store
    /// How connections to the repository are made (credentials, HTTP tuning, a wrapper).
    public var connection = Connection()
    /// Called with each syncer this journal opens, before it does any work (to set its
    /// segment size or install checkpoints, say).
    package var prepare: (Syncer) -> Void = { _ in }

    /// A journal over an open store.
    package init(store: Store) {
        self.store = store
        connection.rememberConditionalPut = { [store] in try? store.setConditionalPut($0) }
    }

    /// Opens the journal kept in `folder` (creating an empty one with `create`).
    /// - Throws: `StoreError` (`.unreadable`, `.busy`, `.newerSchema`).
    public convenience init(folder: String, create: Bool = false) throws {
        self.init(store: try Store(folder: folder, options: Store.Options(create: create)))
    }

    // MARK: - Where it syncs

    /// Points the journal at a repository. A journal syncs with one repository, ever: the one
    /// it first synced with is remembered, and a different one at the new address is refused.
    /// - Throws: `RemoteError.invalid` for an address Quire cannot use.
    ///
    /// `maxObjectSize` is the largest request body the server takes, when known (Quire also
    /// learns it from a 413). A limit belongs to a server: a new address starts without one.
    public func setRemote(_ address: RemoteAddress, maxObjectSize: Int64? = nil) throws {
        try Remotes.validate(address.url, insecureHTTP: address.insecureHTTP, caFile: address.caFile)
        let previous = try store.remoteSettings()
        try store.setRemote(url: address.url, user: address.user, passwordFile: address.passwordFile, insecureHTTP: address.insecureHTTP, caFile: address.caFile)
        if maxObjectSize != nil || previous?.url != address.url { try store.setMaxObjectSize(maxObjectSize) }
    }

    /// Where the journal syncs to (`setRemote`), and the repository it syncs with once it has
    /// synced or made one; nil before a remote is set.
    public func remote() throws -> (address: RemoteAddress, repositoryID: String?)? {
        try store.remoteSettings().map { (RemoteAddress($0), $0.repositoryID) }
    }

    /// Creates an empty encrypted repository at the remote address and makes it this
    /// journal's, caching its key so that later syncs need no passphrase. An S3 bucket that
    /// does not exist yet is made first, in the remote's region.
    /// - Throws: `SyncError` (`.alreadySyncs` …), `RemoteError`.
    public func createRepository(passphrase: SecureBytes, cost: KeyCost = .moderate) throws {
        try makeRepository(passphrase: passphrase, cost: cost)
    }

    /// `createRepository`, giving the repository made.
    @discardableResult
    package func makeRepository(passphrase: SecureBytes, cost: KeyCost = .moderate) throws -> Repository {
        let remote = try remoteSettings()
        if let existing = remote.repositoryID { throw SyncError.alreadySyncs(with: existing) }
        defer { keepWhatTheServerTaught() }
        let repository = try namingRemote {
            try Repository.initialize(backend: try connection.connector(for: remote)(), passphrase: passphrase, cost: cost)
        }
        try store.setRepositoryID(repository.id)
        try KeyCache.save(repository.keys, storeFolder: store.folder, repositoryID: repository.id)
        return repository
    }

    /// Checks without syncing that the journal's repository is there, is this journal's, and
    /// opens with `passphrase`.
    /// - Throws: `CryptoError.wrongPassphrase`, `RemoteError`, `SyncError`.
    public func checkRepository(passphrase: SecureBytes) throws {
        _ = try openRepository(passphrase: passphrase)
    }

    /// Changes the passphrase that opens the journal's repository, on every device at once
    /// (the key files live in the repository); the key itself, and so every object, stays.
    /// - Returns: what the change left on the server (`PassphraseChange.oldKeyKept`).
    /// - Throws: `CryptoError.wrongPassphrase` when `current` does not open it, `RemoteError`.
    @discardableResult
    public func changePassphrase(from current: SecureBytes, to new: SecureBytes, cost: KeyCost = .moderate) throws -> PassphraseChange {
        try changePassphrase(of: try openRepository(passphrase: current), to: new, cost: cost)
    }

    /// Gives `repository` (opened by `openRepository`) the passphrase `new`.
    @discardableResult
    package func changePassphrase(of repository: Repository, to new: SecureBytes, cost: KeyCost) throws -> PassphraseChange {
        defer { keepWhatTheServerTaught() }
        return try namingRemote {
            let change = try repository.changePassphrase(to: new, cost: cost)
            try store.setRepositoryKeyName(change.keyName)
            return change
        }
    }

    /// The journal's repository, opened with `passphrase`.
    package func openRepository(passphrase: SecureBytes) throws -> Repository {
        let remote = try remoteSettings()
        defer { keepWhatTheServerTaught() }
        return try namingRemote { try Repository.unlock(for: store, backend: try connection.connector(for: remote)(), passphrase: passphrase) }
    }

    /// Reaches the remote before a new repository is made there, so a person is asked for a
    /// passphrase only once the server answered and holds no repository yet.
    /// - Throws: `RemoteError` (unreachable, refused, unauthorised …), `SyncError`
    ///   `.alreadyExists`, `SyncError.alreadySyncs`.
    public func checkRemoteIsFree() throws {
        let remote = try remoteSettings()
        if let existing = remote.repositoryID { throw SyncError.alreadySyncs(with: existing) }
        defer { keepWhatTheServerTaught() }
        try namingRemote { try Repository.checkFree(try connection.connector(for: remote)()) }
    }

    func remoteSettings() throws -> RemoteSettings {
        guard let remote = try store.remoteSettings() else { throw SyncError.noRemoteSet }
        return remote
    }
}
