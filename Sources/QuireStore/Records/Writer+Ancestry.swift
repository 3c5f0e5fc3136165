import Foundation

/// The ancestry of text fields: which writes a later write names as the one it replaced.
/// A text write is a conflict only while it is a head — no write this store knows names it
/// (Automerge's `pred`, the multi-value register). The winner stays the greatest clock; the
/// ancestry only decides which losers are kept as revisions. Edges are only ever added, so,
/// like the registers, the result does not depend on the order writes arrive in: a revision
/// kept for a write that a later-arriving write turns out to name is dropped again when that
/// edge arrives (`settleAncestry`), so a history A → B → C read as C, B, A or A, C, B shows
/// nothing, and one read with its middle link in another device's log shows nothing once
/// that log is merged.
extension Writer {
    /// The write (record, id, field, clock, device) a revision or an edge names.
    typealias WriteKey = RevisionKey

    /// Notes that `key` was replaced by a write this store now knows (flushed by `settleAncestry`).
    func noteSuperseded(_ key: WriteKey) {
        if learnedEdges.insert(key.text).inserted { pendingEdges.append(key) }
    }

    /// Notes the edge a text change carries: the write it replaced.
    func noteAncestry(of change: SyncChange) {
        guard change.previousHLC != .zero, change.isText else { return }  // the cheap test first: most writes are first writes
        noteSuperseded(WriteKey(record: change.record.rawValue, recordID: change.recordID, field: change.field,
                                hlc: change.previousHLC, device: change.previousDevice))
    }

    /// True when some write this store knows names `key` as the one it replaced.
    func isSuperseded(_ key: WriteKey) throws -> Bool {
        if learnedEdges.contains(key.text) { return true }
        guard let device = try knownDeviceNumber(key.device) else { return false }
        return try database.cached("SELECT 1 FROM superseded WHERE record = ? AND record_id = ? AND field = ? AND hlc = ? AND device = ?")
            .first([.text(key.record), .text(key.recordID), .text(key.field), .integer(key.hlc.rawValue), .integer(device)]) { _ in true } ?? false
    }

    /// Records the edges noted so far and drops the revisions they show to be ancestors (and
    /// their pushes, when not sent yet; a dismissed one stays, so its dismissal still syncs
    /// to Quires that do not know ancestry). Returns the revisions that went.
    @discardableResult
    func settleAncestry() throws -> [WriteKey] {
        guard !pendingEdges.isEmpty else { return [] }
        var start = pendingEdges.startIndex
        while start < pendingEdges.endIndex {
            let batch = pendingEdges[start..<min(pendingEdges.endIndex, start + 500)]
            start = batch.endIndex
            var values: [SQLValue] = []
            values.reserveCapacity(batch.count * 5)
            for key in batch {
                values += [.text(key.record), .text(key.recordID), .text(key.field), .integer(key.hlc.rawValue), .integer(try deviceNumber(key.device))]
            }
            try database.cached("INSERT OR IGNORE INTO superseded (record, record_id, field, hlc, device) VALUES "
                                + Array(repeating: "(?, ?, ?, ?, ?)", count: batch.count).joined(separator: ", ")).run(values)
        }
        pendingEdges.removeAll()
        let ancestors = try database.cached("""
            SELECT r.record, r.record_id, r.field, r.hlc, d.id FROM revisions r JOIN devices d ON d.num = r.device
            WHERE r.dismissed = 0 AND EXISTS (SELECT 1 FROM superseded s WHERE s.record = r.record AND s.record_id = r.record_id
                AND s.field = r.field AND s.hlc = r.hlc AND s.device = r.device)
            """).rows { WriteKey(record: $0.text(0), recordID: $0.text(1), field: $0.text(2), hlc: HLC(rawValue: $0.int(3)), device: $0.text(4)) }
        for key in ancestors {
            try database.cached("""
                DELETE FROM revisions WHERE record = ? AND record_id = ? AND field = ? AND hlc = ?
                    AND device = (SELECT num FROM devices WHERE id = ?)
                """).run([.text(key.record), .text(key.recordID), .text(key.field), .integer(key.hlc.rawValue), .text(key.device)])
            try database.cached("DELETE FROM outbox WHERE record = 'revision' AND record_id = ?").run([.text(key.text)])
        }
        return ancestors
    }

    /// The number of a device this store has heard of, nil for one it has not.
    private func knownDeviceNumber(_ uuid: String) throws -> Int64? {
        if uuid.isEmpty { return 0 }
        if let known = deviceNumbers[uuid] { return known }
        return try database.cached("SELECT num FROM devices WHERE id = ?").first([.text(uuid)]) { $0.int(0) }
    }
}
