import CLinux
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Small POSIX helpers for durable, streamed file writes.
package enum FileIO {
    static let chunkSize = 1 << 20

    /// Opens `path` for reading (links followed), refusing folders, FIFOs and anything that
    /// is not a regular file; `O_NONBLOCK` keeps a FIFO from hanging the open.
    /// - Throws: `.fileUnreadable` naming the path and the reason.
    static func openForReading(_ path: String) throws -> Int32 {
        try SourceFile.named(path).open()
    }

    /// Checks that `fd` (just opened, -1 with `errno` on failure) is a regular file: a
    /// descriptor's own `fstat`, so nothing can swap the file between the check and the read.
    static func checkRegular(_ fd: Int32, path: String) throws -> Int32 {
        guard fd >= 0 else { throw StoreError(.fileUnreadable, path: path, detail: errnoText()) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw StoreError(.fileUnreadable, path: path, detail: "not a regular file")
        }
        return fd
    }

    /// The bytes this user may still write on the file system holding `path`; nil when unknown.
    package static func freeBytes(_ path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// A Foundation file error in the words of its POSIX cause ("no space left on device"),
    /// not Foundation's domain and code.
    package static func reason(of error: Error) -> String {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return errnoText(Int32(ns.code)) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return errnoText(Int32(underlying.code))
        }
        return ns.localizedDescription
    }

    package static func errnoText(_ code: Int32 = errno) -> String {
        String(cString: strerror(code)).lowercased()
    }

    /// Writes all of `buffer` to `fd`, retrying short writes and EINTR.
    package static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws {
        do { try DurableFile.writeAll(fd, buffer, path: path) } catch { throw StoreError(.io, path: path, detail: error.reason) }
    }

    /// Reads up to `buffer.count` bytes, retrying EINTR; 0 means end of file.
    static func readSome(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, path: String) throws -> Int {
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno != EINTR { throw StoreError(.fileUnreadable, path: path, detail: errnoText()) }
        }
    }

    /// Reads `fd` to its end; more than `limit` bytes is an error naming `path`.
    static func readAll(_ fd: Int32, limit: Int, path: String) throws -> Data {
        var data = Data()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = try readSome(fd, buffer, path: path)
            if n == 0 { return data }
            guard data.count + n <= limit else {
                throw StoreError(.fileUnreadable, path: path, detail: "larger than \(ByteCount.text(Int64(limit)))")
            }
            data.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
    }

    /// Flushes the folder entry of a rename to disk, so the new name survives a crash.
    package static func syncFolder(_ path: String) { DurableFile.syncFolder(path) }

    /// Flushes every file written on the filesystem holding `folder` (one `syncfs` instead of
    /// an `fsync` per file, for many small files written together).
    package static func syncFilesystem(of folder: String) throws {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError(.io, path: folder, detail: errnoText()) }
        defer { close(fd) }
        guard syncfs(fd) == 0 else { throw StoreError(.io, path: folder, detail: errnoText()) }
    }

    /// Writes `bytes` to a new file at `path` (mode 0600), not flushed.
    package static func writeNewFile(_ path: String, _ bytes: Data) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError(.io, path: path, detail: errnoText()) }
        defer { close(fd) }
        try bytes.withUnsafeBytes { try writeAll(fd, $0, path: path) }
    }

    /// Creates `path` and its parents with mode 0700 when missing.
    /// - Throws: `StoreError.io` naming the folder that could not be made, and why.
    package static func makeFolder(_ path: String) throws {
        var missing: [String] = []
        var current = path
        while !current.isEmpty && current != "/" && access(current, F_OK) != 0 {
            missing.append(current)
            current = PathText.parent(current)
        }
        for folder in missing.reversed() where mkdir(folder, 0o700) != 0 && errno != EEXIST {
            let code = errno
            let why = code == EACCES || code == EPERM || code == EROFS ? "permission denied: this user may not create it" : errnoText(code)
            throw StoreError(.io, path: folder, detail: "cannot create this folder (\(why))")
        }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw StoreError(.io, path: path, detail: "cannot create this folder: something else of that name is there")
        }
    }

    /// Writes a file durably: `body` fills a temporary file in the same folder, which is then
    /// fsynced, renamed over `path` (atomic: readers see the old or the new file, never half)
    /// and the folder fsynced, so the new name survives a crash.
    /// With `sync` false the data and rename are not flushed (atomic, but not durable) — for
    /// output that can be made again, where thousands of fsyncs would cost more than they save.
    package static func writeDurably(to path: String, mode: mode_t = 0o600, sync: Bool = true, _ body: (Int32) throws -> Void) throws {
        let parent = PathText.parent(path)
        do {
            let temp = try DurableFile.temporary(in: parent.isEmpty ? "." : parent, prefix: ".tmp-", mode: mode, sync: sync, body)
            try DurableFile.replace(path, with: temp, sync: sync)
        } catch let fault as DurableFile.Fault {
            throw StoreError(.io, path: path, detail: fault.reason)
        }
    }

    /// Writes `text` (UTF-8) to `path` atomically; durably unless `sync` is false.
    package static func writeText(_ text: String, to path: String, sync: Bool = true) throws {
        try writeDurably(to: path, sync: sync) { fd in
            try Array(text.utf8).withUnsafeBytes { try writeAll(fd, $0, path: path) }
        }
    }

    /// Copies `source` to `destination` in constant memory, atomically; durably unless `sync` is false.
    package static func copyAtomically(from source: String, to destination: String, sync: Bool = true) throws {
        let input = try openForReading(source)
        defer { close(input) }
        try writeDurably(to: destination, sync: sync) { output in
            try copy(input, source: source, to: output, destination: destination)
        }
    }

    /// Copies `input` to its end into `output` in 1 MiB chunks (paths are for messages).
    static func copy(_ input: Int32, source: String, to output: Int32, destination: String) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = try readSome(input, buffer, path: source)
            if n == 0 { return }
            try writeAll(output, UnsafeRawBufferPointer(rebasing: buffer[0..<n]), path: destination)
        }
    }
}
