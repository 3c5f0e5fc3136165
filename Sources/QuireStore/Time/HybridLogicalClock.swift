import Foundation

/// A hybrid logical clock value: wall milliseconds in the high 48 bits, a counter in the
/// low 16. Ordered as an integer; with the device id it totally orders writes.
package struct HLC: Hashable, Comparable, Sendable, CustomStringConvertible {
    package let rawValue: Int64

    package init(rawValue: Int64) { self.rawValue = rawValue }
    package init(milliseconds: Int64, counter: Int64) { rawValue = milliseconds << 16 | (counter & 0xffff) }

    package var milliseconds: Int64 { rawValue >> 16 }
    package var counter: Int64 { rawValue & 0xffff }

    package static func < (a: HLC, b: HLC) -> Bool { a.rawValue < b.rawValue }
    package var description: String { "\(milliseconds).\(counter)" }

    package static let zero = HLC(rawValue: 0)

    /// The next clock value after `last` for a local event at wall time `wallMilliseconds`.
    /// Never goes backwards, whatever the wall clock does: when the wall clock is behind
    /// `last`, the counter advances (and, should it overflow, the millisecond part).
    package static func next(after last: HLC, wallMilliseconds: Int64) -> HLC {
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
package struct WallClock: Sendable {
    package var now: @Sendable () -> Date
    package init(now: @escaping @Sendable () -> Date) { self.now = now }
    package static let system = WallClock(now: { Date() })

    var milliseconds: Int64 { Int64((now().timeIntervalSince1970 * 1000).rounded(.down)) }
}
