import Foundation
import QuireStore

/// What a prune may delete, decided from what it read, without a server: tested alone.
enum PrunePlan {
    /// How far every log may be pruned: the segments of each log every device with a head
    /// has merged (`covered` is this store's own positions, where the limits start; `heads`
    /// each other device's newest head with the positions it says it merged, nil for a head
    /// that could not be read or says none, which stops the prune). Nil: prune nothing.
    /// - Throws: `SyncError.damaged` for a head with a position that is not a segment number.
    static func limits(covered: [String: Int], heads: [(device: String, seq: Int, path: String, merged: [String: JSONValue]?)])
        throws -> [String: Int]? {
        var limit = covered
        for head in heads {
            guard let merged = head.merged else { return nil }  // an older or unreadable head: be safe
            for log in Set(limit.keys) {
                guard merged[log].map({ ($0.integer ?? -1) >= 0 }) ?? true else {
                    throw SyncError(.damaged, object: head.path, detail: "a head with a position that is not a segment number")
                }
                let seen = log == head.device ? head.seq : merged[log]?.integer ?? 0
                limit[log] = min(limit[log] ?? 0, seen)
            }
        }
        return limit
    }

    /// Which unreferenced objects to collect now and which to keep marked: one is collected
    /// once `grace` (milliseconds) has passed since a prune first saw it unneeded and every
    /// device with a head has merged as far as that prune's store had (`limit`); the others
    /// keep their mark, or get one now (`now`, `positions`).
    static func collection(stored: [String], referenced: Set<String>, marks: [String: GCMark], limit: [String: Int],
                           positions: [String: Int], now: Double, grace: Double) -> (delete: [String], kept: [String: GCMark]) {
        var delete: [String] = [], kept: [String: GCMark] = [:]
        for blob in stored where !referenced.contains(blob) {
            let mark = marks[blob] ?? GCMark(time: now, positions: positions)
            // Every device with a head has merged what this store had merged when it saw the
            // blob unneeded: none of them still holds a live record naming it, and one that
            // names the same bytes anew checks the server first.
            let everyoneMovedOn = mark.positions.allSatisfy { log, seq in (limit[log] ?? 0) >= seq }
            if now - mark.time >= grace && everyoneMovedOn {
                delete.append(blob)
            } else {
                kept[blob] = mark
            }
        }
        return (delete, kept)
    }
}
