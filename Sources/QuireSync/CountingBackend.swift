import Foundation
import QuireRemote

/// Wraps a backend to count requests and bytes, for `sync --json` and benchmarks.
public final class CountingBackend: Backend {
    public let inner: Backend
    public private(set) var requests = 0
    public private(set) var bytesUp: Int64 = 0
    public private(set) var bytesDown: Int64 = 0

    public init(_ inner: Backend) { self.inner = inner }
    public var location: String { inner.location }

    /// Requests the wrapped backend really sent (retries, MKCOLs, MOVEs included), where known.
    public var wireRequests: Int? { inner.wireRequests ?? requests }
    public func onPublishStep(_ step: (() -> Void)?) { inner.onPublishStep(step) }

    public func put(_ path: String, from source: ByteSource) throws {
        requests += 1
        try inner.put(path, from: CountingSource(source) { self.bytesUp += Int64($0) })
    }
    public func publish(_ path: String, from source: ByteSource) throws {
        requests += 1
        try inner.publish(path, from: CountingSource(source) { self.bytesUp += Int64($0) })
    }
    public func get(_ path: String, range: Range<Int64>?, into sink: ByteSink) throws {
        requests += 1
        try inner.get(path, range: range, into: CountingSink(sink) { self.bytesDown += Int64($0) })
    }
    public func list(_ folder: String) throws -> [RemoteEntry] {
        requests += 1
        return try inner.list(folder)
    }
    public func delete(_ path: String) throws {
        requests += 1
        try inner.delete(path)
    }
    public func move(_ from: String, to: String, overwrite: Bool) throws {
        requests += 1
        try inner.move(from, to: to, overwrite: overwrite)
    }
    public func makeFolder(_ path: String) throws {
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
