import Foundation

/// Where this store syncs: kept in the store's `meta` table, local to this machine (not synced).
/// The WebDAV password is never stored; only the path of a file holding it may be.
package struct RemoteSettings: Equatable, Sendable {
    package var url: String
    package var user: String?
    package var passwordFile: String?
    /// The repository this store synced with; a different one at the URL is refused.
    package var repositoryID: String?
    /// The user accepted plain `http://` beyond loopback (`--insecure-http`).
    package var insecureHTTP: Bool
    /// The key file the passphrase opened last time, tried first next time.
    package var keyName: String?
    /// The largest request body the server takes, as `remote set --max-object-size` said or a
    /// 413 taught; nil when none is known.
    package var maxObjectSize: Int64?
    /// The authentication scheme the server asked for last time ("basic" or "digest"),
    /// offered first next time so a sync does not begin with a refused request.
    package var authScheme: String?
    /// S3: whether the server refuses `If-None-Match: *` PUTs of a key that exists, as a
    /// probe found (nil before the first).
    package var conditionalPut: Bool?
    /// A PEM file of the certificates that vouch for the server (a private CA), instead of
    /// the system's; its path is kept, as `--ca-file` gave it.
    package var caFile: String?
    /// S3: the region the service said the bucket is in, when the URL names another (or
    /// none); signed for from the first request on.
    package var learnedRegion: String?

    package init(url: String, user: String? = nil, passwordFile: String? = nil, repositoryID: String? = nil,
                insecureHTTP: Bool = false, caFile: String? = nil) {
        self.url = url
        self.user = user
        self.passwordFile = passwordFile
        self.repositoryID = repositoryID
        self.insecureHTTP = insecureHTTP
        self.caFile = caFile
    }
}

extension Store {
    private enum RemoteKey {
        static let url = "remote_url", user = "remote_user", passwordFile = "remote_password_file", repository = "repository_id",
                   insecureHTTP = "remote_insecure_http", keyName = "repository_key_name",
                   maxObjectSize = "remote_max_object_size", authScheme = "remote_auth_scheme",
                   conditionalPut = "remote_conditional_put", learnedRegion = "remote_learned_region",
                   caFile = "remote_ca_file"
    }

    /// The configured remote, or nil.
    package func remoteSettings() throws -> RemoteSettings? {
        guard let url = try meta(RemoteKey.url) else { return nil }
        var settings = RemoteSettings(url: url, user: try meta(RemoteKey.user), passwordFile: try meta(RemoteKey.passwordFile),
                                      repositoryID: try meta(RemoteKey.repository), insecureHTTP: try meta(RemoteKey.insecureHTTP) == "1")
        settings.keyName = try meta(RemoteKey.keyName)
        settings.maxObjectSize = try meta(RemoteKey.maxObjectSize).flatMap { Int64($0) }
        settings.authScheme = try meta(RemoteKey.authScheme)
        settings.conditionalPut = try meta(RemoteKey.conditionalPut).map { $0 == "1" }
        settings.learnedRegion = try meta(RemoteKey.learnedRegion)
        settings.caFile = try meta(RemoteKey.caFile)
        return settings
    }

    /// Points the store at `url`. The repository id it synced with is kept, so a wrong
    /// server is noticed at the next use.
    package func setRemote(url: String, user: String?, passwordFile: String?, insecureHTTP: Bool = false, caFile: String? = nil) throws {
        try database.transaction {
            // What one server asked for says nothing of another.
            if try meta(RemoteKey.url) != url {
                try setOrClear(RemoteKey.authScheme, nil)
                try setOrClear(RemoteKey.conditionalPut, nil)
                try setOrClear(RemoteKey.learnedRegion, nil)
            }
            try setMeta(RemoteKey.url, url)
            try setOrClear(RemoteKey.user, user)
            try setOrClear(RemoteKey.passwordFile, passwordFile)
            try setOrClear(RemoteKey.insecureHTTP, insecureHTTP ? "1" : nil)
            try setOrClear(RemoteKey.caFile, caFile)
        }
    }

    /// Whether this store made its pack folder in repository `repositoryID` (which it does
    /// after moving the repository to the pack format): later pushes need not ask.
    package func madePackFolder(in repositoryID: String) throws -> Bool { try meta("pack_folder_repository") == repositoryID }

    package func setMadePackFolder(in repositoryID: String) throws {
        try database.transaction { try setMeta("pack_folder_repository", repositoryID) }
    }

    /// The format this store last moved repository `repositoryID` to (or found it at), nil
    /// before its first push there.
    package func knownFormat(of repositoryID: String) throws -> Int? {
        guard let text = try meta("repository_format"), let space = text.firstIndex(of: " "), text[..<space] == repositoryID else { return nil }
        return Int(text[text.index(after: space)...])
    }

    package func setKnownFormat(_ format: Int, of repositoryID: String) throws {
        try database.transaction { try setMeta("repository_format", repositoryID + " " + String(format)) }
    }

    /// Records the largest body the server accepts (nil: none known).
    package func setMaxObjectSize(_ size: Int64?) throws {
        try database.transaction { try setOrClear(RemoteKey.maxObjectSize, size.map(String.init)) }
    }

    /// Records the authentication scheme the server asked for ("basic", "digest"; nil forgets).
    package func setAuthScheme(_ name: String?) throws {
        try database.transaction { try setOrClear(RemoteKey.authScheme, name) }
    }

    /// Records what a probe found of the S3 server's conditional PUTs.
    package func setConditionalPut(_ honoured: Bool) throws {
        try database.transaction { try setMeta(RemoteKey.conditionalPut, honoured ? "1" : "0") }
    }

    /// Records the region the S3 service said the bucket is in.
    package func setLearnedRegion(_ region: String) throws {
        try database.transaction { try setMeta(RemoteKey.learnedRegion, region) }
    }

    /// Records which key file the passphrase opened.
    package func setRepositoryKeyName(_ name: String) throws {
        try database.transaction { try setMeta(RemoteKey.keyName, name) }
    }

    /// Records the repository this store syncs with.
    package func setRepositoryID(_ id: String) throws {
        try database.transaction { try setMeta(RemoteKey.repository, id) }
    }

    /// True while the store holds nothing of a journal: no entry, no change of its own, no
    /// other device's log, and no restore under way. A restore that failed before it began
    /// (a mistyped passphrase, a server that did not answer) leaves a store like this, and
    /// restoring into it again is restoring into a new store.
    package func holdsNoJournal() throws -> Bool {
        try entryCount() == 0 && syncLogs().isEmpty && !hasPendingChanges() && restoringFrom() == nil
    }

    /// Forgets the repository a store that holds no journal was pointed at, with the key file
    /// that opened it, so it may be pointed at another.
    package func forgetRepository() throws {
        try database.transaction {
            try setOrClear(RemoteKey.repository, nil)
            try setOrClear(RemoteKey.keyName, nil)
        }
    }

    private func setOrClear(_ key: String, _ value: String?) throws {
        if let value {
            try setMeta(key, value)
        } else {
            try database.cached("DELETE FROM meta WHERE key = ?").run([.text(key)])
        }
    }
}

extension Store {
    /// When this store last finished a sync or restore (RFC 3339), if ever.
    public func lastSync() throws -> String? { try meta("last_sync") }

    /// Records a finished sync; it clears the failure recorded before it, if any.
    package func recordSync(at time: Timestamp) throws {
        try database.transaction {
            try setMeta("last_sync", time.text)
            try database.cached("DELETE FROM meta WHERE key = 'sync_failure'").run()
        }
    }

    /// Why the last sync failed, and when, until one succeeds (`quire service status`).
    public func lastSyncFailure() throws -> (time: String, reason: String)? {
        guard let text = try meta("sync_failure"), let tab = text.firstIndex(of: "\t") else { return nil }
        return (String(text[..<tab]), String(text[text.index(after: tab)...]))
    }

    package func recordSyncFailure(_ reason: String, at time: Timestamp) throws {
        let line = reason.replacingOccurrences(of: "\n", with: " ")
        try database.transaction { try setMeta("sync_failure", time.text + "\t" + String(line.prefix(500))) }
    }

    /// Set while a restore has not finished; a second `restore` continues it.
    package func restoringFrom() throws -> String? { try meta("restoring") }

    /// The repository a finished restore made this store from, if one did.
    package func restoredFrom() throws -> String? { try meta("restored_from") }

    /// True while merges leave the full-text index alone: a restore runs and has not built
    /// the index yet (`indexRestoredText`). Refreshed per merged segment, FTS5 wrote and merged
    /// its index segment by segment, and that was a third of the merging thread's time.
    func searchDeferred() throws -> Bool {
        try database.cached("""
            SELECT 1 FROM meta WHERE key = 'restoring' AND NOT EXISTS (SELECT 1 FROM meta WHERE key = 'restoring_indexed')
            """).first { _ in true } ?? false
    }

    /// Marks the store as restoring `repositoryID`, or (nil) the restore as finished. While
    /// it restores, merges leave the full-text index alone until `indexRestoredText` builds it
    /// whole; finishing builds it in the same transaction when that has not happened, so a
    /// store is never done restoring with an index that lacks entries.
    package func setRestoring(_ repositoryID: String?) throws {
        try database.transaction {
            if let repositoryID {
                try setMeta("restoring", repositoryID)
                try database.cached("DELETE FROM meta WHERE key = 'restoring_indexed'").run()
                try dropIndexesWhileRestoring()
            } else if try restoringFrom() != nil {
                try buildSearchIndexIfDeferred()
                try makeIndexesDroppedWhileRestoring()
                try setMeta("restored_from", try restoringFrom() ?? "")
                try database.cached("DELETE FROM meta WHERE key IN ('restoring', 'restoring_indexed')").run()
            }
        }
    }

    /// A new restore leaves out the indexes a first import makes at its end
    /// (`Store.indexesMadeAfterFirstImport`): its merges commit 20,000 changes at a time, and
    /// each commit wrote again every page of those B-trees its entries fell on. Their
    /// definitions wait in `meta` (a restore may resume in another process) until the index
    /// is put in place (`indexRestoredText`), which makes them again.
    private func dropIndexesWhileRestoring() throws {
        let definitions = try database.dropIndexes(Self.indexesMadeAfterFirstImport)
        guard !definitions.isEmpty else { return }
        try setMeta("restoring_indexes", JSONWriter.value(.array(definitions.map { .string($0) })))
    }

    /// Makes the indexes `dropIndexesWhileRestoring` left out, if it did.
    private func makeIndexesDroppedWhileRestoring() throws {
        guard let saved = try meta("restoring_indexes") else { return }
        let definitions = (try? JSONValue.parse(saved))?.array?.compactMap(\.string) ?? []
        try database.makeIndexes(definitions.filter { $0.hasPrefix("CREATE INDEX ") })
        try database.cached("DELETE FROM meta WHERE key = 'restoring_indexes'").run()
    }

    /// Runs a restore's merges under the rollback journal when no other connection has the
    /// store, as a first import's transaction runs (`Database.withRollbackJournal`): pages
    /// new to the file are written once, not into the log and again into the database.
    /// Each merge still commits on its own, flushed (synchronous `EXTRA`), so an interrupted
    /// restore resumes where it stopped. 100,000 entries, a file:// repository, 16 KiB
    /// pages: median 0.964 of the time under the log (eight alternating pairs, twice).
    package func mergingUnderRollbackJournal<T>(_ body: () throws -> T) throws -> T {
        try database.withRollbackJournal(body)
    }

    /// While restoring, SQLite copies the write-ahead log into the database every 64 MiB
    /// rather than every 4 MiB (`Store.checkpointEvery`): a restore commits 20,000 changes
    /// at a time, and each commit's checkpoint wrote the same B-tree pages again and waited
    /// for another flush. 100k entries: 13.0-14.1 s against 13.7-16.1 s
    /// (four alternating runs). Its commits are not flushed one by one either (synchronous
    /// `NORMAL`): the log stays whole across a power cut, which at worst takes the last few
    /// merges, and a resumed restore merges them again; each checkpoint still flushes, and so
    /// does everything after `false` (the restore's end). 100,000 entries: median 6.2 s
    /// against 6.75 s (four alternating pairs). For this connection only; `false` puts the
    /// defaults back. Both apply only while the merges are in the log: when the store is the
    /// restore's alone they commit under the rollback journal (`mergingUnderRollbackJournal`).
    package func checkpointRarely(_ rarely: Bool) throws {
        let pages = try database.pages(of: rarely ? 64 << 20 : Self.checkpointEvery)
        try database.execute("PRAGMA wal_autocheckpoint = \(pages); PRAGMA synchronous = \(rarely ? "NORMAL" : "FULL")")
    }

    /// A new restore's merges send their rows to a search index built beside them
    /// (`RestoreIndex`), which `indexRestoredText` then puts in place.
    package func buildRestoredIndexAside() throws {
        restoreIndex = try RestoreIndex(like: database, folder: folder)
    }

    /// Lets go of the index built beside the merges, if one is still building (a restore
    /// that stopped), and of its file.
    package func dropRestoredIndexAside() {
        restoreIndex = nil
    }

    /// While restoring: puts the index built beside the merges in place, or builds it whole
    /// from what is merged so far, in one transaction, so the restore's last steps (waiting
    /// for attachments) run beside it; and makes the indexes left out while merging.
    /// Writes after it (a resumed restore's merges, an edit) refresh the index as usual.
    ///
    /// An index built beside a new restore's merges goes in under a rollback journal
    /// (`Database.withRollbackJournal`): its pages, new to the file, are written once, not
    /// into the log and then again into the database. 100,000 entries: 185 MB less written,
    /// 7.37 s against 8.08 s (medians of three alternating runs). The indexes left out are
    /// made first, while the index's thread finishes its last rows.
    /// - Parameter feedPath: where the second connection reads from; only tests pass another
    ///   (one it cannot open), to take the path where the feed fails.
    package func indexRestoredText(feedPath: String? = nil) throws {
        if let aside = restoreIndex, !aside.spoiled, try searchDeferred() {
            restoreIndex = nil
            let installed = try database.withRollbackJournal {
                try database.transaction { try makeIndexesDroppedWhileRestoring() }
                // Should its thread have failed, the index is built whole below.
                guard let scratch = try? aside.build.finish() else { return false }
                let attached = aside.file.attach(to: database)
                defer { if attached { aside.file.detach(from: database) } }
                try database.transaction {
                    try attached ? installSearch(attached: ScratchIndexFile.schema) : installSearch(scratch)
                    if !aside.heldBack.isEmpty { try refreshSearchRows(of: aside.heldBack) }
                    try setMeta("restoring_indexed", "1")
                }
                return true
            }
            if installed { return }
        }
        try database.transaction {
            try buildSearchIndexIfDeferred(feedPath: feedPath)
            try makeIndexesDroppedWhileRestoring()
        }
    }

    /// Called first in its transaction: the rows are read on another connection, which sees
    /// what this one does only while this one has written nothing they are made of.
    private func buildSearchIndexIfDeferred(feedPath: String? = nil) throws {
        guard try searchDeferred() else { return }
        restoreIndex = nil
        try database.execute("DELETE FROM search")
        do {
            try fillSearch(from: feedPath ?? database.path)
        } catch is SearchFeed.Failure {
            // The second connection could not read (no room for its lock file, say): the rows
            // are read and tokenized here instead, as before there was a feed.
            try database.execute("DELETE FROM search; INSERT INTO search (rowid, \(names)) " + SearchFeed.source)
        }
        try setMeta("restoring_indexed", "1")
    }

    private var names: String { SearchFeed.columns.joined(separator: ", ") }

    /// Every row of `search_source` into `search`, read and tokenized on a second thread.
    private func fillSearch(from path: String) throws {
        let feed = SearchFeed(path: path)
        database.tokenizerCache.feed = feed
        defer { database.tokenizerCache.feed = nil }
        let insert = try database.prepare(SearchFeed.insert)
        while true {
            let row: SearchFeed.Row
            do {
                guard let next = try feed.nextRow() else { break }
                row = next
            } catch {
                throw SearchFeed.Failure(reason: error)
            }
            try insert.run(row.rowid, texts: row.columns.map(\.text))
        }
    }
}

/// The newest change a store holds: when it was written (its clock's wall time) and by
/// which device. After a restore it says how fresh the repository was: a server that hides
/// its newest heads shows an older one.
package struct NewestChange: Equatable, Sendable {
    package let clock: HLC
    /// The device that wrote it (its UUID).
    package let device: String
    /// When it was written, as that device's clock said.
    package var time: Date { Date(timeIntervalSince1970: Double(clock.milliseconds) / 1000) }
    /// The same in RFC 3339, UTC.
    package var timestamp: Timestamp { Timestamp(microseconds: clock.milliseconds * 1000, offsetSeconds: 0) }
}

extension Store {
    /// The newest field write this journal holds, from any device; nil for an empty journal.
    /// Kept as writes are made and merged; a store from before this Quire is read once.
    package func newestChange() throws -> NewestChange? {
        if let recorded = try recordedNewestChange() { return recorded }
        return try database.cached("""
            SELECT c.hlc, d.id FROM field_clocks c JOIN devices d ON d.num = c.device ORDER BY c.hlc DESC LIMIT 1
            """).first { NewestChange(clock: HLC(rawValue: $0.int(0)), device: $0.text(1)) }
    }

    /// The newest write as kept in `meta`; nil where none was kept yet.
    func recordedNewestChange() throws -> NewestChange? {
        guard let text = try meta("newest_change"), let space = text.firstIndex(of: " "), let raw = Int64(text[..<space]) else { return nil }
        return NewestChange(clock: HLC(rawValue: raw), device: String(text[text.index(after: space)...]))
    }

    /// Keeps the newest write after a transaction that wrote or merged `write`. Where none
    /// was kept (a new store, or one from before this Quire), it is read from the clocks,
    /// this transaction's included, and kept: compared with `write` alone it would never be
    /// kept (the clocks hold `write` itself), and every later merge would sort every clock.
    func keepNewestChange(_ write: (clock: HLC, device: String)) throws {
        let newest: NewestChange?
        if let recorded = try recordedNewestChange() {
            newest = write.clock > recorded.clock ? NewestChange(clock: write.clock, device: write.device) : nil
        } else {
            newest = try newestChange()
        }
        if let newest { try setMeta("newest_change", "\(newest.clock.rawValue) \(newest.device)") }
    }
}

extension Store {
    /// Throws away what a restore brought in that the caller refused (`restore
    /// --not-before`): the store was new or empty when it began, so nothing else is lost.
    /// With `removingFolder`, the store's folder goes too; else its files, so the folder is
    /// as empty as it was. The store must not be used afterwards (its files are gone; the open
    /// connection writes only to what was unlinked).
    package func discardRestored(removingFolder: Bool) throws {
        guard try restoringFrom() != nil else { return }
        restoreIndex = nil  // its file goes with it
        if removingFolder { try FileManager.default.removeItem(atPath: folder); return }
        // The master key a restore keeps once it unlocked (`KeyCache`) and its lock go too.
        for name in [Self.databaseName, Self.databaseName + "-wal", Self.databaseName + "-shm", "blobs", "repository.key", "sync.lock"] {
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }
}

extension Store {
    /// How often a sync looks at the server for this device's own objects it may have lost
    /// (two listings), beside noticing a lost head on every sync at no cost.
    package static let selfCheckInterval: TimeInterval = 24 * 3600

    /// True when the daily look for lost objects is due. The first time (a new device, or one
    /// from before this Quire) it only starts the count.
    package func selfCheckIsDue(now: Date) throws -> Bool {
        guard try (syncLog(deviceID)?.seq ?? 0) > 0 else { return false }
        guard let text = try meta("self_check"), let last = Double(text) else {
            try recordSelfCheck(at: now)
            return false
        }
        return now.timeIntervalSince1970 - last >= Self.selfCheckInterval || now.timeIntervalSince1970 < last
    }

    package func recordSelfCheck(at time: Date) throws {
        try database.transaction { try setMeta("self_check", String(time.timeIntervalSince1970)) }
    }
}
