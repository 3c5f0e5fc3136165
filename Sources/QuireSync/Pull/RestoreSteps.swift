import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// Restore's steps around its pull (`Syncer.restore`). Constant memory: one segment (bounded
/// in size) and one 64 KiB blob chunk at a time. The store remembers which repository it is
/// restoring, so an interrupted restore continues where it stopped.
struct RestoreSteps {
    let context: SyncContext
    private var store: Store { context.store }

    /// Claims the store for a restore of this repository, or finds it already claimed.
    /// - Throws: `SyncError.notEmpty` unless the store is new or a restore of this repository.
    func begin() throws {
        if let resuming = try store.restoringFrom() {
            guard resuming == context.repository.id else {
                throw SyncError(.notEmpty, detail: "this store was restoring another repository; restore into a new folder")
            }
            try store.checkpointRarely(true)
            return
        }
        guard try store.entryCount() == 0, try store.syncLogs().isEmpty, !(try store.hasPendingChanges()) else {
            throw SyncError(.notEmpty, detail: "restore needs a new, empty store; this one already holds a journal")
        }
        try store.setRestoring(context.repository.id)
        try store.checkpointRarely(true)
        try store.buildRestoredIndexAside()
    }

    /// The pull's last step: every attachment still lacking is asked for, the search index
    /// is built while they download, then they are taken in. Returns how many were.
    func finish(notBefore: Date?, progress: ((String) -> Void)?) -> (BlobPrefetcher?) throws -> Int {
        { [self] downloads in
            if let notBefore { try checkFreshness(notBefore) }
            let lacking = try BlobIntake(context: context).askForLacking(using: downloads)
            do {
                progress?("building the search index")
                try store.indexRestoredText()
            } catch {
                lacking.cancel()
                throw error
            }
            return try lacking.takeIn()
        }
    }

    /// Refuses a repository whose newest change is older than `date`.
    func checkFreshness(_ date: Date) throws {
        let newest = try store.newestChange()
        guard let newest, newest.time >= date else {
            throw SyncError(.stale, object: context.backend.location, detail: newest.map {
                "its newest change is from \($0.timestamp) (device \($0.device.prefix(8))), before the date asked for: the server may hide newer ones"
            } ?? "it holds no change at all")
        }
    }

    /// The store is whole: no longer restoring, and synced now.
    func end() throws {
        try store.checkpointRarely(false)  // first: the end of the restore is flushed as it commits
        try store.setRestoring(nil)
        try store.recordSync(at: Timestamp.now())
    }
}
