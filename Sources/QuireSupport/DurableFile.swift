import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writing a file so that a crash leaves the old file or the new one, never half of one: the
/// bytes go to a private temporary name beside it (`O_EXCL`, so nothing else shares it),
/// reach the disk (`fsync`), and only then get the final name (`rename`, or `link` where the
/// name must be new), whose folder entry is flushed in turn. The store's files and the local
/// repository's objects are both written this way; each names its own errors, from the
/// `Fault` this throws.
package enum DurableFile {
    /// A system call that failed: what was being done, to which path, and `errno`.
    package struct Fault: Error {
        package enum Step: Sendable { case create, write, sync, rename, link }
        package let step: Step
        package let path: String
        package let code: Int32

        package var reason: String { String(cString: strerror(code)).lowercased() }
    }

    /// Writes all of `buffer` to `fd`, retrying short writes and EINTR.
    package static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws(Fault) {
        guard var pointer = buffer.baseAddress else { return }
        var left = buffer.count
        while left > 0 {
            let written = write(fd, pointer, left)
            if written < 0 {
                if errno == EINTR { continue }
                throw Fault(step: .write, path: path, code: errno)
            }
            pointer += written
            left -= written
        }
    }

    /// A new temporary file in `folder` named `prefix` and a random part, filled by `fill`
    /// and (with `sync`) flushed to disk; its path. On any failure it is gone again.
    package static func temporary(in folder: String, prefix: String, mode: mode_t = 0o600, sync: Bool = true,
                                  _ fill: (Int32) throws -> Void) throws -> String {
        let temp = folder + "/" + prefix + UUID().uuidString.lowercased()
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Fault(step: .create, path: temp, code: errno) }
        do {
            try fill(fd)
            guard !sync || fsync(fd) == 0 else { throw Fault(step: .sync, path: temp, code: errno) }
            close(fd)
        } catch {
            close(fd)
            unlink(temp)
            throw error
        }
        return temp
    }

    /// Gives `temp` the name `path`, replacing what was there atomically, and (with `sync`)
    /// flushes the folder entry. On failure `temp` is removed.
    package static func replace(_ path: String, with temp: String, sync: Bool = true) throws(Fault) {
        guard rename(temp, path) == 0 else {
            let code = errno
            unlink(temp)
            throw Fault(step: .rename, path: path, code: code)
        }
        if sync { syncFolder(of: path) }
    }

    /// Gives `temp`'s bytes the name `path` only if that name is free (atomically), and
    /// flushes the folder entry. `temp` stays: the caller removes it. Throws with `EEXIST`
    /// when `path` was taken.
    package static func link(_ path: String, to temp: String) throws(Fault) {
        guard Glibc.link(temp, path) == 0 else { throw Fault(step: .link, path: path, code: errno) }
        syncFolder(of: path)
    }

    /// Flushes the folder entry of a new name to disk, so the name survives a crash.
    package static func syncFolder(of path: String) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        syncFolder(folder)
    }

    package static func syncFolder(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
