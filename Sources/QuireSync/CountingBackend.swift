import Foundation
import QuireRemote

/// Wraps a backend to count requests and bytes, for `sync --json` and benchmarks.
package final class CountingBackend: PublishSteps, CountsRequests, KeepsOldVersions, MakesBuckets {
    package let inner: Backend
    package private(set) var requests = 0
    package private(set) var bytesUp: Int64 = 0
    package private(set) var bytesDown: Int64 = 0

    package init(_ inner: Backend) { self.inner = inner }
    package var location: String { inner.location }

    /// Requests the wrapped backend really sent (retries, MKCOLs, MOVEs included), where known.
    package var requestsSent: Int { inner.wireRequests ?? requests }
    package func onPublishStep(_ step: (() -> Void)?) { inner.onPublishStep(step) }
    package func keepsOldVersions() -> Bool? {
        requests += inner is KeepsOldVersions ? 1 : 0
        return inner.oldVersionsKept
    }
    package func deleteOldVersions(in folder: String) throws {
        requests += 1
        try (inner as? KeepsOldVersions)?.deleteOldVersions(in: folder)
    }

    package var bucketName: String { (inner as? MakesBuckets)?.bucketName ?? inner.location }
    /// True where the wrapped backend has no buckets (nothing to make).
    package func bucketExists() throws -> Bool {
        guard let buckets = inner as? MakesBuckets else { return true }
        requests += 1
        return try buckets.bucketExists()
    }
    package func makeBucket() throws {
        requests += 1
        try (inner as? MakesBuckets)?.makeBucket()
    }

    package func put(_ path: String, from source: ByteSource) throws {
        requests += 1
        try inner.put(path, from: CountingSource(source) { self.bytesUp += Int64($0) })
    }
    package func publish(_ path: String, from source: ByteSource) throws {
        requests += 1
        try inner.publish(path, from: CountingSource(source) { self.bytesUp += Int64($0) })
    }
    package func get(_ path: String, range: Range<Int64>?, into sink: ByteSink) throws {
        requests += 1
        try inner.get(path, range: range, into: CountingSink(sink) { self.bytesDown += Int64($0) })
    }
    package func list(_ folder: String) throws -> [RemoteEntry] {
        requests += 1
        return try inner.list(folder)
    }
    package func delete(_ path: String) throws {
        requests += 1
        try inner.delete(path)
    }
    package func move(_ from: String, to: String, overwrite: Bool) throws {
        requests += 1
        try inner.move(from, to: to, overwrite: overwrite)
    }
    package func makeFolder(_ path: String) throws {
        requests += 1
        try inner.makeFolder(path)
    }
}

private final class CountingSource: ByteSource {
    let source: ByteSource
    let count: (Int) -> Void
    init(_ source: ByteSource, count: @escaping (Int) -> Void) { self.source = source; self.count = count }
    var size: Int64? { source.size }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = try source.read(into: buffer)
        count(n)
        return n
    }
    func rewind() throws -> Bool { try source.rewind() }
}

private final class CountingSink: ByteSink {
    let sink: ByteSink
    let count: (Int) -> Void
    init(_ sink: ByteSink, count: @escaping (Int) -> Void) { self.sink = sink; self.count = count }
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        count(bytes.count)
        try sink.write(bytes)
    }
    func reset() throws { try sink.reset() }
}
