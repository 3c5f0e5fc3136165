import Foundation
import Testing
@testable import QuireRemote

/// One suite for every backend: the local folder on every run, and every WebDAV server the
/// test command started (Apache), or any named in QUIRE_TEST_WEBDAV_URLS.
@Suite struct BackendConformanceTests {
    @Test func aServerIsConfiguredInCI() {
        // A skip is loud: in CI, running only against the local folder is a failure.
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            #expect(!Backends.servers.isEmpty, "CI must run the conformance suite against a real WebDAV server (scripts/test starts Apache)")
        } else if Backends.servers.isEmpty {
            print("⚠️  QUIRE_TEST_WEBDAV_URLS is not set: the backend suite ran against the local folder only. Use ./scripts/test.")
        }
    }

    func text(_ backend: Backend, _ path: String) throws -> String {
        String(decoding: try backend.getData(path), as: UTF8.self)
    }

    @Test(arguments: Backends.names)
    func putGetAndReplace(backend name: String) throws {
        let (backend, keep) = try Backends.make(name)
        defer { _ = keep }
        try backend.putData("a/b/c/object", Data("first".utf8))  // parents are created
        #expect(try text(backend, "a/b/c/object") == "first")
        try backend.putData("a/b/c/object", Data("second, longer".utf8))
        #expect(try text(backend, "a/b/c/object") == "second, longer")
        try backend.putData("empty", Data())
        #expect(try backend.getData("empty").isEmpty)
        let big = pseudoRandomBytes(3 << 20)
        try backend.putData("big", Data(big))
        #expect(try backend.getData("big") == Data(big))
    }

    @Test(arguments: Backends.names)
    func publishIsCreateOnly(backend name: String) throws {
        let (backend, keep) = try Backends.make(name)
        defer { _ = keep }
        try backend.publishData("log/dev/1", Data("mine".utf8))
        #expect {
            try backend.publishData("log/dev/1", Data("theirs".utf8))
        } throws: { ($0 as? RemoteError)?.kind == .exists }
        #expect(try text(backend, "log/dev/1") == "mine")
        #expect(try backend.list("log/dev").map(\.name) == ["1"])  // no temporary left behind in the listing
    }

    @Test(arguments: Backends.names)
    func rangedGet(backend name: String) throws {
        let (backend, keep) = try Backends.make(name)
        defer { _ = keep }
        let bytes = pseudoRandomBytes(200_000, seed: 7)
        try backend.putData("r", Data(bytes))
        for range in [Int64(0)..<10, 65_536..<131_072, 199_990..<200_000, 5..<6] {
            let sink = DataSink()
            try backend.get("r", range: range, into: sink)
            #expect(sink.data == Data(bytes[Int(range.lowerBound)..<Int(range.upperBound)]), "range \(range)")
        }
    }

    @Test(arguments: Backends.names)
    func listsEachObjectExactlyOnce(backend name: String) throws {
        let (backend, keep) = try Backends.make(name)
        defer { _ = keep }
        let names = ["plain", "журнал файл", "ü+%20 & ?#.txt", "日記", "a b"]
        for (i, n) in names.enumerated() { try backend.putData("folder/" + n, Data(repeating: 1, count: i)) }
        try backend.putData("folder/sub/inner", Data("x".utf8))
        let listed = try backend.list("folder")
        #expect(listed.map(\.name).sorted() == (names + ["sub"]).sorted())
        #expect(listed.first { $0.name == "sub" }?.isFolder == true)
        #expect(listed.filter { !$0.isFolder }.allSatisfy { entry in entry.size == Int64(names.firstIndex(of: entry.name) ?? -1) })
        for n in names { #expect(try backend.getData("folder/" + n).count == names.firstIndex(of: n)) }
        #expect(try backend.list("").map(\.name) == ["folder"])
        if backend is S3Backend {
            // No folders on S3: one that holds nothing lists empty.
            #expect(try backend.list("missing").isEmpty)
        } else {
            #expect {
                _ = try backend.list("missing")
            } throws: { ($0 as? RemoteError)?.kind == .notFound }
        }
    }

    @Test(arguments: Backends.names)
    func deleteAndMissingObjects(backend name: String) throws {
        let (backend, keep) = try Backends.make(name)
        defer { _ = keep }
        try backend.putData("x/gone", Data("bye".utf8))
        try backend.delete("x/gone")
        // S3 answers a DELETE with 204 whether or not the key was there: it cannot say.
        let deleteAgain: [() throws -> Void] = backend is S3Backend ? [] : [{ try backend.delete("x/gone") }]
        for attempt in [{ _ = try backend.getData("x/gone") }] + deleteAgain + [{ _ = try backend.getData("never") }] {
            #expect {
                try attempt()
            } throws: { ($0 as? RemoteError)?.kind == .notFound }
        }
    }

    @Test(arguments: Backends.names)
    func moveRespectsOverwrite(backend name: String) throws {
        let (backend, keep) = try Backends.make(name)
        defer { _ = keep }
        try backend.putData("m/a", Data("a".utf8))
        try backend.putData("m/b", Data("b".utf8))
        #expect {
            try backend.move("m/a", to: "m/b", overwrite: false)
        } throws: { ($0 as? RemoteError)?.kind == .exists }
        #expect(try text(backend, "m/b") == "b")
        try backend.move("m/a", to: "m/b", overwrite: true)
        #expect(try text(backend, "m/b") == "a")
        try backend.move("m/b", to: "n/deeper/c", overwrite: false)  // destination parents are made
        #expect(try text(backend, "n/deeper/c") == "a")
        #expect(try backend.list("m").isEmpty)
    }

    @Test(arguments: Backends.names)
    func aPublishedObjectIsNeverSeenHalfWritten(backend name: String) throws {
        let (backend, keep) = try Backends.make(name)
        defer { _ = keep }
        let content = Data(pseudoRandomBytes(8 << 20, seed: 3))
        let path = "race/object"
        // The reader needs its own connection (a curl handle is not shared between threads).
        let reader = Unchecked(backend is LocalBackend ? backend : try Backends.twin(of: backend))
        let observed = ObservedReads()
        let done = DispatchSemaphore(value: 0)
        let stop = AtomicFlag()
        Thread.detachNewThread {
            while !stop.isSet {
                do {
                    let data = try reader.value.getData(path, limit: 16 << 20)
                    observed.record(data.count)
                } catch {
                    observed.record(-1)
                }
            }
            done.signal()
        }
        // The upload stops halfway until the reader has read a few times: those reads happen
        // while the object is half uploaded, whatever the timing of the machine.
        let gated = GatedSource(content, at: content.count / 2) {
            let before = observed.count
            observed.waitFor(reads: before + 3)
            return observed.count >= before + 3
        }
        try backend.publish(path, from: gated)
        // Then reads go on until one has seen the whole object.
        observed.waitFor { $0.contains(content.count) }
        stop.set()
        done.wait()
        #expect(try backend.getData(path, limit: 16 << 20) == content)
        #expect(gated.passed, "no read happened while the object was half uploaded")
        #expect(observed.sizes.contains(content.count), "no read saw the published object")
        // Every read saw nothing or everything.
        #expect(observed.sizes.allSatisfy { $0 == -1 || $0 == content.count }, "sizes seen: \(Set(observed.sizes))")
    }

    @Test(arguments: Backends.names)
    func anInterruptedUploadNeverReplacesAGoodObject(backend name: String) throws {
        let (backend, keep) = try Backends.make(name)
        defer { _ = keep }
        try backend.publishData("keep/me", Data("good".utf8))
        let failing = FailingSource(total: 5 << 20, failAfter: 2 << 20)
        #expect(throws: (any Error).self) { try backend.publish("keep/me", from: failing) }
        #expect(try text(backend, "keep/me") == "good")
        #expect(throws: (any Error).self) { try backend.publish("keep/new", from: FailingSource(total: 5 << 20, failAfter: 1 << 20)) }
        #expect(try backend.list("keep").map(\.name) == ["me"])
    }
}

/// A source that breaks partway, like a client killed mid-upload. It never rewinds.
final class FailingSource: ByteSource {
    let total: Int, failAfter: Int
    var sent = 0
    init(total: Int, failAfter: Int) { self.total = total; self.failAfter = failAfter }
    var size: Int64? { Int64(total) }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if sent >= failAfter { throw RemoteError(.localIO, detail: "source broke") }
        let n = min(buffer.count, failAfter - sent)
        buffer.baseAddress?.initializeMemory(as: UInt8.self, repeating: 0x5A, count: n)
        sent += n
        return n
    }
    func rewind() throws -> Bool { sent == 0 }
}

final class Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

final class ObservedReads: @unchecked Sendable {
    private let condition = NSCondition()
    private var _sizes: [Int] = []
    func record(_ n: Int) {
        condition.withLock { _sizes.append(n) }
        condition.broadcast()
    }
    var sizes: [Int] { condition.withLock { _sizes } }
    var count: Int { sizes.count }

    /// Waits until `done` holds, or `Hang.limit`, so a broken backend fails rather than hangs.
    func waitFor(_ done: ([Int]) -> Bool) {
        let deadline = Date().addingTimeInterval(Hang.limit)
        condition.lock()
        defer { condition.unlock() }
        while !done(_sizes) && condition.wait(until: deadline) {}
    }

    func waitFor(reads: Int) { waitFor { $0.count >= reads } }
}

/// Content for an upload that, once `at` bytes have gone, calls `gate` and only then goes on.
final class GatedSource: ByteSource {
    let data: Data, at: Int
    /// Waits at the halfway point; true when what it waited for happened.
    let gate: () -> Bool
    var offset = 0
    private var opened = false
    /// The gate was reached and passed (a retry from the start does not wait again).
    private(set) var passed = false
    init(_ data: Data, at: Int, gate: @escaping () -> Bool) { self.data = data; self.at = at; self.gate = gate }
    var size: Int64? { Int64(data.count) }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if offset >= at && !opened {
            passed = gate()
            opened = true
        }
        let end = offset < at ? min(at, offset + buffer.count) : min(data.count, offset + buffer.count)
        data.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(end - offset)]), from: offset..<end)
        let n = end - offset
        offset = end
        return n
    }
    func rewind() throws -> Bool { offset = 0; return true }
}

final class AtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
