import QuireRemote
import QuireStore
/// What sync, restore and verify report about the repository's history.
public struct SyncError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
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
    /// The server refused a body of `size` bytes and Quire cannot make its objects smaller.
    static func bodyLimit(_ size: Int64, _ error: RemoteError) -> SyncError {
        SyncError(.tooLarge, object: error.path,
                  detail: "the server refuses request bodies of \(ByteCount.text(size)) (HTTP 413) and Quire needs at least \(ByteCount.text(BlobUploads.smallestObjectLimit))")
    }
}
