import QuireRemote
import QuireStore
/// The Sync layer's one error type: what went wrong with the repository as a whole or with
/// its history. Remote and crypto failures pass through as they are (`RemoteError`,
/// `CryptoError`).
public struct SyncError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// No remote is set for this journal (`Journal.setRemote` first).
        case noRemote
        /// The journal already syncs with a repository; it cannot make another its own.
        case alreadySyncs
        /// Nothing (or no Quire repository) at the URL.
        case noRepository
        /// `remote init` found a repository already there.
        case alreadyExists
        /// The repository at the URL is not the one this store syncs with.
        case wrongRepository
        /// quire-repo.json is unreadable or from a newer Quire.
        case badConfig
        /// No key is cached and the caller allows no passphrase (a background service).
        case noKey
        /// An object that does not authenticate, or is not what its name says.
        case damaged
        /// An object that should be there is not.
        case missing
        /// The server shows an older state than this journal has already seen.
        case rolledBack
        /// The repository is empty although this journal synced with it.
        case emptied
        /// Another sync of this store is running.
        case locked
        /// `restore` needs an empty store.
        case notEmpty
        /// The server refuses bodies the size Quire cannot go below.
        case tooLarge
        /// The caller cancelled (`Syncer.isCancelled`); the next sync continues where it stopped.
        case cancelled
        /// A restore found no change as recent as the caller asked for (`restore --not-before`).
        case stale
    }

    public let kind: Kind
    /// The remote object concerned.
    public let object: String?
    public let detail: String

    package init(_ kind: Kind, object: String? = nil, detail: String) {
        self.kind = kind
        self.object = object
        self.detail = detail
    }

    public var description: String { (object.map { $0 + ": " } ?? "") + detail }
}

extension SyncError {
    package static let noRemoteSet = SyncError(.noRemote, detail: "no remote is set for this journal")

    package static func alreadySyncs(with repository: String) -> SyncError {
        SyncError(.alreadySyncs, detail: "this journal already syncs with repository \(repository.prefix(8))")
    }

    /// The server refused a body of `size` bytes and Quire cannot make its objects smaller.
    static func bodyLimit(_ size: Int64, _ error: RemoteError) -> SyncError {
        SyncError(.tooLarge, object: error.path,
                  detail: "the server refuses request bodies of \(ByteCount.text(size)) (HTTP 413) and Quire needs at least \(ByteCount.text(BlobUploads.smallestObjectLimit))")
    }
}
