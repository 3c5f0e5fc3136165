import Foundation
import QuireSupport
import QuireCrypto
import QuireRemote
import QuireStore

/// Downloads attachments in the background while the pulling thread merges: one job of a
/// `WorkerPool` per attachment asked for, each on a thread that owns one connection (its own
/// `Repository`), taken in the order they were asked for, writing each attachment —
/// authenticated chunk by chunk, hashed as it streams and checked against the SHA-256 it was
/// asked for under — to its own temporary
/// file in the store. A `SegmentScout`, on threads of the same pool, reads the segments still
/// to be merged ahead of the merging and asks for their attachments early, so downloads run
/// while earlier segments merge. Nothing here touches the database: the pulling thread takes
/// finished files in (`take`) in segment order, so crash safety is that of the serial path.
final class BlobPrefetcher: Sendable {
    private enum State {
        case queued(remote: RemoteBlob, temp: String)
        case running(temp: String)
        case done(temp: String)
        case failed(Error)
    }

    /// What the pulling thread and the download jobs share.
    private struct Downloads {
        var states: [String: State] = [:]   // by local (SHA-256) id
        var taken = Set<String>()
        var queue: [String] = []             // local ids, oldest first
        var queueHead = 0
        var closed = false
        /// Bytes read so far: each chunk wakes a `take` waiting, to refresh the progress line.
        var bytes: Int64 = 0
    }

    private let shared = Shared(Downloads())
    private let pool: WorkerPool<Repository>
    private let makeTemp: @Sendable () throws -> String
    /// Packs already in hand (`EarlyPacks`, in files), read before asking the server.
    private let held: @Sendable (String) -> HeldBytes?
    /// The bytes downloaded so far, by every worker.
    let meter: ByteMeter
    /// The same, counted here too, so a `take` waiting hears of them.
    private let heard: ByteMeter

    /// Downloads on `pool`'s threads, each with its connection's own `Repository`; `close`
    /// closes the pool.
    init(pool: WorkerPool<Repository>, meter: ByteMeter = ByteMeter(), held: (@Sendable (String) -> HeldBytes?)? = nil,
         temporaryPath: @escaping @Sendable () throws -> String) {
        makeTemp = temporaryPath
        self.meter = meter
        self.held = held ?? { _ in nil }
        self.pool = pool
        heard = ByteMeter(forwardingTo: meter) { [shared] n in shared.withLock { $0.bytes += Int64(n) } }
    }

    /// Asks for attachment `local` (repository id `remote`) unless it is asked for already.
    func request(local: String, remote: RemoteBlob) { request([(local, remote)]) }

    /// Asks for several at once: queued together, so small ones of one pack are read
    /// together (a worker woken by the first finds the rest queued beside it).
    func request(_ items: [(local: String, remote: RemoteBlob)]) {
        let queued = shared.withLock { state in
            var queued = 0
            for (local, remote) in items where !state.closed && state.states[local] == nil && !state.taken.contains(local) {
                do {
                    state.states[local] = .queued(remote: remote, temp: try makeTemp())
                    state.queue.append(local)
                    queued += 1
                } catch {
                    state.states[local] = .failed(error)
                }
            }
            return queued
        }
        pool.submit((0..<queued).map { _ in { [self] in downloadNext(with: $0) } })
    }

    /// True for an attachment a ranged read of its pack can bring in with others (one part,
    /// small): asking for it early, alone, would cost it a request of its own, so those
    /// reading ahead leave it to the batch asked for when it is needed.
    static func readsAlong(_ blob: RemoteBlob) -> Bool {
        guard let extent = soleExtent(blob) else { return false }
        return extent.length <= windowLimit / 4
    }

    /// Waits until `local` is downloaded (the temporary file's path) or failed (the error),
    /// calling `whileWaiting` as bytes arrive meanwhile (to show progress). The caller owns
    /// the file afterwards.
    func take(_ local: String, whileWaiting: () -> Void = {}) -> Result<String, Error> {
        shared.wait(until: { state in
            switch state.states[local] {
            case .queued?, .running?: false
            default: true
            }
        }, meanwhile: whileWaiting) { state in
            switch state.states[local] {
            case .done(let temp)?:
                state.states[local] = nil
                state.taken.insert(local)
                return .success(temp)
            case .failed(let error)?:
                state.states[local] = nil
                return .failure(error)
            default:
                return .failure(SyncError(.missing, detail: "an attachment was never asked for"))
            }
        }
    }

    /// Stops the workers after their current download and removes every file nobody took.
    func close() {
        shared.withLock { $0.closed = true }
        pool.close()
        let states = shared.withLock { state in
            defer { state.states = [:] }
            return state.states
        }
        for state in states.values {
            switch state {
            case .queued(_, let temp), .running(let temp), .done(let temp): unlink(temp)
            case .failed: break
            }
        }
    }

    /// Small attachments (one extent each) of one pack asked for near each other are read
    /// in one ranged GET of at most this many bytes, of which at least half is theirs: a
    /// restore of a thousand small attachments costs a few requests, not a thousand round
    /// trips, now that segments no longer carry copies of them.
    static let windowLimit: Int64 = 1 << 20

    /// One download: the attachment asked for, and those read with it.
    private struct Job {
        let local: String
        let remote: RemoteBlob
        let temp: String
    }

    /// One pool job: the attachment first in the queue not yet read along with another.
    private func downloadNext(with repository: Repository) {
        let claimed: ([Job], (pack: String, range: Range<Int64>)?)? = shared.withLock { state in
            var first: Job?
            while first == nil && !state.closed && state.queueHead < state.queue.count {
                let local = state.queue[state.queueHead]
                state.queueHead += 1
                if case .queued(let remote, let temp)? = state.states[local] { first = Job(local: local, remote: remote, temp: temp) }
            }
            guard let first else { return nil }
            state.states[first.local] = .running(temp: first.temp)
            return Self.companions(of: first, in: &state)
        }
        guard let (jobs, window) = claimed else { return }

        // A window that could not be read (a server fault after retries) leaves each to be
        // read on its own, which names what is wrong with it.
        let early = window.flatMap { self.held($0.pack) }
        let read = window.flatMap { try? repository.window(of: $0.pack, $0.range, held: early) }
        if let read, let window {
            // Only what came from the server counts: the held part came before.
            let kept = early?.end(of: window.range).map { $0 - window.range.lowerBound } ?? 0
            heard.add(read.bytes.count - Int(kept))
        }
        for job in jobs {
            let outcome: State
            do {
                try repository.download(job.remote, to: job.temp, sha256: job.local, meter: heard, held: { pack in pack == window?.pack ? read : self.held(pack) })
                outcome = .done(temp: job.temp)
            } catch let error as RemoteError where error.kind == .notFound {
                outcome = .failed(SyncError(.missing, object: job.remote.object, detail: "an attachment is missing on the server"))
            } catch {
                outcome = .failed(error)
            }
            shared.withLock { $0.states[job.local] = outcome }
        }
    }

    /// `first` and the queued small attachments of its pack that one ranged read can bring
    /// with it (marked running), with that read's range; `first` alone when none can. The
    /// window grows outward from `first` through its pack's queued attachments in the order
    /// they lie, the nearer neighbour first, while it stays within `windowLimit` and at least
    /// half of it is theirs: so the reads a restore makes follow the packs' layout, not the
    /// order attachments were asked in (their ids, random under the repository's key). Taken
    /// in queue order, a first attachment at a pack's end and a neighbour from its start
    /// ended the window early, and thirty attachments of one pack cost two to seven reads.
    private static func companions(of first: Job, in state: inout Downloads) -> ([Job], (pack: String, range: Range<Int64>)?) {
        guard let extent = Self.soleExtent(first.remote), extent.length <= Self.windowLimit else { return ([first], nil) }
        var candidates: [(job: Job, extent: BlobLocation.Extent)] = []
        var index = state.queueHead
        // Only a stretch of the queue is looked at: what was asked for together.
        while index < state.queue.count && index - state.queueHead < 1024 {
            let local = state.queue[index]
            index += 1
            guard case .queued(let remote, let temp)? = state.states[local], let other = Self.soleExtent(remote),
                  other.pack == extent.pack, other.length <= Self.windowLimit else { continue }
            candidates.append((Job(local: local, remote: remote, temp: temp), other))
        }
        guard !candidates.isEmpty else { return ([first], nil) }
        let before = candidates.filter { $0.extent.offset < extent.offset }.sorted { $0.extent.offset > $1.extent.offset }
        let after = candidates.filter { $0.extent.offset >= extent.offset }.sorted { $0.extent.offset < $1.extent.offset }
        var (start, end, useful) = (extent.offset, extent.offset + extent.length, extent.length)
        var (left, right) = (0, 0)
        var jobs = [first]
        func fits(_ other: BlobLocation.Extent) -> Bool {
            let (newStart, newEnd) = (min(start, other.offset), max(end, other.offset + other.length))
            return newEnd - newStart <= Self.windowLimit && (useful + other.length) * 2 >= newEnd - newStart
        }
        while true {
            let leftFits = left < before.count && fits(before[left].extent)
            let rightFits = right < after.count && fits(after[right].extent)
            guard leftFits || rightFits else { break }
            // Both fit: the one nearer the window (the smaller gap) comes first.
            let takeLeft = leftFits && (!rightFits || start - (before[left].extent.offset + before[left].extent.length) < after[right].extent.offset - end)
            let taken = takeLeft ? before[left] : after[right]
            if takeLeft { left += 1 } else { right += 1 }
            (start, end, useful) = (min(start, taken.extent.offset), max(end, taken.extent.offset + taken.extent.length), useful + taken.extent.length)
            state.states[taken.job.local] = .running(temp: taken.job.temp)
            jobs.append(taken.job)
        }
        return jobs.count > 1 ? (jobs, (extent.pack, start..<end)) : (jobs, nil)
    }

    private static func soleExtent(_ blob: RemoteBlob) -> BlobLocation.Extent? {
        guard let extents = blob.location?.extents, extents.count == 1 else { return nil }
        return extents[0]
    }
}
