/// The named points a sync, restore or prune passes, for tests: a test hears them in
/// `SyncContext.checkpoint` (to hold or refuse a transfer there), or has the `quire` process
/// killed at the N-th time it passes one (`QUIRE_CRASH_AT=NAME[:N]`), proving that every
/// step can be interrupted and the next run converges. A name that is not here is refused,
/// so a test can never wait on a point the code does not have.
package enum SyncCheckpoint: String, CaseIterable, Sendable {
    // Pull
    case pullBeforeMerge = "pull-before-merge"
    case mergeBeforeCommit = "merge-before-commit"
    case pullAfterMerge = "pull-after-merge"
    case blobDownloaded = "blob-downloaded"
    // Push
    case packUploaded = "pack-uploaded"
    case blobUploadChunk = "blob-upload-chunk"
    case publishTempWritten = "publish-temp-written"
    case segmentsMade = "segments-made"
    case segmentPublishStart = "segment-publish-start"
    case segmentPublished = "segment-published"
    case headPublished = "head-published"
    // Prune
    case repackUploaded = "repack-uploaded"
    case repackAnnounced = "repack-announced"
    case headsCleaned = "heads-cleaned"
}
