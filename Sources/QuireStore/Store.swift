import Foundation

/// A journal store: a folder holding `journal.sqlite` (WAL) and `blobs/`.
/// Not thread-safe: use one `Store` per thread (SQLite handles other processes).
public final class Store {
    package struct Options: Sendable {
        /// Create the folder and database when missing.
        package var create: Bool
        /// How long to wait for another process's write lock before failing as `.busy`.
        package var busyTimeoutMilliseconds: Int32
        package var clock: WallClock
        /// SQLite page cache. Small keeps sync and restore within their memory budget; a bulk
        /// import asks for more so a large transaction does not spill pages mid-way.
        package var cacheMebibytes: Int = 16
        /// Open the store for reading alone when this process may not write it (a backup
        /// copy, a mounted snapshot, another user's files); a store it may write opens as usual.
        /// Writing to a store opened so fails as `.readOnly`.
        package var readOnlyIfUnwritable = false
        /// Tests only: stop after this many migrations, to build an older schema.
        var migrationLimit: Int?

        package init(create: Bool = false, busyTimeoutMilliseconds: Int32 = 5000) {
            self.create = create
            self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            self.clock = .system
        }

        /// Tests: a store whose clock they turn.
        package init(create: Bool = false, clock: WallClock) {
            self.init(create: create)
            self.clock = clock
        }
    }

    package let folder: String
    package let blobs: BlobStore
    public let deviceID: String
    /// Opened for reading alone (`Options.readOnlyIfUnwritable`).
    package let isReadOnly: Bool
    /// This device's row in `devices`, used in `field_clocks.device`.
    let deviceNumber: Int64
    let database: Database
    let clock: WallClock
    /// A new restore's search index, built beside its merges (`RestoreIndex`).
    var restoreIndex: RestoreIndex?

    package static let databaseName = "journal.sqlite"

    /// The page size of a store made new (one made before keeps its own). SQLite's 4 KiB
    /// wrote a 100,000-entry import's 430 MB in 4 KiB `pwrite`s, a sixth of the importing
    /// thread, and split the random inserts of its clocks four times as often; 16 KiB pages
    /// took the import from 7.9 to 6.8 s (six alternating pairs, `farm-bench`), system time
    /// from 1.8 to 0.8 s. 8 KiB was 2 % slower than 16, 32 KiB the same, 64 KiB 12 % slower.
    static let pageSize = 16384
    /// SQLite copies the write-ahead log into the database once it holds this much (its
    /// default, 1000 pages of 4 KiB), whatever the store's page size.
    static let checkpointEvery = 4 << 20

    /// Opens the store in `folder`, creating it when `options.create` is set, and upgrades
    /// its schema. A store written by a newer Quire is refused before anything is changed.
    /// - Throws: `StoreError` `.unreadable` (no store, not a database, permissions),
    ///   `.newerSchema`, `.busy`.
    package init(folder: String, options: Options = Options()) throws {
        let folder = (folder as NSString).standardizingPath
        let databasePath = folder + "/" + Self.databaseName
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        let exists = manager.fileExists(atPath: folder, isDirectory: &isFolder)
        if exists && !isFolder.boolValue {
            throw StoreError(.unreadable, path: folder, detail: "not a folder")
        }
        let hasDatabase = manager.fileExists(atPath: databasePath)
        if !hasDatabase {
            guard options.create else {
                throw StoreError(.unreadable, path: folder, detail: "no journal here yet")
            }
            // Only an empty or missing folder becomes a store, never someone's home folder.
            if exists, let contents = try? manager.contentsOfDirectory(atPath: folder),
               contents.contains(where: { !$0.hasPrefix(".") && $0 != "blobs" }) {
                throw StoreError(.unreadable, path: folder, detail: "folder is not empty and holds no Quire store")
            }
            try FileIO.makeFolder(folder)
            // An existing empty folder keeps the mode it had (0755, say): a journal is the
            // owner's alone.
            guard chmod(folder, 0o700) == 0 else { throw StoreError(.io, path: folder, detail: FileIO.errnoText()) }
        }
        // A reader opens read-only where it may not write, and where the disk is full: SQLite
        // could not even make its shared-memory file there, and reading needs nothing written.
        let readOnly = hasDatabase && options.readOnlyIfUnwritable
            && (access(folder, W_OK) != 0 || access(databasePath, W_OK) != 0 || FileIO.freeBytes(folder).map { $0 < 1 << 20 } == true)
        let database = try Database(path: databasePath, create: !hasDatabase, readOnly: readOnly,
                                    busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
        if !hasDatabase { chmod(databasePath, 0o600) }
        if !hasDatabase { try database.execute("PRAGMA page_size = \(Self.pageSize)") }
        let migrator = Migrator(database: database, migrations: Migration.all)
        // Reading the header first: a foreign file fails here as "not a database", and a
        // newer store is refused before any pragma or migration writes to it.
        try migrator.checkNotNewer()
        if readOnly {
            guard try migrator.appliedCount() == Migration.all.count else {
                throw StoreError(.readOnly, path: folder, detail: "this store was written by an older Quire and needs an upgrade, "
                                 + "which cannot be written here; open it once where it may be written, or copy it")
            }
            try database.execute("PRAGMA foreign_keys = ON; PRAGMA cache_size = -\(max(2, options.cacheMebibytes) * 1024)")
        } else {
            try database.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -\(max(2, options.cacheMebibytes) * 1024)")
        }
        try database.configure(Database.defensiveOption, 1)
        try QuireTokenizer.register(on: database)
        try database.registerFunctions()
        if !readOnly {
            try migrator.migrate(limit: options.migrationLimit)
            // A new store's migrations leave their pages in the log (0.6 MB of it at 16 KiB
            // pages): copied into the database now, so a new store is its file alone.
            if !hasDatabase { try database.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
            try database.execute("PRAGMA wal_autocheckpoint = \(try database.pages(of: Self.checkpointEvery))")
        }

        self.folder = folder
        self.database = database
        self.clock = options.clock
        self.isReadOnly = readOnly
        self.blobs = BlobStore(root: folder + "/blobs")
        if !readOnly { try FileIO.makeFolder(folder + "/blobs") }
        (self.deviceID, self.deviceNumber) = try Self.ensureDevice(database, limit: options.migrationLimit, readOnly: readOnly)
    }

    /// This store's device id, made on first use (two processes racing agree on one).
    private static func ensureDevice(_ database: Database, limit: Int?, readOnly: Bool) throws -> (String, Int64) {
        if let limit, limit == 0 { return ("", 0) }
        let read = try database.prepare("SELECT d.id, d.num FROM meta m JOIN devices d ON d.id = m.value WHERE m.key = 'device_id'")
        if let found = try read.first([], { ($0.text(0), $0.int(1)) }) { return found }
        if readOnly { return ("", 0) }
        let id = UUID().uuidString.lowercased()
        try database.transaction {
            try database.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('device_id', ?)").run([.text(id)])
            try database.execute("INSERT OR IGNORE INTO devices (id) SELECT value FROM meta WHERE key = 'device_id'")
        }
        guard let found = try read.first([], { ($0.text(0), $0.int(1)) }) else {
            throw StoreError(.database, path: database.path, detail: "cannot record this device")
        }
        return found
    }

    /// Refuses to write once a newer Quire has upgraded the store under this one (a `sync
    /// --watch` started before the upgrade): its migration may have rebuilt the search index
    /// with a tokenizer this Quire does not have, and rows written with the old one would
    /// be terms FTS5 cannot find or take out again.
    /// - Throws: `.newerSchema`.
    package func checkSchemaIsOurs() throws {
        guard let version = try database.cached("PRAGMA user_version").first([], { $0.int(0) }),
              version > Migration.all.count else { return }
        throw StoreError(.newerSchema, path: database.path,
                         detail: "upgraded by a newer Quire (schema version \(version)) while this one ran; run quire again")
    }

    /// Ids of the migrations applied to this store, in order.
    func appliedMigrations() throws -> [String] {
        guard try Migrator(database: database, migrations: Migration.all).appliedCount() > 0 else { return [] }
        return try database.prepare("SELECT id FROM schema_migrations ORDER BY id").rows { $0.text(0) }
    }

    /// `PRAGMA integrity_check`: "ok" for a healthy database.
    func integrityCheck() throws -> String {
        try database.prepare("PRAGMA integrity_check").rows { $0.text(0) }.joined(separator: "; ")
    }

    // MARK: - Clock

    func meta(_ key: String) throws -> String? {
        try database.cached("SELECT value FROM meta WHERE key = ?").first([.text(key)]) { $0.text(0) }
    }

    func setMeta(_ key: String, _ value: String) throws {
        try database.cached("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
            .run([.text(key), .text(value)])
    }

    /// The last clock value this store issued or received.
    package func lastClock() throws -> HLC {
        HLC(rawValue: Int64(try meta("hlc") ?? "0") ?? 0)
    }

    // MARK: - Writing

    /// Runs `body` in one immediate transaction with a fresh clock value for its changes.
    /// If `body` throws, nothing it wrote remains, field clocks included, and blob files it
    /// added are removed again.
    func write<T>(deferred: Bool = false, _ body: (Writer) throws -> T) throws -> T {
        let writer = Writer(store: self)
        let result: T
        do {
            result = try database.transaction(deferred: deferred) {
                try checkSchemaIsOurs()
                let result = try body(writer)
                try writer.refreshSearch()
                // The clock moves past everything issued here or received from elsewhere.
                let newest = [writer.issuedClock, writer.receivedClock].compactMap { $0 }.max()
                if let newest, newest > (try lastClock()) { try setMeta("hlc", String(newest.rawValue)) }
                let write = [writer.issuedClock.map { ($0, deviceID) }, writer.newestMerged].compactMap { $0 }.max { $0.0 < $1.0 }
                if let write { try keepNewestChange(write) }
                return result
            }
        } catch {
            restoreIndex?.spoiled = true  // it may hold rows of the transaction rolled back
            // Blob files this transaction brought in and nothing needs go again.
            for blob in writer.newBlobs where (try? isBlobNeeded(blob)) == false { blobs.remove(blob) }
            throw error
        }
        // Files of blobs this transaction left unneeded go now (a crash here leaves them to
        // `collectUnneededBlobFiles`).
        try? removeFreedBlobFiles(writer.freedBlobs)
        return result
    }
}
