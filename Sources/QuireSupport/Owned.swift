/// A value handed to the one thread that uses it (a connection, a repository opened on it,
/// a producer's closure): Sendable by that discipline, not by locking.
package final class Owned<T>: @unchecked Sendable {  // one thread uses `value` at a time, by hand-over
    package let value: T
    package init(_ value: T) { self.value = value }
}
