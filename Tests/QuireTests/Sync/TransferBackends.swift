import Foundation
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

// Backends that stand in for a server's limits and timing in TransferTests.

/// A backend that refuses bodies over `limit` with a 413, as nginx does over its
/// client_max_body_size, and remembers the largest object it stored.
final class LimitedBackend: Backend, @unchecked Sendable {
    let inner: Backend
    let limit: Int64
    private let lock = NSLock()
    private var _largest: Int64 = 0, _refusals = 0
    var largestStored: Int64 { lock.withLock { _largest } }
    var refusals: Int { lock.withLock { _refusals } }

    init(_ inner: Backend, limit: Int64) { self.inner = inner; self.limit = limit }
    var location: String { inner.location }

    private func check(_ path: String, _ source: ByteSource) throws {
        let size = source.size ?? 0
        guard size <= limit else {
            lock.withLock { _refusals += 1 }
            throw RemoteError(.tooLarge, path: path, status: 413, detail: "the server refuses a request body this large")
        }
        lock.withLock { _largest = max(_largest, size) }
    }

    func put(_ path: String, from source: ByteSource) throws { try check(path, source); try inner.put(path, from: source) }
    func publish(_ path: String, from source: ByteSource) throws { try check(path, source); try inner.publish(path, from: source) }
    func get(_ path: String, range: Range<Int64>?, into sink: ByteSink) throws { try inner.get(path, range: range, into: sink) }
    func list(_ folder: String) throws -> [RemoteEntry] { try inner.list(folder) }
    func delete(_ path: String) throws { try inner.delete(path) }
    func move(_ from: String, to: String, overwrite: Bool) throws { try inner.move(from, to: to, overwrite: overwrite) }
    func makeFolder(_ path: String) throws { try inner.makeFolder(path) }
}

/// Holds pack uploads back until opened or refused, counting them. It never opens itself:
/// a pack held for `hangLimit` seconds means the push waits for something that will not
/// come, and the upload fails with `Hung` (the test fails, saying so) instead of going on.
final class PackGate: @unchecked Sendable {
    struct Refused: Error {}
    struct Hung: Error, CustomStringConvertible {
        var description: String { "the test hung: a pack was held for \(PackGate.hangLimit) s and the gate was never opened or refused" }
    }
    static let hangLimit: TimeInterval = 600
    private let condition = NSCondition()
    private var isOpen = false, isRefused = false, _started = 0, _stored = 0, _timedOut = false
    var started: Int { condition.withLock { _started } }
    var stored: Int { condition.withLock { _stored } }
    var timedOut: Bool { condition.withLock { _timedOut } }

    func open() { condition.withLock { isOpen = true; condition.broadcast() } }
    /// Every pack held back, and every later one, fails.
    func refuse() { condition.withLock { isRefused = true; condition.broadcast() } }

    func pass(_ upload: () throws -> Void) throws {
        try condition.withLock {
            _started += 1
            let limit = Date().addingTimeInterval(Self.hangLimit)
            while !isOpen && !isRefused {
                if !condition.wait(until: limit) {
                    _timedOut = true
                    throw Hung()
                }
            }
            if isRefused { throw Refused() }
        }
        try upload()
        condition.withLock { _stored += 1 }
    }
}

/// A worker connection whose pack uploads pass `gate`.
final class GatedBackend: Backend, @unchecked Sendable {
    let inner: Backend
    let gate: PackGate
    init(_ inner: Backend, gate: PackGate) { self.inner = inner; self.gate = gate }
    var location: String { inner.location }
    func put(_ path: String, from source: ByteSource) throws {
        guard path.hasPrefix(Pack.folder + "/") else { return try inner.put(path, from: source) }
        try gate.pass { try inner.put(path, from: source) }
    }
    func publish(_ path: String, from source: ByteSource) throws { try inner.publish(path, from: source) }
    func get(_ path: String, range: Range<Int64>?, into sink: ByteSink) throws { try inner.get(path, range: range, into: sink) }
    func list(_ folder: String) throws -> [RemoteEntry] { try inner.list(folder) }
    func delete(_ path: String) throws { try inner.delete(path) }
    func move(_ from: String, to: String, overwrite: Bool) throws { try inner.move(from, to: to, overwrite: overwrite) }
    func makeFolder(_ path: String) throws { try inner.makeFolder(path) }
}
