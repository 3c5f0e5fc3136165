import Foundation
import Testing
@testable import QuireRemote
@testable import QuireSync

/// The threads every transfer runs on: each connection is used by one thread alone, every
/// job submitted before `close` runs, none after; the bytes held stay within the budget, and
/// the first failure drops what waits and is thrown.
@Suite struct WorkerPoolTests {
    final class Log: @unchecked Sendable {
        let lock = NSLock()
        var runs: [(job: Int, connection: Int, thread: ObjectIdentifier)] = []
        func add(_ job: Int, _ connection: Int) {
            lock.withLock { runs.append((job, connection, ObjectIdentifier(Thread.current))) }
        }
    }

    @Test func eachConnectionStaysOnOneThreadAndEveryJobRunsOnce() throws {
        let log = Log()
        let pool = WorkerPool([0, 1, 2])
        #expect(pool.width == 3)
        for job in 0..<200 { try pool.submit { log.add(job, $0) } }
        pool.close()
        try pool.submit { log.add(-1, $0) }  // after close: ignored
        #expect(log.runs.map(\.job).sorted() == Array(0..<200))
        let threads = Dictionary(grouping: log.runs, by: \.connection).mapValues { Set($0.map(\.thread)) }
        #expect(threads.values.allSatisfy { $0.count == 1 }, "a connection was used by more than one thread")
        #expect(Set(threads.values.flatMap { $0 }).count == threads.count, "two connections shared a thread")
    }

    @Test func aLoneConnectionRunsJobsInTheOrderTheyCame() {
        let log = Log()
        let pool = WorkerPool(["only"])
        pool.submit((0..<50).map { job in { _ in log.add(job, 0) } })
        pool.close()
        #expect(log.runs.map(\.job) == Array(0..<50))
    }

    let dir = TempDir()

    func connections(_ count: Int) -> [Backend] { (0..<count).map { _ in LocalBackend(root: dir.path) } }

    /// Two jobs of 10 bytes hold their lanes until let go; a third does not fit a budget of
    /// 25 and its submit waits (an event the pool tells), though two connections are free.
    @Test func theBytesHeldAtOnceStayWithinTheBudget() throws {
        let gauge = Gauge()
        let lanes = WorkerPool(connections(4), budget: 25)
        let entered = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0)
        let job: (Backend) throws -> Void = { _ in
            gauge.enter()
            entered.signal()
            gate.wait()
            gauge.leave()
        }
        for _ in 0..<2 { try lanes.submit(bytes: 10, job) }
        entered.wait()
        entered.wait()
        let submitted = DispatchSemaphore(value: 0), blocked = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let more = job  // handed to the submitting thread alone
        Thread.detachNewThread {
            for _ in 0..<10 { try? lanes.submit(bytes: 10, more) }
            submitted.signal()
        }
        Thread.detachNewThread {
            lanes.awaitBlockedSubmit()
            blocked.signal()
        }
        #expect(blocked.wait(timeout: .now() + Hang.limit) == .success, "the third job's submit waits for room")
        for _ in 0..<12 { gate.signal() }
        #expect(submitted.wait(timeout: .now() + Hang.limit) == .success)
        try lanes.finish()
        #expect(gauge.peak <= 2, "four connections, but only two jobs of 10 bytes fit 25")
        #expect(lanes.takeCompleted() == 12)
        // A job larger than the whole budget still goes, alone.
        let big = WorkerPool(connections(2), budget: 5)
        try big.submit(bytes: 10) { _ in }
        try big.finish()
        #expect(big.takeCompleted() == 1)
    }

    @Test func theFirstFailureStopsWhatWaitsAndIsThrown() throws {
        let ran = Gauge()
        let lanes = WorkerPool(connections(2), budget: 1 << 20)
        try lanes.submit(bytes: 1) { _ in throw RemoteError(.tooLarge, detail: "first") }
        lanes.awaitFailure()
        #expect { try lanes.submit(bytes: 1) { _ in ran.enter() } } throws: { ($0 as? RemoteError)?.detail == "first" }
        #expect { try lanes.finish() } throws: { ($0 as? RemoteError)?.detail == "first" }
        #expect(ran.peak == 0)
        #expect(lanes.takeCompleted() == 0)
    }

    @Test func anInlinePoolRunsEachJobOnTheCallersThread() throws {
        let lanes = WorkerPool(connections(1), budget: 1, inline: true)
        var order: [Int] = []
        for i in 0..<3 {
            try lanes.submit(bytes: 100) { _ in order.append(i) }
            #expect(order.count == i + 1, "done before submit returns")
        }
        try lanes.finish()
        #expect(lanes.takeCompleted() == 3)
    }

    /// A pool over one connection hands back the jobs it has not started: each job
    /// runs exactly once, the one under way finishing before `handBack` returns.
    @Test func handBackReturnsWhatWaitedAndRunsNothingTwice() throws {
        let runs = Runs()
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let lane = WorkerPool(connections(1), budget: 1 << 20)
        for i in 0..<10 {
            try lane.submit(bytes: 1) { _ in
                if i == 0 {
                    started.signal()
                    release.wait()  // under way until handBack has taken the others
                }
                runs.add(i)
            }
        }
        started.wait()
        Thread.detachNewThread {
            lane.awaitNothingWaiting()
            release.signal()
        }
        let left = try lane.handBack()
        #expect(runs.all == [0], "the job under way finished, no other started")
        #expect(left.count == 9)
        #expect(lane.takeCompleted() == 1)
        let spread = WorkerPool(connections(3), budget: 1 << 20)
        for (job, bytes) in left { try spread.submit(bytes: bytes, job) }
        try spread.finish()
        #expect(runs.all.sorted() == Array(0..<10))
    }
}

/// The jobs that ran, in the order they finished.
private final class Runs: @unchecked Sendable {
    private let lock = NSLock()
    private var done: [Int] = []
    var all: [Int] { lock.withLock { done } }
    func add(_ i: Int) { lock.withLock { done.append(i) } }
}

/// Counts jobs running at once and remembers the most.
private final class Gauge: @unchecked Sendable {
    private let lock = NSLock()
    private var now = 0
    private var most = 0
    var peak: Int { lock.withLock { most } }
    func enter() { lock.withLock { now += 1; most = max(most, now) } }
    func leave() { lock.withLock { now -= 1 } }
}
