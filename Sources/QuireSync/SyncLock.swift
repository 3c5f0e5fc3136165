import Foundation

/// The store's sync lock (`sync.lock`, flock): one sync, restore, prune or repairing verify
/// of a store at a time, across processes and across the threads of one. Taken by the
/// `Syncer` itself, so an app that drives a `Syncer` directly holds it too; a thread that
/// holds it may take it again (`Journal` wraps a whole run, the `Syncer` each step), another
/// thread of the same process is refused like another process.
package final class SyncLock {
    private let key: String

    private struct Held {
        let fd: Int32
        let thread: pthread_t
        var count: Int
    }
    private static let registry = NSLock()
    nonisolated(unsafe) private static var held: [String: Held] = [:]

    /// - Throws: `SyncError.locked` when another process, or another thread of this one, holds it.
    package init(storeFolder: String) throws {
        let path = storeFolder + "/sync.lock"
        let key = URL(fileURLWithPath: path).standardizedFileURL.path
        // Taken before `self.key` is set: a class whose init throws once every property is
        // set runs its deinit, which would give back a hold this one never had.
        try Self.take(key, path: path)
        self.key = key
    }

    private static func take(_ key: String, path: String) throws {
        try Self.registry.withLock {
            if var current = Self.held[key] {
                guard pthread_equal(current.thread, pthread_self()) != 0 else {
                    throw SyncError(.locked, detail: "another sync of this journal is running in this process")
                }
                current.count += 1
                Self.held[key] = current
                return
            }
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw SyncError(.locked, detail: "cannot create \(path)") }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)
                throw SyncError(.locked, detail: "another quire is syncing this journal")
            }
            Self.held[key] = Held(fd: fd, thread: pthread_self(), count: 1)
        }
    }

    deinit {
        Self.registry.withLock {
            guard var current = Self.held[key] else { return }
            current.count -= 1
            if current.count > 0 {
                Self.held[key] = current
                return
            }
            Self.held[key] = nil
            flock(current.fd, LOCK_UN)
            close(current.fd)
        }
    }
}
