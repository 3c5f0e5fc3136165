import Foundation

/// One numbered SQL file from the top-level `migrations/` folder, carried in the binary.
struct Migration: Sendable {
    /// The file stem, e.g. `0001_create_journal`: the migration's permanent id.
    let id: String
    let sql: String

    /// Every embedded migration, in order.
    static let all: [Migration] = EmbeddedMigrations.base64
        .filter { $0.key.hasSuffix(".sql") && !$0.key.contains("/") }
        .compactMap { name, encoded in
            guard let data = Data(base64Encoded: encoded) else { return nil }
            return Migration(id: String(name.dropLast(4)), sql: String(decoding: data, as: UTF8.self))
        }
        .sorted { $0.id < $1.id }
}

/// Applies migrations in order, each in its own immediate transaction, and records their ids
/// in `schema_migrations`; `PRAGMA user_version` mirrors the count so a newer store is
/// recognised before anything is touched.
struct Migrator {
    let database: Database
    let migrations: [Migration]

    /// The number of migrations this store has applied (its `user_version`).
    func appliedCount() throws -> Int {
        let statement = try database.prepare("PRAGMA user_version")
        return Int(try statement.first { $0.int(0) } ?? 0)
    }

    /// Refuses a store written by a newer Quire, without changing it.
    func checkNotNewer() throws {
        let applied = try appliedCount()
        guard applied <= migrations.count else {
            throw StoreError(.newerSchema, path: database.path,
                             detail: "written by a newer Quire (schema version \(applied), this Quire knows \(migrations.count))")
        }
        if applied > 0 {
            let known = Set(migrations.map(\.id))
            let ids = try database.prepare("SELECT id FROM schema_migrations").rows { $0.text(0) }
            if let unknown = ids.first(where: { !known.contains($0) }) {
                throw StoreError(.newerSchema, path: database.path, detail: "written by a newer Quire (unknown migration \(unknown))")
            }
        }
    }

    /// Applies every migration not yet applied, up to `limit` in total. Each step re-reads
    /// the version inside its transaction, so two processes opening a new store agree. A new
    /// store takes all of them in one transaction: the log then holds each page once (0.6 MB
    /// at 16 KiB pages), where one transaction each wrote the search table's pages again for
    /// every migration that rebuilt it (1.5 MB, more than the store itself).
    func migrate(limit: Int? = nil) throws {
        try checkNotNewer()
        let target = min(limit ?? migrations.count, migrations.count)
        if try appliedCount() == 0, target > 0 {
            try database.transaction {
                while try applyNext(upTo: target) {}
            }
        }
        while try appliedCount() < target {
            try database.transaction { _ = try applyNext(upTo: target) }
        }
    }

    /// Applies the next migration, inside the caller's transaction; false when `target` are applied.
    private func applyNext(upTo target: Int) throws -> Bool {
        let applied = try appliedCount()
        guard applied < target else { return false }
        let migration = migrations[applied]
        try database.execute("CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied TEXT NOT NULL) WITHOUT ROWID")
        try database.execute(migration.sql)
        try database.prepare("INSERT INTO schema_migrations (id, applied) VALUES (?, ?)")
            .run([.text(migration.id), .text(Timestamp.now().text)])
        try database.execute("PRAGMA user_version = \(applied + 1)")
        return true
    }
}
