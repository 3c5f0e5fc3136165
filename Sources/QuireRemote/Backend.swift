import Foundation

/// One name in a remote folder.
package struct RemoteEntry: Equatable, Sendable {
    package var name: String
    package var isFolder: Bool
    /// Size in bytes, when the server says (never trusted for anything but progress).
    package var size: Int64?

    package init(name: String, isFolder: Bool, size: Int64?) {
        self.name = name
        self.isFolder = isFolder
        self.size = size
    }
}

/// The few verbs the repository needs, which every WebDAV server and a plain folder can do.
/// Paths are relative to the repository root, "/"-separated, without a leading slash.
/// Nothing here relies on atomic PUT, ETags, If-Match/If-None-Match, LOCK or Depth infinity.
package protocol Backend: AnyObject {
    /// Where this is, for messages (never with credentials).
    var location: String { get }
    /// Creates or replaces `path`. Only for names that one writer alone uses.
    func put(_ path: String, from source: ByteSource) throws
    /// Creates `path` only if nothing is there, and never shows it half-written: the bytes
    /// go to a temporary name first, then move into place without overwriting.
    /// - Throws: `.exists` when the name is taken.
    func publish(_ path: String, from source: ByteSource) throws
    /// Streams the object (or the byte `range` of it) into `sink`.
    func get(_ path: String, range: Range<Int64>?, into sink: ByteSink) throws
    /// The names in one folder (not recursive), without temporary upload names.
    /// - Throws: `.notFound` when the folder does not exist.
    func list(_ folder: String) throws -> [RemoteEntry]
    func delete(_ path: String) throws
    /// - Throws: `.exists` when `overwrite` is false and `to` is taken.
    func move(_ from: String, to: String, overwrite: Bool) throws
    /// Creates folder `path` and its parents when missing (a folder that is there is fine).
    func makeFolder(_ path: String) throws
}

/// A backend whose publish has two halves (a temporary object, then a move into place), and
/// which lets a test hear between them: `step` runs there, where a crash test kills the
/// process. Not part of `Backend`: a backend without it (S3 writes in one request) simply
/// has no such point, and a wrapper passes it on (`CountingBackend`).
package protocol PublishSteps: Backend {
    func onPublishStep(_ step: (() -> Void)?)
}

/// A backend that counts the requests it really sends (retries and folder checks included),
/// for `sync --json` and the benchmarks.
package protocol CountsRequests: Backend {
    var requestsSent: Int { get }
}

/// A backend whose server can say whether it keeps what is deleted or replaced, as old
/// versions (an S3 bucket with versioning): prune's deletions then free nothing there.
package protocol KeepsOldVersions: Backend {
    /// True when it keeps them, false when not, nil when the server does not say.
    func keepsOldVersions() -> Bool?
    /// Deletes what the server keeps in `folder` besides its current objects: old versions
    /// (what a `delete` only hid, or a `put` replaced) and delete markers.
    func deleteOldVersions(in folder: String) throws
}

/// A backend whose repository lives in a container a person may not have made yet: an S3
/// bucket. `remote init` makes it, as restic's `init` and rclone's `mkdir` do; nothing else
/// does (a sync or a restore that finds no bucket has a wrong address, and says so).
package protocol MakesBuckets: Backend {
    /// The bucket, as a person names it: `journal (region eu-central-1)`.
    var bucketName: String { get }
    /// Whether the bucket is there (one request).
    func bucketExists() throws -> Bool
    /// Makes the bucket, in the backend's region; one that was made meanwhile (by this
    /// account) is no error.
    func makeBucket() throws
}

extension Backend {
    /// Whether the server keeps old versions of what is deleted (`KeepsOldVersions`); nil
    /// where it cannot say (WebDAV, a folder) or does not.
    package var oldVersionsKept: Bool? { (self as? KeepsOldVersions)?.keepsOldVersions() }
    /// Routes `step` to the backend's publish, where it has two halves (`PublishSteps`).
    package func onPublishStep(_ step: (() -> Void)?) { (self as? PublishSteps)?.onPublishStep(step) }
    /// Requests really sent, where the backend counts them (`CountsRequests`).
    package var wireRequests: Int? { (self as? CountsRequests)?.requestsSent }

    /// The whole object in memory (small objects only: keys, config, segments).
    package func getData(_ path: String, limit: Int = 64 << 20) throws -> Data {
        let sink = DataSink(limit: limit)
        try get(path, range: nil, into: sink)
        return sink.data
    }

    package func putData(_ path: String, _ data: Data) throws {
        try put(path, from: DataSource(data))
    }

    package func publishData(_ path: String, _ data: Data) throws {
        try publish(path, from: DataSource(data))
    }
}

/// Prefix of temporary names used while uploading; listings hide them.
let temporaryPrefix = ".tmp-"

/// A stream of bytes to upload; rewindable so a failed request can be retried.
package protocol ByteSource: AnyObject {
    /// The total length, when known.
    var size: Int64? { get }
    /// Fills `buffer` from the current position; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    /// Back to the start; false when that is impossible.
    func rewind() throws -> Bool
}

/// Where downloaded bytes go; resettable so a failed request can be retried.
package protocol ByteSink: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Forgets everything written so far.
    func reset() throws
}

package final class DataSource: ByteSource {
    private let data: Data
    private var offset = 0
    package init(_ data: Data) { self.data = data }
    package var size: Int64? { Int64(data.count) }
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, data.count - offset)
        guard n > 0 else { return 0 }
        data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: offset..<(offset + n))
        offset += n
        return n
    }
    package func rewind() throws -> Bool { offset = 0; return true }
}

package final class DataSink: ByteSink {
    package private(set) var data = Data()
    let limit: Int
    /// `expected`: the size the object will have, when known (a ranged read), so the bytes
    /// go into one buffer as they come rather than into one regrown and copied at each doubling.
    package init(limit: Int = 64 << 20, expected: Int = 0) {
        self.limit = limit
        if expected > 0 { data.reserveCapacity(min(expected, limit)) }
    }
    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard data.count + bytes.count <= limit else {
            throw RemoteError(.protocolError, detail: "object larger than \(limit) bytes")
        }
        data.append(contentsOf: bytes)
    }
    package func reset() throws { data.removeAll() }
}

/// Reads a local file, or the byte `range` of it, in order (pread, so rewinding is free).
package final class FileSource: ByteSource {
    private let fd: Int32
    private let path: String
    private let start: Int64
    private let end: Int64?
    private var offset: Int64
    package let size: Int64?

    package init(path: String, range: Range<Int64>? = nil) throws {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RemoteError(.localIO, detail: "cannot read \(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        let fileSize = fstat(fd, &info) == 0 ? Int64(info.st_size) : nil
        if let range, let fileSize, range.upperBound > fileSize {
            close(fd)
            throw RemoteError(.localIO, detail: "\(path) is shorter than expected")
        }
        start = range?.lowerBound ?? 0
        end = range?.upperBound
        offset = start
        size = range.map { $0.upperBound - $0.lowerBound } ?? fileSize
        self.path = path
    }

    deinit { close(fd) }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let wanted = end.map { min(buffer.count, Int($0 - offset)) } ?? buffer.count
        guard wanted > 0 else { return 0 }
        while true {
            let n = pread(fd, buffer.baseAddress, wanted, off_t(offset))
            if n >= 0 { offset += Int64(n); return n }
            if errno != EINTR { throw RemoteError(.localIO, detail: "cannot read \(path): \(String(cString: strerror(errno)))") }
        }
    }

    package func rewind() throws -> Bool { offset = start; return true }
}

/// Checks a repository-relative path: no empty, "." or ".." components, no leading slash.
func validatePath(_ path: String, allowRoot: Bool = false) throws {
    if path.isEmpty && allowRoot { return }
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    guard !path.isEmpty, !path.hasPrefix("/"),
          parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }), !path.contains("\u{0}") else {
        throw RemoteError(.invalid, path: path, detail: "not a valid repository path")
    }
}

/// Everything before the last "/" ("" for a top-level name). Not NSString's
/// deletingLastPathComponent, which traps on one-character paths on Linux.
func parentPath(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "" }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}
