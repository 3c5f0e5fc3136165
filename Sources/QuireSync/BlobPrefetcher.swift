import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// Downloads attachments in the background while the pulling thread merges: each worker
/// thread owns one connection (its own `Repository`) and takes jobs in the order they were
/// asked for, writing each attachment — authenticated chunk by chunk and checked against its
/// keyed hash — to its own temporary file in the store. A scout thread, on one more
/// connection, reads the segments still to be merged ahead of the merging and asks for
/// their attachments early, so downloads run while earlier segments merge. Nothing here
/// touches the database: the pulling thread takes finished files in (`take`) in segment
/// order, so crash safety is that of the serial path.
final class BlobPrefetcher: @unchecked Sendable {
    private enum State {
        case queued(remote: RemoteBlob, temp: String)
        case running(temp: String)
        case done(temp: String)
        case failed(Error)
    }

    private let condition = NSCondition()
    private var states: [String: State] = [:]   // by local (SHA-256) id
    private var taken = Set<String>()
    private var queue: [String] = []             // local ids, oldest first
    private var queueHead = 0
    private var closed = false
    private let finished = DispatchGroup()
    private let makeTemp: () throws -> String
    /// The bytes downloaded so far, by every worker.
    let meter: ByteMeter

    /// Starts one thread per repository in `workers`.
    init(workers: [Repository], meter: ByteMeter = ByteMeter(), temporaryPath: @escaping () throws -> String) {
        makeTemp = temporaryPath
        self.meter = meter
        for repository in workers {
            finished.enter()
            let owned = Owned(repository)  // used by this thread alone
            let thread = Thread { [self] in
                work(owned.value)
                finished.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Asks for attachment `local` (repository id `remote`) unless it is asked for already.
    func request(local: String, remote: RemoteBlob) {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, states[local] == nil, !taken.contains(local) else { return }
        do {
            states[local] = .queued(remote: remote, temp: try makeTemp())
            queue.append(local)
            condition.broadcast()
        } catch {
            states[local] = .failed(error)
        }
    }

    /// Waits until `local` is downloaded (the temporary file's path) or failed (the error),
    /// calling `whileWaiting` every half second meanwhile (to show progress). The caller
    /// owns the file afterwards.
    func take(_ local: String, whileWaiting: () -> Void = {}) -> Result<String, Error> {
        condition.lock()
        defer { condition.unlock() }
        while true {
            switch states[local] {
            case .done(let temp)?:
                states[local] = nil
                taken.insert(local)
                return .success(temp)
            case .failed(let error)?:
                states[local] = nil
                return .failure(error)
            case nil:
                return .failure(SyncError(.missing, detail: "an attachment was never asked for"))
            default:
                if !condition.wait(until: Date().addingTimeInterval(0.5)) {
                    condition.unlock()
                    whileWaiting()
                    condition.lock()
                }
            }
        }
    }

    /// Stops the workers after their current download and removes every file nobody took.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
        finished.wait()
        for state in states.values {
            switch state {
            case .queued(_, let temp), .running(let temp), .done(let temp): unlink(temp)
            case .failed: break
            }
        }
        states = [:]
    }

    private func work(_ repository: Repository) {
        while true {
            condition.lock()
            while queueHead == queue.count && !closed { condition.wait() }
            if closed {
                condition.unlock()
                return
            }
            let local = queue[queueHead]
            queueHead += 1
            guard case .queued(let remote, let temp)? = states[local] else {
                condition.unlock()
                continue
            }
            states[local] = .running(temp: temp)
            condition.unlock()

            let outcome: State
            do {
                try repository.download(remote, to: temp, meter: meter)
                outcome = .done(temp: temp)
            } catch let error as RemoteError where error.kind == .notFound {
                outcome = .failed(SyncError(.missing, object: remote.object, detail: "an attachment is missing on the server"))
            } catch {
                outcome = .failed(error)
            }
            condition.lock()
            states[local] = outcome
            condition.broadcast()
            condition.unlock()
        }
    }
}
