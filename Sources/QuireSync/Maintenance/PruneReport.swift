import Foundation

/// What `prune` did.
public struct PruneReport: Sendable {
    public var snapshot = ""
    public var segmentsDeleted = 0
    public var snapshotsDeleted = 0
    public var blobsDeleted = 0
    /// Unreferenced blobs seen, waiting out the grace period before they go.
    public var blobsMarked = 0
    /// Files in this store's `blobs/` that nothing needed any more.
    public var localFilesRemoved = 0
    /// Packs mostly garbage whose live attachments moved to new packs (the old ones are
    /// then collected like any garbage).
    public var packsRepacked = 0
    /// Whether the server keeps what prune deleted, as old versions (an S3 bucket with
    /// versioning on: B2 always): those bytes then stay, and are billed, until a lifecycle
    /// rule expires them. Nil where the server cannot or does not say.
    public var oldVersionsKept: Bool?
}
