import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where an attachment's bytes come from, and so how far a path may be trusted.
package enum SourceFile: Hashable, Sendable, CustomStringConvertible {
    /// A file the user named (`quire attach FILE`): opened as `cat` would, links followed.
    case named(String)
    /// A file an import names relative to its folder: opened beneath that folder one component
    /// at a time, following no symbolic link, so a line (or a link planted in a shared folder)
    /// can never make Quire read `~/.ssh/id_ed25519` and sync it.
    case beneath(folder: String, relative: String)

    package var description: String {
        switch self {
        case .named(let path): return path
        case .beneath(let folder, let relative): return folder + "/" + relative
        }
    }

    /// Opens the file for reading. Either way the descriptor is opened with `O_NONBLOCK` and
    /// checked with `fstat` to be a regular file, so a FIFO or a device is an error, never a hang.
    /// - Throws: `.fileUnreadable` naming the path and the reason.
    func open() throws -> Int32 {
        switch self {
        case .named(let path):
            return try FileIO.checkRegular(Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), path: path)
        case .beneath(let folder, let relative):
            return try Self.openBeneath(folder: folder, relative: relative)
        }
    }

    /// The open descriptor, for a reader that takes one over (libzip): the caller closes it.
    package func openDescriptor() throws -> Int32 { try open() }

    /// The whole file, at most `limit` bytes (templates, small text).
    /// - Throws: `.fileUnreadable` naming the path and the reason.
    package func read(limit: Int) throws -> Data {
        let fd = try open()
        defer { close(fd) }
        return try FileIO.readAll(fd, limit: limit, path: description)
    }

    /// The file's first `count` bytes (fewer when it is shorter).
    package func head(_ count: Int) throws -> Data {
        let fd = try open()
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        let n = try bytes.withUnsafeMutableBytes { try FileIO.readSome(fd, $0, path: description) }
        return Data(bytes.prefix(n))
    }

    /// Whether the file is there at all (a link included), without following anything.
    package var exists: Bool {
        var info = stat()
        return lstat(description, &info) == 0
    }

    private static func openBeneath(folder: String, relative: String) throws -> Int32 {
        let shown = folder + "/" + relative
        let parts = relative.split(separator: "/", omittingEmptySubsequences: true).map(String.init).filter { $0 != "." }
        guard let last = parts.last, !relative.hasPrefix("/"), !parts.contains("..") else {
            throw StoreError(.fileUnreadable, path: shown, detail: "the path leaves its folder")
        }
        let root = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else { throw StoreError(.fileUnreadable, path: folder, detail: FileIO.errnoText()) }
        defer { close(root) }
        guard let dir = try ConfinedFolder.walk(from: root, at: folder, through: parts.dropLast(), create: false,
                                                failing: .fileUnreadable) else {
            throw StoreError(.fileUnreadable, path: shown, detail: FileIO.errnoText(ENOENT))
        }
        let fd = openat(dir, last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        let code = errno
        close(dir)
        guard fd >= 0 else { throw StoreError(.fileUnreadable, path: shown, detail: ConfinedFolder.linkReason(code)) }
        return try FileIO.checkRegular(fd, path: shown)
    }
}
