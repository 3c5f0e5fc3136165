import Foundation
import Testing
@testable import QuireCrypto
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

/// Property: any sequence of operations on three devices, synced in any order, with
/// segments replayed and duplicated, converges to byte-identical `export json` dumps.
@Suite struct ConvergenceTests {
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[below(items.count)] }
    }

    static let words = ["море", "sea", "海", "بحر", "mar", "garden", "сад", "庭", "rain", "дождь"]

    /// One operation on `store`; `contended`: mostly edits of few entries, and conflicts
    /// kept or dismissed.
    func randomOperation(_ store: Store, _ rng: inout Random, world: SyncWorld, contended: Bool = false) throws {
        let entries = try store.entries()
        func text() -> String { (0..<(1 + rng.below(4))).map { _ in Self.words[rng.below(Self.words.count)] }.joined(separator: " ") }
        let operation = contended ? (entries.count < 2 ? 0 : [2, 3, 3, 7, 9, 9, 10, 6][rng.below(8)]) : rng.below(11)
        switch operation {
        case 0, 1:
            try store.add(NewEntry(journal: rng.below(2) == 0 ? "Journal" : "Сны", title: text(), body: text(),
                                   created: Timestamp(microseconds: Int64(1_700_000_000 + rng.below(1000)) * 1_000_000,
                                                      offsetSeconds: [0, 19800, -34200][rng.below(3)]),
                                   tags: rng.below(2) == 0 ? [Self.words[rng.below(3)]] : []))
        case 2:
            if let e = rng.pick(entries) { try store.edit(entryID: e.id, EntryEdit(title: text())) }
        case 3:
            if let e = rng.pick(entries) { try store.edit(entryID: e.id, EntryEdit(body: text())) }
        case 4:
            if let e = rng.pick(entries) {
                let tag = Self.words[rng.below(4)]
                try store.edit(entryID: e.id, rng.below(2) == 0 ? EntryEdit(addTags: [tag]) : EntryEdit(removeTags: [tag]))
            }
        case 5:
            if let e = rng.pick(entries), rng.below(3) == 0 { try store.remove(entryID: e.id) }
        case 6:
            if let e = rng.pick(entries) {
                let content = rng.below(3)
                let path = world.file("att-\(content)-\(rng.next())", Array("attachment \(content)".utf8))
                try store.attach(to: e.id, NewAttachment(path: path, kind: .voice, transcript: rng.below(3) == 0 ? "" : text()))
            }
        case 7:
            if let m = rng.pick(entries.flatMap(\.media)) { try store.setTranscript(mediaID: m.id, text: rng.below(4) == 0 ? "" : text()) }
        case 8:
            if let m = rng.pick(entries.flatMap(\.media)), rng.below(2) == 0 { try store.remove(mediaID: m.id) }
        case 9:
            // A conflict resolved by keeping the text that lost (its entry may be deleted).
            if let conflict = rng.pick(try store.conflicts()) {
                do { try store.keep(conflict) } catch let error as StoreError where error.kind == .notFound {}
            }
        default:
            if let conflict = rng.pick(try store.conflicts()) { try store.dismiss(conflict) }
        }
    }

    @Test(arguments: 1...12)
    func randomHistoriesConverge(seed: Int) throws {
        try converge(seed: seed, contended: false)
    }

    /// The same with devices editing the same few texts between syncs: conflicts kept,
    /// resolved by keeping the text that lost, dismissed, edited again.
    @Test(arguments: 1...8)
    func contendedHistoriesConverge(seed: Int) throws {
        try converge(seed: 100 + seed, contended: true)
    }

    func converge(seed: Int, contended: Bool) throws {
        let world = try SyncWorld(devices: 3)
        var rng = Random(state: UInt64(seed) &* 0x9E3779B97F4A7C15 | 1)
        for _ in 0..<(contended ? 100 : 40) {
            let store = world.stores[rng.below(3)]
            if rng.below(contended ? 5 : 4) == 0 {
                try world.sync(store)
            } else {
                try randomOperation(store, &rng, world: world, contended: contended)
            }
            if rng.below(10) == 0 {
                // Replay: merge an old segment again, out of order, into some device.
                let store = world.stores[rng.below(3)]
                let syncer = try world.syncer(store)
                let heads = try Heads(context: syncer.context).read()
                if let (device, seqs) = heads.randomElement(using: &rng), let newest = seqs.max() {
                    let seq = 1 + rng.below(newest)
                    let sealed = try world.backend.getData(LogSegment.path(device: device, seq: seq))
                    let plain = try syncer.repository.box.open(sealed, path: LogSegment.path(device: device, seq: seq))
                    let segment = try LogSegment.decode(plain, path: "")
                    if segment.changes.allSatisfy({ !($0.record == .media && $0.field == "blob") || store.hasBlob($0.value.string ?? "") }) {
                        try store.merge(segment.changes)
                    }
                }
            }
        }
        for _ in 0..<2 { for store in world.stores { try world.sync(store) } }
        let dumps = try world.stores.map { try world.dump($0) }
        #expect(dumps[0] == dumps[1] && dumps[1] == dumps[2], "seed \(seed)")
        let count = try world.stores[0].entryCount()
        #expect(!dumps[0].isEmpty || count == 0)
        for store in world.stores { let check = try store.integrityCheck(); #expect(check == "ok", "\(check)") }
        // Every merge kept the search index in step: its rows hold what `search_source` makes
        // of each entry now (a transcript added, moved away or deleted on another device).
        for store in world.stores {
            let columns = "rowid, title, body, transcripts, tags, place"
            let indexed = try Self.rows(store, "SELECT \(columns) FROM search ORDER BY rowid")
            let source = try Self.rows(store, "SELECT \(columns) FROM search_source ORDER BY rowid")
            #expect(indexed == source, "seed \(seed): the search index lags behind the journal")
        }
        // A new device restoring the repository (its index built beside its merges, segments
        // of a few changes, read ahead by workers) holds the same journal and the same index.
        let fresh = try world.makeDevice("fresh")
        let syncer = try world.syncer(fresh)
        syncer.context.options.changesPerRestoreMerge = 8
        syncer.context.workerBackends = (0..<2).map { _ in LocalBackend(root: world.dir.path + "/repo") }
        _ = try syncer.restore()
        #expect(try world.dump(fresh) == dumps[0], "seed \(seed): the restore differs")
        #expect(try world.searchRows(fresh) == world.searchRows(world.stores[0]), "seed \(seed): the restore's index differs")
        // Every attachment still in the journal has its bytes on every device, and the
        // repository the histories wrote (replays and all) checks out whole.
        for store in world.stores + [fresh] {
            let live = try store.database.prepare("SELECT DISTINCT m.blob_id FROM \(Store.liveMedia)").rows([]) { $0.text(0) }
            #expect(live.allSatisfy(store.hasBlob), "seed \(seed): a live attachment lost its bytes")
        }
        // Every device, the restored one included, lists the same conflicts: a text that lost
        // to a concurrent write is kept everywhere, under the same name.
        let conflicts = try (world.stores + [fresh]).map(world.conflictList)
        #expect(conflicts.allSatisfy { $0 == conflicts[0] }, "seed \(seed): \(conflicts)")
        let verified = try world.syncer(world.stores[0]).verify(readData: true)
        #expect(verified.problems.isEmpty, "seed \(seed): \(verified.problems)")
        // And a device that starts from a snapshot, once a device that pushed pruned the log.
        var pruned = false
        for store in world.stores where !pruned {
            do {
                _ = try world.syncer(store).prune()
                pruned = true
            } catch let error as SyncError where error.kind == .missing {}  // it pushed nothing
        }
        #expect(pruned)
        let late = try world.makeDevice("late")
        _ = try world.syncer(late).restore()
        #expect(try world.dump(late) == dumps[0], "seed \(seed): the restore from a snapshot differs")
        #expect(try world.searchRows(late) == world.searchRows(world.stores[0]), "seed \(seed): the snapshot's index differs")
        let lateConflicts = try world.conflictList(late)
        #expect(lateConflicts == conflicts[0], "seed \(seed): \(lateConflicts) against \(conflicts[0])")
    }

    static func rows(_ store: Store, _ sql: String) throws -> [[String]] {
        try store.database.prepare(sql).rows([]) { row in (0..<6).map { row.text($0) } }
    }
}

extension ConvergenceTests.Random: RandomNumberGenerator {}
