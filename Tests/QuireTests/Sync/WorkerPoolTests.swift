import Foundation
import Testing
@testable import QuireSync

/// The threads every transfer runs on: each connection is used by one thread alone, every
/// job submitted before `close` runs, none after.
@Suite struct WorkerPoolTests {
    final class Log: @unchecked Sendable {
        let lock = NSLock()
        var runs: [(job: Int, connection: Int, thread: ObjectIdentifier)] = []
        func add(_ job: Int, _ connection: Int) {
            lock.withLock { runs.append((job, connection, ObjectIdentifier(Thread.current))) }
        }
    }

    @Test func eachConnectionStaysOnOneThreadAndEveryJobRunsOnce() {
        let log = Log()
        let pool = WorkerPool([0, 1, 2])
        #expect(pool.width == 3)
        for job in 0..<200 { pool.submit { log.add(job, $0) } }
        pool.close()
        pool.submit { log.add(-1, $0) }  // after close: ignored
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
}
