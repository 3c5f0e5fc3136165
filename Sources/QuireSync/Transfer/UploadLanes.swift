import Foundation
import QuireRemote

/// Requests sent over the upload connections while the caller's thread prepares the next
/// ones: each connection is used by one thread, which takes jobs in the order they were
/// submitted. At most `depth` jobs wait to start (`submit` blocks beyond that), so memory
/// stays that of a few jobs. The first failure stops the jobs still waiting; those under way
/// finish; it is thrown by the next `submit` or by `finish`. With a single connection the
/// jobs run on the caller's thread, one by one.
final class UploadLanes: @unchecked Sendable {
    typealias Job = (Backend) throws -> Void

    private let condition = NSCondition()
    private var waiting: [Job] = []
    private var running = 0
    private var completed = 0
    private var failure: Error?
    private var closed = false
    private let depth: Int
    private let inline: Backend?
    private let group = DispatchGroup()

    init(connections: [Backend], depth: Int) {
        self.depth = max(1, depth)
        inline = connections.count == 1 ? connections.first : nil
        guard inline == nil else { return }
        for connection in connections {
            group.enter()
            let owned = Owned(connection)  // used by this thread alone
            let thread = Thread { [self] in
                defer { group.leave() }
                work(owned.value)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Queues `job`, waiting while `depth` jobs already wait.
    /// - Throws: the first failure of an earlier job.
    func submit(_ job: @escaping Job) throws {
        if let inline {
            try job(inline)
            condition.withLock { completed += 1 }
            return
        }
        condition.lock()
        defer { condition.unlock() }
        while failure == nil && waiting.count >= depth { condition.wait() }
        if let failure { throw failure }
        waiting.append(job)
        condition.broadcast()
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
        condition.withLock { closed = true }
        condition.broadcast()
        group.wait()
        if let failure = condition.withLock({ failure }) { throw failure }
    }

    private func work(_ connection: Backend) {
        while true {
            condition.lock()
            while waiting.isEmpty && !closed && failure == nil { condition.wait() }
            guard failure == nil, !waiting.isEmpty else {
                condition.unlock()
                return
            }
            let job = waiting.removeFirst()
            running += 1
            condition.broadcast()
            condition.unlock()
            do {
                try job(connection)
                condition.withLock { completed += 1 }
            } catch {
                condition.withLock { if failure == nil { failure = error } }
            }
            condition.withLock { running -= 1 }
            condition.broadcast()
        }
    }
}
