import Foundation
import QuireSupport

/// A repository in a local folder (`file:///path`): the embedded default that needs no server,
/// and the reference the WebDAV backend is tested against.
package final class LocalBackend: PublishSteps {
    package let root: String
    package var location: String { "file://" + root }
    /// Test hook, called between writing a create-only object's temporary file and linking it.
    package var publishStep: (() -> Void)?

    package func onPublishStep(_ step: (() -> Void)?) { publishStep = step }

    package init(root: String) {
        self.root = (root as NSString).standardizingPath
    }

    private func full(_ path: String) -> String { path.isEmpty ? root : root + "/" + path }

    private func ioError(_ path: String, _ what: String, code: Int32 = errno) -> RemoteError {
        if code == ENOENT || code == ENOTDIR { return RemoteError(.notFound, path: path, detail: "not found") }
        if code == ENOSPC || code == EDQUOT { return RemoteError(.insufficientStorage, path: path, detail: "no space left") }
        if code == EACCES || code == EPERM || code == EROFS {
            return RemoteError(.forbidden, path: full(path), detail: "permission denied: this user may not \(what.replacingOccurrences(of: "cannot ", with: "")) it")
        }
        return RemoteError(.localIO, path: path, detail: "\(what): \(String(cString: strerror(code)))")
    }

    private func makeParents(of path: String) throws {
        try makeFolders(parentPath(path) == "/" ? "" : parentPath(path))
    }

    /// Makes the repository-relative `folder` and those above it, up to and including the
    /// root. The root's own parent must exist already, and must not be a mount point's empty
    /// folder (`/media/usb` with no disk in it): a backup there would land on this machine's
    /// own disk without a word. Errors name the folder on disk and why.
    private func makeFolders(_ folder: String) throws {
        var missing: [String] = []
        var current = full(folder)
        while access(current, F_OK) != 0 {
            missing.append(current)
            if current == root { break }
            current = parentPath(current)
        }
        if missing.last == root { try checkRootMayBeMade() }
        for path in missing.reversed() {
            guard mkdir(path, 0o700) == 0 else {
                if errno == EEXIST { continue }
                throw folderError(path)
            }
            // The new folder's name made durable in its parent: on a file system that does not
            // order metadata as ext4 does, an object fsynced inside could come back nameless.
            DurableFile.syncFolder(of: path)
        }
    }

    private func folderError(_ path: String, code: Int32 = errno) -> RemoteError {
        switch code {
        case EACCES, EPERM, EROFS:
            return RemoteError(.forbidden, path: path, detail: "permission denied: cannot create this folder here (\(String(cString: strerror(code))))")
        case ENOSPC, EDQUOT: return RemoteError(.insufficientStorage, path: path, detail: "no space left")
        default: return RemoteError(.localIO, path: path, detail: "cannot create the folder: \(String(cString: strerror(code)))")
        }
    }

    /// The repository folder is about to be made: its parent must be there, and be a disk
    /// when it stands where removable disks are mounted.
    private func checkRootMayBeMade() throws {
        let parent = parentPath(root)
        var info = stat()
        guard stat(parent, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw RemoteError(.notFound, path: parent, detail: "no such folder, so the repository folder cannot be made in it: "
                              + "is the disk mounted? (Quire makes only the last folder of a file:// URL)")
        }
        let mountAreas = ["/media/", "/mnt/", "/run/media/"]
        guard mountAreas.contains(where: { (parent + "/").hasPrefix($0) }) else { return }
        var system = stat()
        guard stat("/", &system) == 0, system.st_dev == info.st_dev else { return }
        throw RemoteError(.notFound, path: parent, detail: "no disk is mounted here (it is part of the system disk), so the "
                          + "repository would not land on the disk it names: mount the disk first")
    }

    /// Writes `source` to a fresh temporary file beside `path`, durably (`DurableFile`: a
    /// private name, so a crash leaves only a hidden leftover, never a half object; the bytes
    /// on disk before any name points at them); returns its name.
    private func writeTemporary(for path: String, from source: ByteSource) throws -> String {
        try makeParents(of: path)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        return try naming(path) {
            try DurableFile.temporary(in: parentPath(full(path)), prefix: temporaryPrefix) { fd in
                _ = try source.rewind()
                while true {
                    let n = try source.read(into: buffer)
                    if n == 0 { break }
                    try DurableFile.writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<n]), path: path)
                }
            }
        }
    }

    /// Runs `body`, a file system failure in it said as the remote error for `path`.
    private func naming<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let fault as DurableFile.Fault {
            if fault.step == .link && fault.code == EEXIST { throw RemoteError(.exists, path: path, detail: "already exists") }
            let what: String
            switch fault.step {
            case .create: what = "cannot create"
            case .write: what = "cannot write"
            case .sync: what = "cannot sync"
            case .rename: what = "cannot rename"
            case .link: what = "cannot publish"
            }
            throw ioError(path, what, code: fault.code)
        }
    }

    package func put(_ path: String, from source: ByteSource) throws {
        try validatePath(path)
        let temp = try writeTemporary(for: path, from: source)
        // rename() replaces atomically: readers see the old or the new object.
        try naming(path) { try DurableFile.replace(full(path), with: temp) }
    }

    package func publish(_ path: String, from source: ByteSource) throws {
        try validatePath(path)
        let temp = try writeTemporary(for: path, from: source)
        defer { unlink(temp) }
        publishStep?()
        // link() creates the final name only if it is free, atomically, like MOVE with
        // Overwrite: F on a WebDAV server.
        try naming(path) { try DurableFile.link(full(path), to: temp) }
    }

    package func get(_ path: String, range: Range<Int64>?, into sink: ByteSink) throws {
        try validatePath(path)
        let fd = open(full(path), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ioError(path, "cannot open") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw RemoteError(.notFound, path: path, detail: "not a file")
        }
        var offset = range?.lowerBound ?? 0
        let end = min(range?.upperBound ?? Int64(info.st_size), Int64(info.st_size))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while offset < end {
            let want = Int(min(Int64(buffer.count), end - offset))
            let n = pread(fd, buffer.baseAddress, want, off_t(offset))
            if n < 0 { if errno == EINTR { continue }; throw ioError(path, "cannot read") }
            if n == 0 { break }
            try sink.write(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            offset += Int64(n)
        }
    }

    package func list(_ folder: String) throws -> [RemoteEntry] {
        try validatePath(folder, allowRoot: true)
        guard let dir = opendir(full(folder)) else { throw ioError(folder, "cannot list") }
        defer { closedir(dir) }
        var entries: [RemoteEntry] = []
        while let item = readdir(dir) {
            let name = withUnsafePointer(to: item.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." || name.hasPrefix(temporaryPrefix) { continue }
            var info = stat()
            guard stat(full(folder.isEmpty ? name : folder + "/" + name), &info) == 0 else { continue }
            let isFolder = (info.st_mode & S_IFMT) == S_IFDIR
            entries.append(RemoteEntry(name: name, isFolder: isFolder, size: isFolder ? nil : Int64(info.st_size)))
        }
        return entries.sorted { $0.name < $1.name }
    }

    package func delete(_ path: String) throws {
        try validatePath(path)
        if unlink(full(path)) == 0 { DurableFile.syncFolder(of: full(path)); return }
        if errno == EISDIR || errno == EPERM, rmdir(full(path)) == 0 { return }
        throw ioError(path, "cannot delete")
    }

    package func makeFolder(_ path: String) throws {
        try validatePath(path)
        try makeFolders(path)
    }

    package func move(_ from: String, to: String, overwrite: Bool) throws {
        try validatePath(from)
        try validatePath(to)
        try makeParents(of: to)
        if overwrite {
            guard rename(full(from), full(to)) == 0 else { throw ioError(from, "cannot move") }
        } else {
            guard link(full(from), full(to)) == 0 else {
                if errno == EEXIST { throw RemoteError(.exists, path: to, detail: "already exists") }
                throw ioError(from, "cannot move")
            }
            unlink(full(from))
        }
        DurableFile.syncFolder(of: full(to))
    }
}
