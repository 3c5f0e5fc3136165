import Foundation

/// Which packs a repack empties, decided from what it read, without a server: tested alone.
/// A pack is chosen when less than `belowLiveShare` of its bytes is still needed, this store
/// holds every live attachment in it (the new copies are read from `blobs/`), and moving
/// them keeps the announcement (one segment) within `budget` attachments. A pack with no live
/// bytes is not repacked: prune collects it as it is.
struct RepackPlan: Equatable {
    /// A pack is repacked when less than this share of its bytes is still needed.
    static let belowLiveShare = 0.5

    /// One attachment that moves: its remote id and where it is now.
    struct Moving: Equatable {
        var remote: String
        var location: BlobLocation
    }

    /// The packs emptied, in the order they were considered.
    private(set) var packs: [String] = []
    /// The attachments that move, by local id.
    private(set) var moving: [String: Moving] = [:]

    /// - Parameters:
    ///   - live: where each attachment this store needs is packed, by local id.
    ///   - sizes: every pack on the server with its size (as listed).
    ///   - held: whether this store has an attachment's bytes.
    ///   - budget: how many attachments one announcement may carry.
    init(live: [String: (id: String, location: BlobLocation)], sizes: [(pack: String, size: Int64)],
         held: (String) -> Bool, budget: Int) {
        var members: [String: [String]] = [:]
        var liveBytes: [String: Int64] = [:]
        for (local, blob) in live.sorted(by: { $0.key < $1.key }) {
            for extent in blob.location.extents {
                if members[extent.pack]?.last != local { members[extent.pack, default: []].append(local) }
                liveBytes[extent.pack, default: 0] += extent.length
            }
        }
        for (pack, size) in sizes.sorted(by: { $0.pack < $1.pack }) {
            let bytes = liveBytes[pack] ?? 0
            guard bytes > 0, Double(bytes) < Double(size) * Self.belowLiveShare,
                  let locals = members[pack], locals.allSatisfy(held) else { continue }
            let new = locals.filter { moving[$0] == nil }
            guard moving.count + new.count <= budget else { continue }
            packs.append(pack)
            for local in new {
                if let blob = live[local] { moving[local] = Moving(remote: blob.id, location: blob.location) }
            }
        }
    }

    /// How many attachments one announcement may carry under a server's body limit (the
    /// segment stays well inside it); without a limit, 4000.
    static func budget(bodyLimit: Int64?) -> Int {
        bodyLimit.map { max(16, Int($0 * 3 / 4) / 400) } ?? 4000
    }
}
