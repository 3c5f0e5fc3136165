import Foundation

/// Items one thread hands to another, in order: the way into a `ReadAhead` whose producer
/// works on what a thread that cannot share its work (the one holding a store's write
/// transaction) reads. `send` never waits: the sender bounds how far ahead it goes. The
/// receiver gets nil once `finish` was called and every item is taken, or at once after
/// `cancel` (the taker stopped early, or failed).
package final class Handoff<Item: Sendable>: Sendable {
    private struct Queue {
        /// Taken ones are nil: let go at once, not when the array is next compacted.
        var items: [Item?] = []
        var head = 0
        var finished = false
        var cancelled = false
    }

    private let queue = Shared(Queue())

    package init() {}

    package func send(_ item: Item) {
        queue.withLock { $0.items.append(item) }
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
            queue.head = 0
        }
    }

    /// The next item, waiting for it; nil once finished and all are taken, or cancelled.
    package func receive() -> Item? {
        queue.wait(until: { $0.cancelled || $0.finished || $0.head < $0.items.count }) { queue in
            guard !queue.cancelled, queue.head < queue.items.count else { return nil }
            let item = queue.items[queue.head]
            queue.items[queue.head] = nil
            queue.head += 1
            if queue.head >= 64, queue.head * 2 >= queue.items.count {
                queue.items.removeFirst(queue.head)
                queue.head = 0
            }
            return item
        }
    }
}
