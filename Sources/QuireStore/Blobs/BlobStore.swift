import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Attachment bytes as files named by their SHA-256 under `blobs/<first two hex>/<id>`.
/// Written durably (temp file, fsync, rename, fsync folder), deduplicated by name, and
/// streamed in 1 MiB chunks: attaching a 2 GiB file never holds it in memory.
package struct BlobStore: Sendable {
    package let root: String

    package init(root: String) { self.root = root }

    /// The file holding blob `id`.
    package func path(for id: String) -> String {
        root + "/" + id.prefix(2) + "/" + id
    }

    package func contains(_ id: String) -> Bool {
        FileManager.default.fileExists(atPath: path(for: id))
    }

    /// The size of blob `id`'s file, nil when it is not here.
    package func size(of id: String) -> Int64? {
        var info = stat()
        return stat(path(for: id), &info) == 0 ? Int64(info.st_size) : nil
    }

    /// A blob id is 64 lower-case hex characters; anything else is refused before it
    /// can become a path.
    package static func isValidID(_ id: String) -> Bool {
        id.utf8.count == 64 && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    package struct Added: Sendable {
        public let id: String
        public let size: Int64
        /// False when identical bytes were already stored.
        public let isNew: Bool
    }

    /// Copies the file at `source` into the store, hashing while it streams.
    /// - Throws: `.fileUnreadable` for a missing or unreadable source, `.io` when writing fails.
    package func add(fileAt source: String) throws -> Added {
        try add(.named(source))
    }

    /// Copies `file` into the store, hashing while it streams.
    /// - Throws: `.fileUnreadable` for a missing, unreadable or refused source, `.io` when writing fails.
    package func add(_ file: SourceFile) throws -> Added {
        try add(.file(file))
    }

    /// Copies the bytes of `source` into the store, hashing while they stream: a file, or an
    /// entry of an archive read straight from it.
    /// - Throws: `.fileUnreadable` for a missing, unreadable or refused source, `.io` when writing fails.
    package func add(_ source: AttachmentSource) throws -> Added {
        let input = try source.open()
        let tempFolder = root + "/tmp"
        try FileIO.makeFolder(tempFolder)
        let temp = tempFolder + "/" + UUID().uuidString.lowercased()
        // 1. Write to a private temporary name: a crash leaves only garbage in tmp/.
        let output = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw StoreError(.io, path: temp, detail: FileIO.errnoText()) }
        let (hash, size): (String, Int64)
        do {
            (hash, size) = try Self.hashChunks(read: input.read) { try FileIO.writeAll(output, $0, path: temp) }
            // 2. Make the bytes durable before the name points at them.
            guard fsync(output) == 0 else { throw StoreError(.io, path: temp, detail: FileIO.errnoText()) }
            close(output)
        } catch {
            close(output)
            unlink(temp)
            throw error
        }
        return try install(temp, id: hash, size: size)
    }

    /// Takes a file already written inside the store's folder (a download) into the store by
    /// renaming it: no second copy. `sha256`, when the writer hashed the bytes as it wrote
    /// them, saves reading them again. The file is gone afterwards either way.
    /// With `syncFolder` false the caller flushes the blob's folder (`folder(of:)`) itself,
    /// once for many blobs.
    package func adopt(fileAt path: String, sha256: String? = nil, syncFolder: Bool = true) throws -> Added {
        if let sha256, Self.isValidID(sha256) {
            var info = stat()
            guard stat(path, &info) == 0 else { throw StoreError(.fileUnreadable, path: path, detail: FileIO.errnoText()) }
            return try install(path, id: sha256, size: Int64(info.st_size), syncFolder: syncFolder)
        }
        let input = try FileIO.openForReading(path)
        defer { close(input) }
        let (hash, size): (String, Int64)
        do {
            (hash, size) = try Self.hashChunks(read: { try FileIO.readSome(input, $0, path: path) }) { _ in }
        } catch {
            unlink(path)
            throw error
        }
        return try install(path, id: hash, size: size)
    }

    /// Reads `read` to its end in 1 MiB chunks, hashing each and handing it to `each`.
    private static func hashChunks(read: (UnsafeMutableRawBufferPointer) throws -> Int,
                                   _ each: (UnsafeRawBufferPointer) throws -> Void) throws -> (String, Int64) {
        var hash = SHA256()
        var size: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FileIO.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = try read(buffer)
            if n == 0 { break }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            hash.update(chunk)
            try each(chunk)
            size += Int64(n)
        }
        return (hash.finalizeHex(), size)
    }

    /// Moves a complete, synced file into place as blob `id`, or drops it when identical bytes
    /// are stored already. Rename is atomic: readers see no blob or the whole blob.
    private func install(_ file: String, id: String, size: Int64, syncFolder: Bool = true) throws -> Added {
        let final = path(for: id)
        if FileManager.default.fileExists(atPath: final) {
            unlink(file)
            return Added(id: id, size: size, isNew: false)
        }
        let folder = folder(of: id)
        let created = !FileManager.default.fileExists(atPath: folder)
        try FileIO.makeFolder(folder)
        guard rename(file, final) == 0 else {
            let reason = FileIO.errnoText()
            unlink(file)
            throw StoreError(.io, path: final, detail: reason)
        }
        // Persist the new folder entry (and the folder itself when it is new).
        if syncFolder {
            FileIO.syncFolder(folder)
            if created { FileIO.syncFolder(root) }
        }
        return Added(id: id, size: size, isNew: true)
    }

    /// The folder blob `id` lives in (`blobs/ab`).
    package func folder(of id: String) -> String { root + "/" + id.prefix(2) }

    /// A fresh temporary file name inside the store (same filesystem, so `adopt` can rename).
    package func temporaryPath() throws -> String {
        try FileIO.makeFolder(root + "/tmp")
        return root + "/tmp/" + UUID().uuidString.lowercased()
    }

    /// Removes temporary files (of downloads and attachments a crash interrupted) last
    /// changed more than `age` seconds ago; younger ones may belong to work still running.
    /// Returns how many went.
    @discardableResult
    package func removeStaleTemporaries(olderThan age: TimeInterval) -> Int {
        let folder = root + "/tmp"
        let cutoff = Date().addingTimeInterval(-age)
        var removed = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            let path = folder + "/" + name
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                  modified < cutoff, unlink(path) == 0 else { continue }
            removed += 1
        }
        return removed
    }

    /// Removes blob `id`'s file (used to undo blobs added by a transaction that rolled back).
    package func remove(_ id: String) {
        guard Self.isValidID(id) else { return }
        unlink(path(for: id))
    }
}
