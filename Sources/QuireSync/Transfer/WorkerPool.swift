import Foundation
import QuireSupport

/// The threads every transfer runs on, and the one place in sync that waits: one thread per
/// connection, each the only user of its connection (a `Backend`, or a `Repository` opened
/// on one), taking the next job in the order they were submitted. A job is given the
/// connection of the thread that runs it.
///
/// The pool owns the queue, the byte budget, the first failure and the waiting:
/// - a job may hold `bytes` until it is done; `submit` waits while jobs waiting or under
///   way hold `budget` bytes between them (unless nothing else is held), so memory stays
///   bounded whatever the jobs' sizes;
/// - a job that throws is the pool's first failure: the jobs still waiting are dropped,
///   those under way finish, and `submit`, `finish` and `handBack` throw it;
/// - what clients share with their jobs lives in a `Shared` (QuireSupport), whose waits
///   wake on every change: no client polls, and no client keeps a condition of its own.
/// Built over one connection with `inline`, the pool has no thread: each job runs on the
/// caller's thread inside `submit`.
final class WorkerPool<Connection>: Sendable {
    typealias Job = (Connection) throws -> Void

    private struct Queue {
        var jobs: [(job: Job, bytes: Int)] = []
        var head = 0
        var held = 0
        var completed = 0
        var running = 0
        /// Submits waiting for room in the budget.
        var blocked = 0
        var closed = false
        var failure: Error?
        var waiting: Int { jobs.count - head }
    }

    private let queue = Shared(Queue())
    private let group = DispatchGroup()
    private let budget: Int
    private let inline: Owned<Connection>?
    private let onChange: (@Sendable () -> Void)?
    /// How many threads (and connections) the pool has.
    let width: Int

    /// A thread for each of `connections`, or none with `inline` (then `connections` is one).
    /// `onChange` runs (on any thread, outside the pool's lock) after each job and after a
    /// failure drops jobs: a client waiting on its own `Shared` for the pool to be idle
    /// pokes it there.
    init(_ connections: [Connection], budget: Int = .max, inline: Bool = false, onChange: (@Sendable () -> Void)? = nil) {
        precondition(!inline || connections.count == 1, "an inline pool runs over one connection")
        width = connections.count
        self.budget = budget
        self.onChange = onChange
        self.inline = inline ? connections.first.map { Owned($0) } : nil
        guard !inline else { return }
        for connection in connections {
            group.enter()
            let owned = Owned(connection)  // used by this thread alone
            let thread = Thread { [self] in
                defer { group.leave() }
                while let (job, bytes) = next() { run(job, bytes: bytes, on: owned.value) }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Queues `job`, which holds `bytes` until it is done, waiting while the budget is spent;
    /// it runs once a thread is free. Ignored after `close`.
    /// - Throws: the pool's first failure.
    func submit(bytes: Int = 0, _ job: @escaping Job) throws {
        if let inline {
            if let failure = queue.withLock({ $0.failure }) { throw failure }
            run(job, bytes: 0, on: inline.value)
            if let failure = queue.withLock({ $0.failure }) { throw failure }
            return
        }
        let fits: (Queue) -> Bool = { [budget] in $0.failure != nil || $0.held == 0 || $0.held + bytes <= budget }
        let waits = queue.withLock { queue in
            if !fits(queue) { queue.blocked += 1 }
            return !fits(queue)
        }
        try queue.wait(until: fits) { queue in
            if waits { queue.blocked -= 1 }
            if let failure = queue.failure { throw failure }
            guard !queue.closed else { return }
            queue.jobs.append((job, bytes))
            queue.held += bytes
        }
    }

    /// Queues several jobs at once, in order, holding no bytes; after a failure or `close`,
    /// they are dropped.
    func submit(_ more: [Job]) {
        queue.withLock { queue in
            guard !queue.closed, queue.failure == nil, inline == nil else { return }
            queue.jobs += more.map { ($0, 0) }
        }
    }

    /// How many jobs succeeded since the last call (the caller reports them on its thread).
    func takeCompleted() -> Int {
        queue.withLock { queue in
            defer { queue.completed = 0 }
            return queue.completed
        }
    }

    /// Records `error` as the pool's first failure, unless there is one: the jobs waiting
    /// are dropped. (A job's own failure is recorded by throwing it.)
    func fail(_ error: Error) {
        queue.withLock { queue in
            guard queue.failure == nil else { return }
            queue.failure = error
            queue.held -= queue.jobs[queue.head...].reduce(0) { $0 + $1.bytes }
            queue.jobs = []
            queue.head = 0
        }
        onChange?()
    }

    /// The first failure, if any.
    var failure: Error? { queue.withLock { $0.failure } }

    /// True when no job waits or runs.
    var isIdle: Bool { queue.withLock { $0.waiting == 0 && $0.running == 0 } }

    /// Runs every job submitted so far (none after a failure), then stops the threads;
    /// returns once they stopped. The pool takes no jobs afterwards.
    func close() {
        queue.withLock { $0.closed = true }
        group.wait()
    }

    /// `close`, then throws the first failure.
    func finish() throws {
        close()
        if let failure { throw failure }
    }

    /// Stops the pool and hands back the jobs still waiting, to go over other connections;
    /// those under way finish first. Throws the first failure.
    func handBack() throws -> [(job: Job, bytes: Int)] {
        let left = queue.withLock { queue in
            defer {
                queue.jobs = []
                queue.head = 0
                queue.closed = true
            }
            return Array(queue.jobs[queue.head...])
        }
        close()
        if let failure { throw failure }
        return left
    }

    /// Waits until a submit waits for room in the budget (for tests, which wait on events).
    func awaitBlockedSubmit() { queue.wait(until: { $0.blocked > 0 }) { _ in } }

    /// Waits until a job has failed (for tests, which wait on events, not on the clock).
    func awaitFailure() { queue.wait(until: { $0.failure != nil }) { _ in } }

    /// Waits until no job waits to start: each was taken by a thread, dropped or handed back.
    func awaitNothingWaiting() { queue.wait(until: { $0.waiting == 0 }) { _ in } }

    private func next() -> (Job, Int)? {
        queue.wait(until: { $0.waiting > 0 || $0.closed }) { queue in
            guard queue.waiting > 0 else { return nil }
            let next = queue.jobs[queue.head]
            queue.head += 1
            queue.running += 1
            if queue.head == queue.jobs.count {
                // Drained: the array's storage goes, not only its elements.
                queue.jobs = []
                queue.head = 0
            }
            return next
        }
    }

    private func run(_ job: Job, bytes: Int, on connection: Connection) {
        var outcome: Error?
        do { try job(connection) } catch { outcome = error }
        queue.withLock { queue in
            queue.held -= bytes
            if inline == nil { queue.running -= 1 }
            if outcome == nil { queue.completed += 1 }
        }
        if let outcome { fail(outcome) } else { onChange?() }
    }
}
