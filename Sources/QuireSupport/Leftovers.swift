import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Work under way that holds the journal in plaintext outside the store (a book being
/// written, a Markdown folder being filled): registered while it lasts, so a process told to
/// stop (SIGINT, SIGTERM) removes it before it goes, instead of leaving the journal's pages
/// in an output folder. The exporters register; the command line turns the signals into the
/// clean-up (`removeOnInterrupt`), and an app embedding Quire may call `removeAll` from its own.
package enum Leftovers {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var paths: [Int: String] = [:]
    nonisolated(unsafe) private static var next = 0

    /// Registers `path` (a file, or a folder removed with what it holds); the token to forget it.
    package static func register(_ path: String) -> Int {
        lock.withLock {
            next += 1
            paths[next] = path
            return next
        }
    }

    /// The work is done (or cleaned up by its owner): nothing to remove.
    package static func forget(_ token: Int) {
        _ = lock.withLock { paths.removeValue(forKey: token) }
    }

    /// What is registered now.
    package static var registered: [String] { lock.withLock { Array(paths.values) } }

    /// Removes everything registered.
    package static func removeAll() {
        for path in lock.withLock({ Array(paths.values) }) { try? FileManager.default.removeItem(atPath: path) }
        lock.withLock { paths.removeAll() }
    }

    /// From now on SIGINT and SIGTERM, in this thread and every thread it starts, go to a
    /// thread of their own, which removes what is registered, says `message` (of the signal)
    /// and ends the process as the signal would. Call it before starting other threads.
    package static func removeOnInterrupt(_ message: @escaping @Sendable (Int32) -> Void) {
        @Sendable func signals() -> sigset_t {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGINT)
            sigaddset(&set, SIGTERM)
            return set
        }
        var blocked = signals()
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        let watcher = Thread {
            var set = signals()
            var caught: Int32 = 0
            guard sigwait(&set, &caught) == 0 else { return }
            removeAll()
            message(caught)
            signal(caught, SIG_DFL)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            raise(caught)
        }
        watcher.start()
    }
}
