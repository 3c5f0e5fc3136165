import QuireCrypto
import QuireRemote

/// The Sync layer's error: what went wrong with the repository as a whole. Remote and crypto
/// failures pass through as they are (`RemoteError`, `CryptoError`).
public struct RepositoryError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// Nothing (or no Quire repository) at the URL.
        case noRepository
        /// `remote init` found a repository already there.
        case alreadyExists
        /// The repository at the URL is not the one this store syncs with.
        case wrongRepository
        /// quire-repo.json is unreadable or from a newer Quire.
        case badConfig
        /// No key is cached and the caller allows no passphrase (a background service).
        case locked
    }

    public let kind: Kind
    public let detail: String

    package init(_ kind: Kind, detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { detail }
}
