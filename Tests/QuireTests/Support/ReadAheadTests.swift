import Foundation
import Testing
import QuireSupport

/// The reading half of an export or an import runs ahead on its own thread: items come out in order,
/// never more than the depth ahead, the producer's error after its items, and a taker that
/// stops early gets the producer ended before `stop` returns.
@Suite struct ReadAheadTests {
    /// Counts what the producer has put, under a lock.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        private var finished = false
        func add() { lock.withLock { value += 1 } }
        func finish() { lock.withLock { finished = true } }
        var count: Int { lock.withLock { value } }
        var hasFinished: Bool { lock.withLock { finished } }
    }

    struct Broken: Error, Equatable {}

    @Test func itemsComeInOrderAndNeverMoreThanTheDepthAhead() throws {
        let put = Counter()
        let reader = ReadAhead<Int>(depth: 4) { hand in
            for number in 0..<500 {
                try hand(number)
                put.add()
            }
        }
        var taken = 0
        while let number = try reader.next() {
            #expect(number == taken)
            taken += 1
            // `put` counts after the hand-over returns: at most the depth queued, plus the one
            // the producer may be handing over now.
            #expect(put.count <= taken + 4, "\(put.count) put with \(taken) taken")
        }
        #expect(taken == 500)
    }

    @Test func theProducersErrorComesAfterItsItems() throws {
        let reader = ReadAhead<String>(depth: 2) { hand in
            try hand("a")
            try hand("b")
            throw Broken()
        }
        #expect(try reader.next() == "a")
        #expect(try reader.next() == "b")
        #expect(throws: Broken.self) { try reader.next() }
    }

    @Test func anEmptyProducerEndsAtOnce() throws {
        let reader = ReadAhead<Int>(depth: 8) { _ in }
        #expect(try reader.next() == nil)
        #expect(try reader.next() == nil)
    }

    @Test func stoppingEarlyEndsTheProducerBeforeStopReturns() throws {
        let state = Counter()
        let reader = ReadAhead<Int>(depth: 3) { hand in
            defer { state.finish() }
            for number in 0... { try hand(number) }  // endless: only `stop` ends it
        }
        #expect(try reader.next() == 0)
        #expect(try reader.next() == 1)
        reader.stop()
        #expect(state.hasFinished, "the producer ended before stop returned")
    }
}
