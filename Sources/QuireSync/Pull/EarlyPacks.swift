import Foundation
import QuireSupport
import QuireRemote
import QuireStore

/// Packs fetched while the passphrase's key derivation runs, for a device that has merged
/// nothing yet (a restore, a new device): it will need every attachment, so the link,
/// idle for the second of Argon2id once the first segments are in, carries packs instead.
/// Each pack is read from its start in ranged GETs of `chunk` bytes over connections of
/// their own, so `stop` (when the key is ready) waits for one chunk at most; what came is
/// held, at most `limit` bytes, and read by the downloads instead of the server (`window`).
/// The bytes are held in a file each pack, not in memory: a restore's memory stays what it
/// was without them (a 2 GiB voice note restores in constant memory). The files are
/// unlinked as soon as they are made, so nothing is left behind, whatever happens. Only
/// bytes are held: each attachment is authenticated as it is decrypted, like any read from
/// the server, and packs never change once written.
final class EarlyPacks: Sendable {
    private struct Held {
        var held: [String: HeldFile] = [:]
        var heldBytes = 0
        var queue: [String] = []
        /// The packs are being listed (by the first connection; the others wait for the list).
        var listing = true
        var stopped = false
    }

    private let shared = Shared(Held())
    private let pool = Shared<WorkerPool<Backend>?>(nil)
    let limit: Int
    let chunk: Int
    /// A fresh path for a pack's file (in the store, beside its downloads).
    private let makePath: @Sendable () throws -> String

    init(limit: Int = 48 << 20, chunk: Int = 2 << 20,
         makePath: @escaping @Sendable () throws -> String = { NSTemporaryDirectory() + "/quire-early-" + UUID().uuidString }) {
        self.limit = limit
        self.chunk = chunk
        self.makePath = makePath
    }

    /// Lists the packs over the first of `backends` and reads them over all of them, each on
    /// a thread of a pool of their own, until `stop` or `limit`.
    func start(over backends: [Backend]) {
        guard !backends.isEmpty else { return }
        let pool = WorkerPool(backends)
        self.pool.withLock { $0 = pool }
        // The first job lists; the others wait for the list. Each takes a thread of its own
        // (as many jobs as threads), so the waiting ones never hold up the listing.
        pool.submit([{ [self] in
            list(over: $0)
            fetch(over: $0)
        }] + (1..<backends.count).map { _ in { [self] in
            shared.wait(until: { !$0.queue.isEmpty || $0.stopped || !$0.listing }) { _ in }
            fetch(over: $0)
        } })
    }

    /// Ends the fetching; returns once every connection is free again. What was held stays.
    func stop() {
        stopFetching()
        awaitEnd()
    }

    /// Asks no more chunks and returns at once; the ones under way still come (they are on
    /// the wire already). The key is ready when this is called: the restore goes on
    /// meanwhile, and only what needs the connections or the held bytes waits (`gated`,
    /// `window`). Waiting here for the last 2 MiB chunks, 30 ms away, held up the restore's
    /// merging 60-70 ms.
    func stopFetching() {
        shared.withLock { $0.stopped = true }
    }

    /// Tells `ended`, on a thread of its own, how many bytes are held once the fetching ended.
    func whenEnded(_ ended: @escaping @Sendable (Int) -> Void) {
        Thread { [self] in
            awaitEnd()
            ended(bytesHeld)
        }.start()
    }

    /// Waits until the fetching ended by itself (tests wait on this event, never on the clock).
    func awaitEnd() {
        pool.withLock { $0 }?.close()
    }

    /// `backend`, one of those the packs are read over, for other work once they are done:
    /// each request waits first until the fetching ended.
    func gated(_ backend: Backend) -> Backend {
        GatedBackend(backend) { [self] in awaitEnd() }
    }

    /// The bytes of `pack` held, from its start, if any; once the fetching ended (a file is
    /// read only once nothing writes it).
    func window(_ pack: String) -> HeldBytes? {
        awaitEnd()
        return shared.withLock { $0.held[pack] }
    }

    /// Bytes held in all.
    var bytesHeld: Int { shared.withLock { $0.heldBytes } }

    /// Lets the held packs go (the downloads are done), the fetching ended first.
    func release() {
        stop()
        shared.withLock { state in
            state.held = [:]
            state.heldBytes = 0
        }
    }

    private func list(over backend: Backend) {
        var names: [String] = []
        for device in (try? backend.list(Pack.folder)) ?? [] where device.isFolder {
            let folder = Pack.folder + "/" + device.name
            for pack in (try? backend.list(folder)) ?? [] where !pack.isFolder {
                names.append(folder + "/" + pack.name)
            }
        }
        shared.withLock { state in
            state.queue = names.filter(Pack.isValidPath).sorted()
            state.listing = false
        }
    }

    /// Takes the next pack and reads it chunk by chunk, until none is left, `stop` or `limit`.
    private func fetch(over backend: Backend) {
        while true {
            let next: String? = shared.withLock { state in
                guard !state.stopped, state.heldBytes < limit, !state.queue.isEmpty else { return nil }
                return state.queue.removeFirst()
            }
            guard let pack = next else { return }
            var offset: Int64 = 0
            while true {
                let room = shared.withLock { $0.stopped ? 0 : limit - $0.heldBytes }
                guard room > 0 else { return }
                let sink = DataSink(limit: chunk, expected: min(chunk, room))
                // A pack that cannot be read now is read later by the downloads, and named then;
                // so is one this machine cannot keep.
                guard (try? backend.get(pack, range: offset..<(offset + Int64(min(chunk, room))), into: sink)) != nil,
                      !sink.data.isEmpty, let file = offset == 0 ? try? HeldFile(path: makePath()) : shared.withLock({ $0.held[pack] }),
                      (try? file.append(sink.data)) != nil else { break }
                shared.withLock { state in
                    state.held[pack] = file
                    state.heldBytes += sink.data.count
                }
                offset += Int64(sink.data.count)
                if sink.data.count < min(chunk, room) { break }  // the pack's end
            }
        }
    }
}

/// A pack's bytes held in a file of their own, unlinked at once: open while anything holds
/// it, gone with the last holder. Written by one thread, read once the writing is over.
private final class HeldFile: HeldBytes, @unchecked Sendable {  // written by one thread, read only once writing is over
    private let descriptor: Int32
    /// Where it was made (unlinked since): named in errors.
    private let path: String
    private(set) var end: Int64 = 0
    var start: Int64 { 0 }

    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StoreError.file(path, "cannot hold a pack") }
        unlink(path)
    }

    deinit { close(descriptor) }

    func append(_ data: Data) throws {
        let written = data.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(end)) }
        guard written == data.count else { throw StoreError.file(path, "cannot hold a pack") }
        end += Int64(written)
    }

    func read(_ range: Range<Int64>) throws -> Data {
        var data = Data(count: Int(range.count))
        let got = data.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(range.lowerBound)) }
        guard got == range.count else { throw StoreError.file(path, "cannot read a held pack") }
        return data
    }
}

/// A connection another thread may still be using: its first request waits for `gate`
/// (`EarlyPacks.gated`). Used by one thread at a time, like any connection.
private final class GatedBackend: PublishSteps {
    private let inner: Backend
    private var gate: (() -> Void)?

    init(_ inner: Backend, gate: @escaping () -> Void) {
        self.inner = inner
        self.gate = gate
    }

    private func open() -> Backend {
        if let gate {
            gate()
            self.gate = nil
        }
        return inner
    }

    var location: String { inner.location }
    func onPublishStep(_ step: (() -> Void)?) { inner.onPublishStep(step) }
    func put(_ path: String, from source: ByteSource) throws { try open().put(path, from: source) }
    func publish(_ path: String, from source: ByteSource) throws { try open().publish(path, from: source) }
    func get(_ path: String, range: Range<Int64>?, into sink: ByteSink) throws { try open().get(path, range: range, into: sink) }
    func list(_ folder: String) throws -> [RemoteEntry] { try open().list(folder) }
    func delete(_ path: String) throws { try open().delete(path) }
    func move(_ from: String, to: String, overwrite: Bool) throws { try open().move(from, to: to, overwrite: overwrite) }
    func makeFolder(_ path: String) throws { try open().makeFolder(path) }
}
