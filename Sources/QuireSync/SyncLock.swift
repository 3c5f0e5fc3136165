import Foundation

/// An exclusive lock on a store's `sync.lock`, so two syncs of one store never run at once.
/// Held by the process (flock): a killed sync releases it with its process.
package final class SyncLock {
    private let fd: Int32

    /// - Throws: `SyncError.locked` when another process holds it.
    package init(storeFolder: String) throws {
        fd = open(storeFolder + "/sync.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SyncError(.locked, detail: "cannot create \(storeFolder)/sync.lock") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw SyncError(.locked, detail: "another quire is syncing this journal")
        }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
