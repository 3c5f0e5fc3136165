import Foundation

/// State threads share: read and changed under one lock, and waited on. Every change wakes
/// every wait, which looks again; so a wait never misses a change and nothing polls. Sync's
/// `WorkerPool` and its clients, and `ReadAhead` (an export's, an import's), coordinate
/// through it: the one condition variable in Quire.
package final class Shared<State>: @unchecked Sendable {  // `state` is touched only under `condition`
    private let condition = NSCondition()
    private var state: State

    package init(_ state: State) { self.state = state }

    /// Reads or changes the state; wakes every wait.
    @discardableResult
    package func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&state)
    }

    /// Waits until `ready` holds, then reads or changes the state under the same lock.
    package func wait<T>(until ready: (State) -> Bool, then body: (inout State) throws -> T) rethrows -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        while !ready(state) { condition.wait() }
        return try body(&state)
    }

    /// Waits until `ready` holds and returns what `body` makes of the state then; each time
    /// a change wakes it and `ready` still does not hold, `meanwhile` runs, outside the lock
    /// (a progress line refreshed while a download runs).
    package func wait<T>(until ready: (State) -> Bool, meanwhile: () -> Void, then body: (inout State) throws -> T) rethrows -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        while !ready(state) {
            condition.wait()
            if !ready(state) {
                condition.unlock()
                meanwhile()
                condition.lock()
            }
        }
        return try body(&state)
    }
}
