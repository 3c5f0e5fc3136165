import Foundation

/// A hybrid logical clock value: wall milliseconds in the high 48 bits, a counter in the
/// low 16. Ordered as an integer; with the device id it totally orders writes.
public struct HLC: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int64

    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(milliseconds: Int64, counter: Int64) { rawValue = milliseconds << 16 | (counter & 0xffff) }

    public var milliseconds: Int64 { rawValue >> 16 }
    public var counter: Int64 { rawValue & 0xffff }

    public static func < (a: HLC, b: HLC) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "\(milliseconds).\(counter)" }

    public static let zero = HLC(rawValue: 0)

    /// The next clock value after `last` for a local event at wall time `wallMilliseconds`.
    /// Never goes backwards, whatever the wall clock does: when the wall clock is behind
    /// `last`, the counter advances (and, should it overflow, the millisecond part).
    public static func next(after last: HLC, wallMilliseconds: Int64) -> HLC {
        if wallMilliseconds > last.milliseconds {
            return HLC(milliseconds: wallMilliseconds, counter: 0)
        }
        if last.counter < 0xffff {
            return HLC(milliseconds: last.milliseconds, counter: last.counter + 1)
        }
        return HLC(milliseconds: last.milliseconds + 1, counter: 0)
    }

    /// The clock after receiving `remote`: later than both `last` and `remote`.
    static func receive(_ remote: HLC, last: HLC, wallMilliseconds: Int64) -> HLC {
        next(after: max(last, remote), wallMilliseconds: wallMilliseconds)
    }
}

/// Where the store reads the time from; tests substitute their own.
public struct WallClock: Sendable {
    public var now: @Sendable () -> Date
    public init(now: @escaping @Sendable () -> Date) { self.now = now }
    public static let system = WallClock(now: { Date() })

    var milliseconds: Int64 { Int64((now().timeIntervalSince1970 * 1000).rounded(.down)) }
}
