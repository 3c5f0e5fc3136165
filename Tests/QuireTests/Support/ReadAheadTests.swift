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

    /// Something whose release a test can see (`weak`).
    final class Held: Sendable {
        let number: Int
        init(_ number: Int) { self.number = number }
    }

    /// An item taken is let go by the queue at once: an import's queue of parsed batches held
    /// every batch taken until 64 had passed, tens of MiB at 100,000 entries.
    @Test func anItemTakenIsNoLongerHeld() throws {
        // The producer's own reference to an item lasts until its `hand` returns: the item is
        // taken once the producer has gone past it, so what is checked is the queue's hold.
        let passed = DispatchSemaphore(value: 0)
        let reader = ReadAhead<Held>(depth: 2) { hand in
            for number in 0..<10 {
                if number == 1 { passed.signal() }
                try hand(Held(number))
            }
        }
        passed.wait()
        weak var first: Held?
        do {
            let item = try #require(try reader.next())
            first = item
            #expect(item.number == 0)
        }
        #expect(first == nil, "the queue still holds the first item")
        var numbers: [Int] = []
        while let item = try reader.next() { numbers.append(item.number) }
        #expect(numbers == Array(1..<10))
    }

    /// A `Handoff` delivers in order and ends after `finish`; `cancel` wakes a receiver that
    /// waits, and drops what was left. A taken item is let go at once.
    @Test func aHandoffDeliversInOrderAndEnds() throws {
        let handoff = Handoff<Held>()
        for number in 0..<100 { handoff.send(Held(number)) }
        handoff.finish()
        weak var first: Held?
        do {
            let item = try #require(handoff.receive())
            first = item
        }
        #expect(first == nil)
        var numbers: [Int] = []
        while let item = handoff.receive() { numbers.append(item.number) }
        #expect(numbers == Array(1..<100))

        // A receiver on another thread waits until `cancel`, which ends it with nil.
        let waiting = Handoff<Held>()
        let reader = ReadAhead<Int>(depth: 1) { hand in
            while let item = waiting.receive() { try hand(item.number) }
        }
        waiting.send(Held(7))
        #expect(try reader.next() == 7)
        waiting.cancel()
        #expect(try reader.next() == nil)
    }
}
