import CSQLite
import Foundation

/// One SQLite connection. With the other files of `SQLite/` (`Statement`, the SQL functions,
/// the FTS5 tokenizer's registration), the only code that talks to SQLite's C API;
/// everything above sees Swift types and `StoreError`.
final class Database {
    let handle: OpaquePointer
    let path: String
    /// How long a statement waits for another connection's lock before failing as `.busy`.
    let busyTimeoutMilliseconds: Int32
    /// Memoised word folding for the full-text tokenizer on this connection.
    let tokenizerCache = QuireTokenizer.Cache()

    /// Opens (or creates, when `create` is true) the database at `path`; with `readOnly`,
    /// for reading alone (see `openReadOnly`).
    /// - Throws: `StoreError` of kind `.unreadable` when the file cannot be opened.
    init(path: String, create: Bool, readOnly: Bool = false, busyTimeoutMilliseconds: Int32) throws {
        let db = readOnly ? try Self.openReadOnly(path) : try Self.open(path, flags: SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
        self.handle = db
        self.path = path
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
    }

    /// SQLite's memory statistics, on by default, take one process-wide mutex on every
    /// allocation and free: two connections writing on two threads (a first import and its
    /// index built aside) waited on each other, 9.8 s for 100,000 entries against 8.1 s
    /// without. Quire reads no statistic, so they are turned off, once, before the first
    /// connection; where the process started SQLite already (an app embedding QuireKit),
    /// SQLite refuses and keeps its own.
    private static let withoutMemoryStatistics: Void = {
        _ = quire_sqlite_config_memstatus(0)
    }()

    private static func open(_ name: String, flags: Int32, path: String? = nil) throws -> OpaquePointer {
        _ = withoutMemoryStatistics
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(name, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw StoreError(.unreadable, path: path ?? name, detail: message, code: rc)
        }
        return db
    }

    /// A store this process may not write (a backup copy, a mounted snapshot, another user's
    /// files): read-only, which in WAL mode works where the `-shm` file exists or can be made.
    /// Where neither (a read-only folder, cleanly closed), the file is opened as immutable,
    /// which is right only while it has no write-ahead log to read: one with a log it cannot
    /// share is refused, with what to do.
    private static func openReadOnly(_ path: String) throws -> OpaquePointer {
        let db = try open(path, flags: SQLITE_OPEN_READONLY)
        if sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nil, nil, nil) == SQLITE_OK { return db }
        sqlite3_close_v2(db)
        let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.intValue ?? 0
        guard log == 0 else {
            throw StoreError(.unreadable, path: path, detail: "cannot be read here: its latest changes are in \(path)-wal, "
                             + "which cannot be read without writing beside it (this user may not write there, or the disk is full); "
                             + "free some space, or copy the store folder somewhere you may write and open the copy")
        }
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#"))) ?? path
        return try open("file:" + encoded + "?immutable=1", flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, path: path)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs one or more SQL statements without results.
    func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw StoreError.sqlite(rc, message: message, path: path, systemErrno: sqlite3_system_errno(handle))
        }
    }

    func prepare(_ sql: String) throws -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// Cached prepared statements, keyed by their SQL text.
    private var cache: [String: Statement] = [:]

    func cached(_ sql: String) throws -> Statement {
        if let statement = cache[sql] {
            statement.reset()
            return statement
        }
        let statement = try prepare(sql)
        cache[sql] = statement
        return statement
    }

    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`; rolls back if it throws.
    /// `deferred`: `BEGIN` alone, each database locked when first written (`BEGIN IMMEDIATE`
    /// locks every attached one), for a caller that alone has the store open.
    func transaction<T>(deferred: Bool = false, _ body: () throws -> T) throws -> T {
        try execute(deferred ? "BEGIN" : "BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    func check(_ rc: Int32) throws {
        if rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW {
            throw StoreError.sqlite(rc, message: String(cString: sqlite3_errmsg(handle)), path: path, systemErrno: sqlite3_system_errno(handle))
        }
    }

    /// Sets an int `sqlite3_db_config` option (the C function is variadic).
    func configure(_ option: Int32, _ value: Int32) throws {
        try check(quire_sqlite_db_config_int(handle, option, value))
    }

    static let defensiveOption = SQLITE_DBCONFIG_DEFENSIVE
}
