/// A value handed to the one thread that uses it (a connection, a repository opened on
/// it): Sendable by that discipline, not by locking.
final class Owned<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
