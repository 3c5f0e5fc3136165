import Foundation
import Testing
@testable import QuireStore

/// The merge knows a text field's ancestry: a write is a conflict only while it is a head of
/// the field's history (no write names it as the one it replaced). Random histories of one
/// field over three devices, delivered in every order, by segment, by device and through a
/// snapshot, must all give the same winner, list exactly the concurrent heads, and never
/// show an ancestor.
@Suite struct MergeAncestryTests {
    static let devices = ["1a5d0c3e-0000-4000-8000-00000000000a", "6b2f9e10-0000-4000-8000-00000000000b",
                          "c47e2a91-0000-4000-8000-00000000000c"]
    static let entryID = "0b6c5e7a-3d2f-4a1b-9c8d-7e6f5a4b3c2d"

    /// One write of the body: its clock, writer, the write it replaced, and its text.
    struct Write {
        var index: Int
        var hlc: Int64
        var device: String
        var prev: Int?
        var text: String { "version \(index) by \(device.suffix(1))" }
        var wins: (Int64, String) { (hlc, device) }
    }

    /// A history: writes made by devices that wrote on top of what they had seen and heard
    /// of each other's writes now and then; each device's writes cut into segments.
    struct History: CustomStringConvertible {
        var writes: [Write] = []
        var segments: [[Int]] = []   // write indexes, each segment one device's consecutive writes

        var winner: Write { writes.max { $0.wins < $1.wins }! }
        var named: Set<Int> { Set(writes.compactMap(\.prev)) }
        /// The heads other than the winner: what `conflicts` must list.
        var concurrentHeads: Set<String> {
            Set(writes.filter { !named.contains($0.index) && $0.index != winner.index }.map(\.text))
        }
        var description: String {
            writes.map { "\($0.index)@\($0.hlc)\($0.device.suffix(1))<-\($0.prev.map(String.init) ?? "·")" }.joined(separator: " ")
                + " segments \(segments)"
        }

        func change(_ i: Int) -> SyncChange {
            let w = writes[i], p = w.prev.map { writes[$0] }
            return SyncChange(record: .entry, recordID: MergeAncestryTests.entryID, field: "body", value: .string(w.text),
                              hlc: HLC(rawValue: w.hlc), device: w.device,
                              previousHLC: HLC(rawValue: p?.hlc ?? 0), previousDevice: p?.device ?? "")
        }
    }

    static func history(_ rng: inout SplitMix) -> History {
        var h = History()
        var known = Array(repeating: Set<Int>(), count: 3)
        var winner = [Int?](repeating: nil, count: 3)
        let count = 1 + Int(rng.next() % 8)
        while h.writes.count < count {
            let d = Int(rng.next() % 3)
            if h.writes.isEmpty || rng.next() % 5 < 3 {
                // A write on top of what this device holds, after every clock it has seen
                // (sometimes the same clock another device used: the device id breaks the tie).
                let newest = known[d].map { h.writes[$0].hlc }.max() ?? 0
                let w = Write(index: h.writes.count, hlc: newest + 1 + Int64(rng.next() % 2), device: devices[d], prev: winner[d])
                h.writes.append(w)
                known[d].insert(w.index)
                winner[d] = w.index
            } else {
                let from = Int(rng.next() % 3)
                known[d].formUnion(known[from])
                winner[d] = known[d].max { h.writes[$0].wins < h.writes[$1].wins }
            }
        }
        for device in devices {
            var run: [Int] = []
            for w in h.writes where w.device == device {
                run.append(w.index)
                if rng.next() % 2 == 0 { h.segments.append(run); run = [] }
            }
            if !run.isEmpty { h.segments.append(run) }
        }
        return h
    }

    struct Rollback: Error {}

    /// Merges `deliveries` one after another (each as one merge, as one sync's transaction
    /// would) into `store` and returns the body and the conflicts; nothing stays. After each,
    /// nothing listed may be a write a delivered write names.
    func outcome(_ store: Store, _ history: History, _ deliveries: [[SyncChange]], snapshotAfter: Int? = nil,
                 snapshotInto other: Store? = nil) throws -> (body: String, conflicts: Set<String>) {
        var found: (String, Set<String>)?
        do {
            try store.database.transaction {
                var named = Set<String>()
                for (i, delivery) in deliveries.enumerated() {
                    if i == snapshotAfter, let other {
                        var snapshot: [SyncChange] = []
                        try store.forEachSyncedField { snapshot.append($0) }
                        found = try outcome(other, history, [snapshot] + Array(deliveries[i...]))
                        throw Rollback()
                    }
                    _ = try Writer(store: store).merge(delivery)
                    for change in delivery where change.previousHLC != .zero { named.insert("\(change.previousHLC.rawValue)/\(change.previousDevice)") }
                    let shown = try store.conflicts()
                    let ancestors = shown.filter { named.contains("\($0.hlc.rawValue)/\($0.device)") }
                    #expect(ancestors.isEmpty, "an ancestor shown after delivery \(i): \(ancestors.map(\.value)) in \(history)")
                }
                let body = try store.fieldValues(.entry, Self.entryID)["body"]?.string ?? ""
                found = (body, Set(try store.conflicts().map(\.value)))
                throw Rollback()
            }
        } catch is Rollback {}
        guard let found else { throw Rollback() }
        return found
    }

    @Test func everyOrderGivesTheSameWinnerAndExactlyTheConcurrentHeads() throws {
        let dir = TempDir()
        let store = try makeStore(dir, name: "reader"), other = try makeStore(dir, name: "from-snapshot")
        var rng = SplitMix(seed: 0x5eed_a11c)
        var orders = 0
        for _ in 0..<80 {
            let history = Self.history(&rng)
            let expected = (history.winner.text, history.concurrentHeads)
            let segments = history.segments.map { $0.map(history.change) }
            // By segment: every order when there are few, a sample when there are many.
            var segmentOrders = segments.count <= 4 ? permutations(Array(segments.indices))
                : (0..<30).map { _ in shuffled(Array(segments.indices), &rng) }
            // By device: each device's log whole and in order, the devices in every order.
            for devices in permutations(Self.devices) {
                segmentOrders.append(devices.flatMap { d in segments.indices.filter { history.writes[history.segments[$0][0]].device == d } })
            }
            for order in segmentOrders {
                let deliveries = order.map { segments[$0] }
                let got = try outcome(store, history, deliveries)
                #expect(got == expected, "order \(order) of \(history)")
                orders += 1
                // Through a snapshot of a device that had merged part of them.
                let cut = Int(rng.next() % UInt64(deliveries.count + 1))
                let viaSnapshot = try outcome(store, history, deliveries + [[]], snapshotAfter: cut, snapshotInto: other)
                #expect(viaSnapshot == expected, "snapshot after \(cut) of order \(order) of \(history)")
            }
        }
        #expect(orders > 1_500, "\(orders) orders")
    }

    /// A → B → C written by two devices (a wrote A; b, after a restore, B then C): read as
    /// C, B, A or as A, C, B — a device's segments in reverse, or another device's log
    /// between them — nothing is a conflict, in one merge or one segment per merge.
    @Test(arguments: [[2, 1, 0], [0, 2, 1]])
    func aChainReadOutOfOrderRaisesNoAncestor(order: [Int]) throws {
        let h = History(writes: [Write(index: 0, hlc: 10, device: Self.devices[0], prev: nil),
                                 Write(index: 1, hlc: 20, device: Self.devices[1], prev: 0),
                                 Write(index: 2, hlc: 30, device: Self.devices[1], prev: 1)],
                        segments: [[0], [1], [2]])
        let dir = TempDir()
        let apart = try makeStore(dir, name: "apart"), together = try makeStore(dir, name: "together")
        for i in order { try apart.merge([h.change(i)]) }
        try together.merge(order.map(h.change))
        for store in [apart, together] {
            #expect(try store.conflicts().isEmpty)
            #expect(try store.fieldValues(.entry, Self.entryID)["body"]?.string == h.writes[2].text)
        }
    }

    /// Two devices edit one body concurrently; then one of them edits again on top of what
    /// won: the other's version stays a conflict (a head), the replaced winner does not.
    @Test func anEditOnTopOfTheWinnerLeavesTheConcurrentHeadListed() throws {
        let h = History(writes: [Write(index: 0, hlc: 10, device: Self.devices[0], prev: nil),
                                 Write(index: 1, hlc: 20, device: Self.devices[0], prev: 0),
                                 Write(index: 2, hlc: 15, device: Self.devices[1], prev: 0),
                                 Write(index: 3, hlc: 30, device: Self.devices[0], prev: 1)],
                        segments: [[0, 1, 3], [2]])
        let dir = TempDir()
        let store = try makeStore(dir)
        for i in [3, 2, 1, 0] { try store.merge([h.change(i)]) }
        #expect(Set(try store.conflicts().map(\.value)) == [h.writes[2].text])
        #expect(h.concurrentHeads == [h.writes[2].text])
    }
}

/// A small seeded generator (SplitMix64): the same histories on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func permutations<T>(_ items: [T]) -> [[T]] {
    guard items.count > 1 else { return [items] }
    return items.indices.flatMap { i -> [[T]] in
        var rest = items
        let first = rest.remove(at: i)
        return permutations(rest).map { [first] + $0 }
    }
}

func shuffled<T>(_ items: [T], _ rng: inout SplitMix) -> [T] {
    var items = items
    for i in stride(from: items.count - 1, to: 0, by: -1) { items.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
    return items
}
