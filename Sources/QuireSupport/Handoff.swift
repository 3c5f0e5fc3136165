import Foundation

/// Items one thread hands to another, in order: the way into a `ReadAhead` whose producer
/// works on what a thread that cannot share its work (the one holding a store's write
/// transaction) reads. `send` never waits: the sender bounds how far ahead it goes. The
/// receiver gets nil once `finish` was called and every item is taken, or at once after
/// `cancel` (the taker stopped early, or failed).
package final class Handoff<Item: Sendable>: Sendable {
    private struct Queue {
        var items = FIFO<Item>()
        var finished = false
        var cancelled = false
    }

    private let queue = Shared(Queue())

    package init() {}

    package func send(_ item: Item) {
        queue.withLock { $0.items.append(item) }
    }

    /// Sends `item` once fewer than `limit` wait to be taken: for a sender that gets nothing
    /// back to bound itself by. After `cancel` it drops `item` at once.
    package func send(_ item: Item, waitingBelow limit: Int) {
        queue.wait(until: { $0.cancelled || $0.items.count < limit }) { queue in
            if !queue.cancelled { queue.items.append(item) }
        }
    }

    /// No more items come.
    package func finish() {
        queue.withLock { $0.finished = true }
    }

    /// The receiver stops waiting: what is left is dropped.
    package func cancel() {
        queue.withLock { queue in
            queue.cancelled = true
            queue.items.removeAll()
        }
    }

    /// The next item, waiting for it; nil once finished and all are taken, or cancelled.
    package func receive() -> Item? {
        queue.wait(until: { $0.cancelled || $0.finished || !$0.items.isEmpty }) { queue in
            queue.cancelled ? nil : queue.items.take()
        }
    }
}
