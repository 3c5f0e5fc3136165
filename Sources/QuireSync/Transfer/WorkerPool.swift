import Foundation

/// The threads every transfer runs on: one per connection, each the only user of its
/// connection (a `Backend`, or a `Repository` opened on one), taking the next job in the
/// order they were submitted. A job is given the connection of the thread that runs it.
///
/// The pool knows nothing of what the jobs do: no failures, no budgets, no results. Its
/// clients (`UploadLanes`, `PackUploader`, `BlobPrefetcher`, `SegmentScout`) keep their own
/// queues of work and submit one job per item, which takes the next item of that queue when
/// it runs; so a client can stop, or hand its waiting items elsewhere, without asking the
/// pool, and two clients can share one pool (a pull's scout and prefetcher do).
final class WorkerPool<Connection>: @unchecked Sendable {
    typealias Job = (Connection) -> Void

    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var head = 0
    private var closed = false
    private let group = DispatchGroup()
    /// How many threads (and connections) the pool has.
    let width: Int

    init(_ connections: [Connection]) {
        width = connections.count
        for connection in connections {
            group.enter()
            let owned = Owned(connection)  // used by this thread alone
            let thread = Thread { [self] in
                defer { group.leave() }
                while let job = next() { job(owned.value) }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Queues `job`; it runs once a thread is free. Ignored after `close`.
    func submit(_ job: @escaping Job) { submit([job]) }

    /// Queues several at once, in order.
    func submit(_ more: [Job]) {
        condition.withLock {
            guard !closed else { return }
            jobs += more
        }
        condition.broadcast()
    }

    /// Runs every job submitted so far, then stops the threads; returns once they stopped.
    func close() {
        condition.withLock { closed = true }
        condition.broadcast()
        group.wait()
    }

    private func next() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count && !closed { condition.wait() }
        guard head < jobs.count else { return nil }
        let job = jobs[head]
        head += 1
        if head == jobs.count {
            // Drained: the array's storage goes, not only its elements.
            jobs = []
            head = 0
        }
        return job
    }
}
