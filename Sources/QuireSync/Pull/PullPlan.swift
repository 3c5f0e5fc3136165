import Foundation

/// What a pull is to do, decided from the names in `heads/` and this store's log positions
/// alone, with no request: which segments of which device to fetch, or that a new device
/// starts from a snapshot first. Also where the server's word cannot be right: an emptied
/// repository, a vanished or rolled-back log, a head that claims an impossible number of
/// segments. The runner (`PullEngine`) fetches, checks and merges what it says.
struct PullPlan: Equatable {
    /// The segments to fetch, in order: each device's log from the one after this store's
    /// position up to its newest head.
    struct Range: Equatable {
        var device: String
        var seqs: ClosedRange<Int>
    }

    var ranges: [Range] = []
    /// A store that has merged nothing yet starts from the newest snapshot (when there is
    /// one) instead of replaying every segment; plan again after adopting it.
    var startsFromSnapshot = false

    var segmentCount: Int { ranges.reduce(0) { $0 + $1.seqs.count } }

    /// - Parameters:
    ///   - heads: each device's head numbers, as listed (unauthenticated names).
    ///   - logs: how far this store merged each log.
    ///   - mayStartFromSnapshot: false once a snapshot was adopted in this pull.
    /// - Throws: `SyncError` `.emptied`, `.missing`, `.rolledBack` or `.damaged`, naming the
    ///   head concerned.
    ///   - location: where the repository is, for errors.
    ///   - afterSnapshot: the positions come from a snapshot just adopted, which may be ahead
    ///     of a head the server shows (checked against the heads before it was adopted).
    init(heads: [String: [Int]], logs: [String: (seq: Int, hash: String)], mayStartFromSnapshot: Bool, location: String,
         afterSnapshot: Bool = false, headsFolder: String = Heads.folder, maxNewSegments: Int = SyncOptions.maxNewSegments) throws {
        if heads.isEmpty && !logs.isEmpty {
            throw SyncError(.emptied, object: headsFolder,
                            detail: "the repository at \(location) shows no change logs, but this journal synced with it before")
        }
        for (device, seen) in logs.sorted(by: { $0.key < $1.key }) where seen.seq > 0 && !afterSnapshot {
            guard let newest = heads[device]?.max() else {
                throw SyncError(.missing, object: "\(headsFolder)/\(device).\(seen.seq)", detail: "a device's change log vanished from the server")
            }
            if newest < seen.seq {
                throw SyncError(.rolledBack, object: "\(headsFolder)/\(device).\(newest)",
                                detail: "the server shows segment \(newest) of a device whose segment \(seen.seq) this journal already has")
            }
        }
        if logs.isEmpty && mayStartFromSnapshot && !heads.isEmpty {
            startsFromSnapshot = true
        }
        for (device, seqs) in heads.sorted(by: { $0.key < $1.key }) {
            // A snapshot may put a log ahead of a head the server shows: nothing to plan then.
            let (first, newest) = ((logs[device]?.seq ?? 0) + 1, seqs.max() ?? 0)
            guard first <= newest else { continue }
            // A head name is the server's word, unauthenticated until its segments are read:
            // `heads/<device>.9223372036854775807` must cost an error, not a walk to Int.max.
            guard newest - first < maxNewSegments else {
                throw SyncError(.damaged, object: "\(headsFolder)/\(device).\(newest)",
                                detail: "a head claims \(newest - first + 1) new segments, more than a device writes (at most \(maxNewSegments))")
            }
            ranges.append(Range(device: device, seqs: first...newest))
        }
    }
}
