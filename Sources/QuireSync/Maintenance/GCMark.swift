import Foundation
import QuireStore

/// When a prune first saw a blob unneeded (this device's clock, milliseconds) and how far its
/// store had merged each device's log then. Written `[time, {log: seq}]`; a bare number (an
/// older Quire, which marked only uploads no segment ever named) carries no positions.
struct GCMark {
    var time: Double
    var positions: [String: Int]

    init(time: Double, positions: [String: Int]) {
        self.time = time
        self.positions = positions
    }

    init?(json: JSONValue) {
        if let time = json.number {
            self.init(time: time, positions: [:])
            return
        }
        guard let a = json.array, a.count == 2, let time = a[0].number, let p = a[1].object else { return nil }
        // A position that is not a segment number makes the mark unreadable: the blob is marked
        // anew (later), never collected early.
        let positions = p.compactMapValues { $0.integer }
        guard positions.count == p.count, time.isFinite else { return nil }
        self.init(time: time, positions: positions)
    }

    var json: JSONValue {
        .array([.number(time), .object(positions.mapValues { .number(Double($0)) })])
    }
}
