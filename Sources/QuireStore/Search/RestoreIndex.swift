/// A new restore's search index, built on a second thread while its merges run
/// (`SearchBuild`), in place of one built whole once they are done.
///
/// At 100,000 entries the index built after the merges took 5.7 s of a 13.4 s restore, on
/// one core: FTS5 takes one row at a time on one connection. Here each segment merged sends
/// the rows of the entries it made (`Writer.sendRestoredRowsSoFar`, and at each commit
/// `Writer.refreshSearch`), in rising rowid order, as a first import does. An entry changed
/// again after its row went (an edit later in the log, a transcript that came after its
/// entry) is held back, and put right in the index once it is copied into the store
/// (`Store.indexRestoredText`).
///
/// The merges hand rows over in bursts (one transaction's entries at a time), so up to 64
/// batches of 256 rows may wait, not 4 as in an import, lest the merging thread wait for each.
/// 100,000 entries, a file:// repository, release, four alternating pairs: median 12.0 s
/// against 13.5 s, peak memory the same (the key derivation's).
///
/// It lives as long as the process: a restore that resumes in another one builds its index
/// whole, as does one whose merge failed after it sent rows (`spoiled`: those rows may be
/// of a transaction rolled back).
final class RestoreIndex {
    let build: SearchBuild
    /// The highest rowid sent.
    var sentThrough: Int64 = 0
    /// Entries changed after their row was sent, by id.
    var heldBack: Set<String> = []
    var spoiled = false

    /// Where the index is built, removed with this (`ScratchIndexFile`): a resume in
    /// another process builds its index whole.
    let file: ScratchIndexFile

    init(like database: Database, folder: String) throws {
        file = ScratchIndexFile(in: folder)
        build = try SearchBuild(like: database, depth: 64, file: file.path)
    }

    deinit {
        file.remove()
    }
}
