import CLinux
import Foundation

/// Tells when files in a folder change (Linux inotify): `sync --watch` notices a local edit
/// made by another process within seconds instead of waiting out its interval.
final class FolderWatcher {
    private let fd: Int32

    /// Nil where inotify is not available (the watch then keeps to its interval).
    init?(folder: String) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_MODIFY) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_CREATE)
        guard inotify_add_watch(fd, folder, mask) >= 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Waits up to `seconds` for a change; true when one came.
    func wait(_ seconds: TimeInterval) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, Int32((max(0, min(seconds, 3600)) * 1000).rounded()))
        guard ready > 0 else { return false }
        drain()
        return true
    }

    /// Forgets the changes so far (those a sync made itself).
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
