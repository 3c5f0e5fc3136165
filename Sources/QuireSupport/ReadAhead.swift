import Foundation

/// Runs a producer on a thread of its own, at most `depth` items ahead of the thread that
/// takes them: the reading and preparing half of an export or an import on one core, the
/// writing half on the other, with memory bounded by `depth` items. The items come out in the order they
/// were put; a producer's error comes out after its last item. When the taker stops early
/// it calls `stop()`, which returns once the producer has ended (whatever the producer
/// holds, a store's statement, is then free again).
///
/// The producer alone uses what its closure captures until it ends: Sendable by that
/// discipline (the closure is wrapped), not by locking.
package final class ReadAhead<Item: Sendable>: Sendable {
    /// Thrown by `put` once the taker has stopped, to unwind the producer.
    package struct Stopped: Error {}

    private struct Queue {
        var items = FIFO<Item>()
        var ended = false
        var failure: (any Error)?
        var stopped = false
        var running = true
    }

    private let queue = Shared(Queue())
    private let depth: Int

    /// Starts `produce` at once; it hands over items with `put`.
    package init(depth: Int, _ produce: @escaping (_ put: (Item) throws -> Void) throws -> Void) {
        self.depth = max(depth, 1)
        let owned = Owned(produce)  // the producer's thread alone calls it
        let thread = Thread { [self] in
            var error: (any Error)?
            do { try owned.value(put) } catch let thrown { error = thrown }
            queue.withLock { queue in
                if let error, !(error is Stopped) { queue.failure = error }
                queue.ended = true
                queue.running = false
            }
        }
        // As deep as the main thread's: a hostile entry's nesting recurses in the Markdown tree.
        thread.stackSize = 8 << 20
        thread.start()
    }

    private func put(_ item: Item) throws {
        try queue.wait(until: { $0.stopped || $0.items.count < depth }) { queue in
            if queue.stopped { throw Stopped() }
            queue.items.append(item)
        }
    }

    /// The next item, waiting for it; nil once the producer has ended and all are taken.
    /// Throws the producer's error, after the items it put before it.
    package func next() throws -> Item? {
        try queue.wait(until: { !$0.items.isEmpty || $0.ended }) { queue in
            if let item = queue.items.take() { return item }
            if let failure = queue.failure { throw failure }
            return nil
        }
    }

    /// Tells the producer to stop at its next `put` and waits until it has ended.
    package func stop() {
        queue.withLock { $0.stopped = true }
        queue.wait(until: { !$0.running }) { $0.items.removeAll() }
    }
}
