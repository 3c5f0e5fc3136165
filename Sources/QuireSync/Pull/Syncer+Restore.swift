import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

extension Syncer {
    /// Brings everything in the repository into an empty store: every device's change log,
    /// every attachment. Constant memory: one segment (bounded in size) and one 64 KiB blob
    /// chunk at a time. Resumable: the store remembers which repository it is restoring, and
    /// a restore interrupted at any point continues where it stopped when called again.
    /// - Throws: `SyncError.notEmpty` unless the store is new or a restore of this repository.
    public func restore(progress: ((String) -> Void)? = nil) throws -> SyncReport {
        if let resuming = try store.restoringFrom() {
            guard resuming == repository.id else {
                throw SyncError(.notEmpty, detail: "this store was restoring another repository; restore into a new folder")
            }
        } else {
            guard try store.entryCount() == 0, try store.syncLogs().isEmpty, !(try store.hasPendingChanges()) else {
                throw SyncError(.notEmpty, detail: "restore needs a new, empty store; this one already holds a journal")
            }
            try store.setRestoring(repository.id)
        }
        var report = SyncReport()
        try pull(into: &report, progress: progress) { downloads, report in
            // The index is built while the last attachments download.
            progress?("building the search index")
            try self.store.indexRestoredText()
            try self.takeInLacking(using: downloads, into: &report)
        }
        try store.setRestoring(nil)
        try store.recordSync(at: Timestamp.now())
        return report
    }
}
