import Foundation
import QuireRemote

/// Requests sent over the upload connections (a `WorkerPool`) while the caller's thread
/// prepares the next ones: each connection is used by one thread, which takes jobs in the order they were
/// submitted. Jobs waiting or under way hold at most `budget` bytes between them (`submit`
/// blocks beyond that, unless nothing else is held), so memory stays bounded whatever the
/// jobs' sizes. The first failure stops the jobs still waiting; those under way finish; it
/// is thrown by the next `submit` or by `finish`. With a single connection the jobs run on
/// the caller's thread, one by one, unless `threaded` asks for a thread of their own.
final class UploadLanes: @unchecked Sendable {
    typealias Job = (Backend) throws -> Void

    private let condition = NSCondition()
    private var waiting: [(job: Job, bytes: Int)] = []
    private var held = 0
    private var completed = 0
    private var failure: Error?
    private let budget: Int
    private let inline: Backend?
    private let pool: WorkerPool<Backend>?

    init(connections: [Backend], budget: Int, threaded: Bool = false) {
        self.budget = budget
        inline = connections.count == 1 && !threaded ? connections.first : nil
        pool = inline == nil ? WorkerPool(connections) : nil
    }

    /// Queues `job`, which holds `bytes` until it is done, waiting while the budget is spent.
    /// - Throws: the first failure of an earlier job.
    func submit(bytes: Int, _ job: @escaping Job) throws {
        if let inline {
            try job(inline)
            condition.withLock { completed += 1 }
            return
        }
        condition.lock()
        defer { condition.unlock() }
        while failure == nil && held > 0 && held + bytes > budget { condition.wait() }
        if let failure { throw failure }
        waiting.append((job, bytes))
        held += bytes
        pool?.submit { [self] in runNext(on: $0) }
    }

    /// How many jobs succeeded since the last call (the caller reports them on its thread).
    func takeCompleted() -> Int {
        condition.withLock {
            defer { completed = 0 }
            return completed
        }
    }

    /// Waits for every job; throws the first failure. The lanes take no jobs afterwards.
    func finish() throws {
        pool?.close()
        if let failure = condition.withLock({ failure }) { throw failure }
    }

    /// Stops the lanes and hands back the jobs still waiting, to go over other connections;
    /// those under way finish first. Throws the first failure.
    func handBack() throws -> [(job: Job, bytes: Int)] {
        let left = condition.withLock {
            defer { waiting.removeAll() }
            return waiting
        }
        condition.broadcast()
        pool?.close()
        if let failure = condition.withLock({ failure }) { throw failure }
        return left
    }

    /// Waits until a job has failed (for tests, which wait on events, not on the clock).
    func awaitFailure() {
        condition.withLock { while failure == nil { condition.wait() } }
    }

    /// Waits until no job waits to start: each was taken by a lane or handed back.
    func awaitNothingWaiting() {
        condition.withLock { while !waiting.isEmpty { condition.wait() } }
    }

    /// One pool job: the next job waiting, unless a failure stopped the lanes or they
    /// handed it back.
    private func runNext(on connection: Backend) {
        condition.lock()
        guard failure == nil, !waiting.isEmpty else {
            condition.unlock()
            return
        }
        let (job, bytes) = waiting.removeFirst()
        condition.unlock()
        var outcome: Error?
        do { try job(connection) } catch { outcome = error }
        condition.withLock {
            if let outcome { failure = failure ?? outcome } else { completed += 1 }
            held -= bytes
        }
        condition.broadcast()
    }
}
