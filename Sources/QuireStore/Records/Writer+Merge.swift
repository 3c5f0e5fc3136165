import Foundation

/// Merging other devices' writes: each field is a last-writer-wins register ordered by
/// (HLC, device UUID). A text field's loser is kept in `revisions` while it is a head of the
/// field's history (`Writer+Ancestry`): concurrent, never an ancestor of what won.
extension Writer {
    func merge(_ changes: [SyncChange]) throws -> MergeResult {
        var result = MergeResult()
        let readClock = try database.cached("""
            SELECT c.hlc, d.id FROM field_clocks c JOIN devices d ON d.num = c.device
            WHERE c.record = ? AND c.record_id = ? AND c.field = ?
            """)
        // A record this store has no clock for takes every field without a lookup (a restore
        // is almost all such records): one query per record instead of one per field.
        let anyClock = try database.cached("SELECT 1 FROM field_clocks WHERE record = ? AND record_id = ? LIMIT 1")
        var run: (record: RecordKind, id: String, isNew: Bool, fields: FieldsSeen)?
        // The fields of a record new here, written together when its run ends: one UPDATE and
        // one clock INSERT per record instead of one of each per field.
        var fresh: [SyncChange] = []
        func writeFresh() throws {
            guard !fresh.isEmpty else { return }
            try apply(fresh)
            result.applied += fresh.count
            fresh.removeAll(keepingCapacity: true)
        }
        // Revisions kept by this merge, which a write later in it may show to be ancestors.
        var kept = Set<String>()
        for change in changes {
            receivedClock = max(receivedClock ?? .zero, change.hlc)
            if change.record != .revision, change.hlc > (newestMerged?.clock ?? .zero) { newestMerged = (change.hlc, change.device) }
            if change.record == .revision {
                try mergeRevision(change)
                continue
            }
            noteAncestry(of: change)
            if run?.record != change.record || run?.id != change.recordID {
                try writeFresh()
                // Met again with its clocks still pending: they are looked up, so written first.
                if pendingClocks.holds(change.record, change.recordID) { try flushClocks() }
                let isNew = try anyClock.first([.text(change.record.rawValue), .text(change.recordID)]) { _ in true } == nil
                run = (change.record, change.recordID, isNew, FieldsSeen())
            }
            // A field met twice in one run (never in a well-formed log) is looked up like any other.
            let unseen = run?.fields.insert(change.field) ?? false
            if run?.isNew == true && unseen {
                fresh.append(change)
                continue
            }
            try writeFresh()  // a field met again is compared with what was written
            if pendingClocks.holds(change.record, change.recordID) { try flushClocks() }
            let key: [SQLValue] = [.text(change.record.rawValue), .text(change.recordID), .text(change.field)]
            let local = try readClock.first(key) { (hlc: HLC(rawValue: $0.int(0)), device: $0.text(1)) }
            guard let local else {
                try apply([change])
                result.applied += 1
                continue
            }
            if change.hlc == local.hlc && change.device == local.device { continue }  // seen before
            let winning = change.wins(over: local.hlc, device: local.device)
            // The loser: the value replaced here, or the write arriving.
            let loser = winning ? (hlc: local.hlc, device: local.device) : (hlc: change.hlc, device: change.device)
            if change.isText {
                let current = try store.fieldValues(change.record, change.recordID)[change.field]
                let text = winning ? current?.string : change.value.string
                let loserKey = RevisionKey(record: change.record.rawValue, recordID: change.recordID, field: change.field,
                                           hlc: loser.hlc, device: loser.device)
                // Kept even when its text is the winner's: keeping it only when they differed
                // made what was kept depend on which write was current when it arrived, and
                // devices that took the writes in other orders listed different conflicts. A
                // text equal to the field's is not listed (`Store.conflicts`), nor counted here.
                if let text, try !isSuperseded(loserKey), try keepRevision(loserKey, value: text), current != change.value {
                    kept.insert(loserKey.text)
                }
            }
            if winning {
                // This device's write replaced by another's before it was ever pushed: the
                // write it replaced in turn must still be known for replaced everywhere.
                if change.isText && local.device == store.deviceID {
                    try sendEdgeOfUnpushedWrite(change.record, change.recordID, change.field, at: .integer(try clock().rawValue))
                }
                try apply([change])
                result.applied += 1
            }
        }
        try writeFresh()
        try flushClocks()
        result.conflicts = kept.subtracting(try settleAncestry().map(\.text)).count
        return result
    }

    /// A revision record: immutable, so a device whose write won learns of the one that lost
    /// even when the loser never pushed it as a field write. A dismissal (field "dismissed")
    /// may come before the text, from another device's log: the row is made then, its text
    /// filled in when it comes. "superseded" (in snapshots) is an edge of the field's history:
    /// the write was replaced by one the snapshot's writer knew. A revision of a write this
    /// store knows to be an ancestor is not kept.
    private func mergeRevision(_ change: SyncChange) throws {
        guard let key = RevisionKey(change.recordID) else { return }
        let row: [SQLValue] = [.text(key.record), .text(key.recordID), .text(key.field), .integer(key.hlc.rawValue),
                               .integer(try deviceNumber(key.device))]
        switch (change.field, change.value) {
        case ("superseded", .bool(true)):
            noteSuperseded(key)
        case ("dismissed", .bool(true)):
            try database.cached("""
                INSERT INTO revisions (record, record_id, field, hlc, device, value, dismissed) VALUES (?, ?, ?, ?, ?, '', 1)
                ON CONFLICT DO UPDATE SET dismissed = 1
                """).run(row)
        case (_, .string(let text)):
            guard try !isSuperseded(key) else { return }
            try database.cached("""
                INSERT INTO revisions (record, record_id, field, hlc, device, value) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT DO UPDATE SET value = excluded.value WHERE revisions.value = ''
                """).run(row + [.text(text)])
        default:
            break
        }
    }

    /// Keeps `value`, the text write `key` held, as a revision, pushed so every device keeps
    /// it; false when it was kept already.
    func keepRevision(_ key: RevisionKey, value: String) throws -> Bool {
        try database.cached("INSERT OR IGNORE INTO revisions (record, record_id, field, value, hlc, device) VALUES (?, ?, ?, ?, ?, ?)")
            .run([.text(key.record), .text(key.recordID), .text(key.field), .text(value),
                  .integer(key.hlc.rawValue), .integer(try deviceNumber(key.device))])
        guard database.changes > 0 else { return false }
        try database.cached("INSERT INTO outbox (record, record_id, hlc) VALUES ('revision', ?, ?) ON CONFLICT(record, record_id) DO NOTHING")
            .run([.text(key.text), .integer(try clock().rawValue)])
        return true
    }

    func deviceNumber(_ uuid: String) throws -> Int64 {
        if uuid.isEmpty { return 0 }
        // A merge's changes come device by device: the last answer, without hashing the UUID.
        if let last = lastDevice, last.uuid == uuid { return last.number }
        if let known = deviceNumbers[uuid] {
            lastDevice = (uuid, known)
            return known
        }
        try database.cached("INSERT OR IGNORE INTO devices (id) VALUES (?)").run([.text(uuid)])
        let number = try database.cached("SELECT num FROM devices WHERE id = ?").first([.text(uuid)]) { $0.int(0) } ?? 0
        deviceNumbers[uuid] = number
        return number
    }
}

/// The fields met in one record's run of a merge. A record has a dozen fields or so, which
/// are compared as they are, not hashed; a record with many (tags) is kept in a set.
struct FieldsSeen {
    private var few: [String] = []
    private var many: Set<String> = []

    /// Adds `field`; false when it was met before.
    mutating func insert(_ field: String) -> Bool {
        if few.count < 16 {
            if few.contains(field) { return false }
            few.append(field)
            return true
        }
        return !few.contains(field) && many.insert(field).inserted
    }
}

/// The id of a revision record: "<record>/<record id>/<field>/<hlc>/<device>".
struct RevisionKey {
    var record: String
    var recordID: String
    var field: String
    var hlc: HLC
    var device: String

    init(record: String, recordID: String, field: String, hlc: HLC, device: String) {
        self.record = record
        self.recordID = recordID
        self.field = field
        self.hlc = hlc
        self.device = device
    }

    init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 5, let hlc = Int64(parts[parts.count - 2]), RecordKind(rawValue: parts[0]) != nil else { return nil }
        record = parts[0]
        recordID = parts[1]
        field = parts[2..<(parts.count - 2)].joined(separator: "/")
        self.hlc = HLC(rawValue: hlc)
        device = parts[parts.count - 1]
    }

    var text: String { "\(record)/\(recordID)/\(field)/\(hlc.rawValue)/\(device)" }
}

/// Clocks a merge wrote the fields of but not yet the clocks (`Writer.flushClocks`): each
/// record's, in the order they came, and which records they are of.
struct PendingClocks {
    /// Above this many, they are written at once: a merge's memory stays what a segment's is.
    static let limit = 20_000
    private var runs: [[SyncChange]] = []
    private var records: Set<Record> = []
    private(set) var count = 0

    private struct Record: Hashable {
        let kind: RecordKind
        let id: String
    }

    mutating func add(_ changes: [SyncChange]) {
        guard let first = changes.first else { return }
        runs.append(changes)
        records.insert(Record(kind: first.record, id: first.recordID))
        count += changes.count
    }

    /// True when clocks of that record are pending.
    func holds(_ record: RecordKind, _ id: String) -> Bool {
        count > 0 && records.contains(Record(kind: record, id: id))
    }

    /// The records' runs in the order of the table's key (kind, then id; by the first eight
    /// bytes of the id, which is random, so ties are rare and harmless): each INSERT then
    /// fills the B-tree from left to right instead of at random.
    func sorted() -> [[SyncChange]] {
        runs.map { (kind: $0[0].record.rawValue, id: Self.prefix($0[0].recordID), run: $0) }
            .sorted { $0.kind != $1.kind ? $0.kind < $1.kind : $0.id < $1.id }
            .map(\.run)
    }

    /// The first eight bytes of `text`, big-endian: compared as SQLite compares the text.
    private static func prefix(_ text: String) -> UInt64 {
        var value: UInt64 = 0, taken = 0
        for byte in text.utf8.prefix(8) {
            value = value << 8 | UInt64(byte)
            taken += 1
        }
        return value << (8 * UInt64(8 - taken))
    }
}
