import Foundation

/// Runs a producer on a thread of its own, at most `depth` items ahead of the thread that
/// takes them: the reading and preparing half of an export on one core, the writing half on
/// the other, with memory bounded by `depth` items. The items come out in the order they
/// were put; a producer's error comes out after its last item. When the taker stops early
/// it calls `stop()`, which returns once the producer has ended (whatever the producer
/// holds, a store's statement, is then free again).
///
/// The producer alone uses what its closure captures until it ends: Sendable by that
/// discipline (the closure is wrapped), not by locking.
final class ReadAhead<Item: Sendable>: @unchecked Sendable {
    /// Thrown by `put` once the taker has stopped, to unwind the producer.
    struct Stopped: Error {}

    private let condition = NSCondition()
    private var queue: [Item] = []
    private var head = 0
    private var ended = false
    private var failure: (any Error)?
    private var stopped = false
    private var running = true
    private let depth: Int

    /// Starts `produce` at once; it hands over items with `put`.
    init(depth: Int, _ produce: @escaping (_ put: (Item) throws -> Void) throws -> Void) {
        self.depth = max(depth, 1)
        let owned = OwnedByProducer(produce)
        let thread = Thread { [self] in
            var error: (any Error)?
            do { try owned.value(put) } catch let thrown { error = thrown }
            condition.withLock {
                if let error, !(error is Stopped) { failure = error }
                ended = true
                running = false
                condition.broadcast()
            }
        }
        // As deep as the main thread's: a hostile entry's nesting recurses in the Markdown tree.
        thread.stackSize = 8 << 20
        thread.start()
    }

    private func put(_ item: Item) throws {
        condition.lock()
        defer { condition.unlock() }
        while !stopped && queue.count - head >= depth { condition.wait() }
        if stopped { throw Stopped() }
        queue.append(item)
        condition.broadcast()
    }

    /// The next item, waiting for it; nil once the producer has ended and all are taken.
    /// Throws the producer's error, after the items it put before it.
    func next() throws -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while head == queue.count && !ended { condition.wait() }
        if head < queue.count {
            let item = queue[head]
            head += 1
            if head >= 64, head * 2 >= queue.count {
                queue.removeFirst(head)
                head = 0
            }
            condition.broadcast()
            return item
        }
        if let failure { throw failure }
        return nil
    }

    /// Tells the producer to stop at its next `put` and waits until it has ended.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopped = true
        condition.broadcast()
        while running { condition.wait() }
        queue.removeAll()
        head = 0
    }

    private final class OwnedByProducer: @unchecked Sendable {
        let value: (_ put: (Item) throws -> Void) throws -> Void
        init(_ value: @escaping (_ put: (Item) throws -> Void) throws -> Void) { self.value = value }
    }
}
