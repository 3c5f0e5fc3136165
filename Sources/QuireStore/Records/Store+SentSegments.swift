import Foundation

/// This device's own segments as sealed (`migrations/0010_keep_sent_segments.sql`): what it
/// puts back when the server loses them.
extension Store {
    /// Keeps sealed segments of this device's log, replacing any kept under the same number
    /// (a push made again in smaller segments rewrites them), in one transaction.
    package func keepSentSegments(_ segments: [(seq: Int, data: Data)]) throws {
        guard !segments.isEmpty else { return }
        try database.transaction {
            for segment in segments {
                try database.cached("INSERT INTO sent_segments (seq, data) VALUES (?, ?) ON CONFLICT(seq) DO UPDATE SET data = excluded.data")
                    .run([.integer(Int64(segment.seq)), .blob(segment.data)])
            }
        }
    }

    /// The numbers of the kept segments, in order.
    package func sentSegmentNumbers() throws -> [Int] {
        try database.cached("SELECT seq FROM sent_segments ORDER BY seq").rows { Int($0.int(0)) }
    }

    /// The sealed bytes of kept segment `seq`, nil when none is kept.
    package func sentSegment(_ seq: Int) throws -> Data? {
        try database.cached("SELECT data FROM sent_segments WHERE seq = ?").first([.integer(Int64(seq))]) { $0.data(0) }
    }

    /// Forgets the kept segments numbered `seqs` (pruned from the server: a snapshot covers them).
    package func forgetSentSegments(_ seqs: [Int]) throws {
        guard !seqs.isEmpty else { return }
        try database.transaction {
            for seq in seqs { try database.cached("DELETE FROM sent_segments WHERE seq = ?").run([.integer(Int64(seq))]) }
        }
    }
}
