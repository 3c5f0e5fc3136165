import Foundation
import Testing
@testable import QuireStore

@Suite struct MigrationTests {
    /// The schema as SQLite describes it, in a stable order.
    func schema(_ store: Store) throws -> [String] {
        try store.database.prepare("SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name")
            .rows { "\($0.text(0)) \($0.text(1)) \($0.text(2)) \($0.text(3))" }
    }

    @Test func migrationsAreEmbeddedAndOrdered() {
        let ids = Migration.all.map(\.id)
        #expect(ids.count >= 2)
        #expect(ids == ids.sorted())
        #expect(ids.first == "0001_create_journal")
    }

    @Test func upgradingFromEveryOlderVersionGivesTheFreshSchema() throws {
        let dir = TempDir()
        let fresh = try makeStore(dir, name: "fresh")
        let expected = try schema(fresh)
        for version in 0..<Migration.all.count {
            let name = "v\(version)"
            do {
                let old = try makeStore(dir, name: name, migrationLimit: version)
                #expect(try old.appliedMigrations().count == version)
                if version >= 1 {
                    // Data written at the old version survives and becomes searchable.
                    try old.database.execute("""
                        INSERT INTO journals (id, name) VALUES ('j', 'Old');
                        INSERT INTO entries (id, journal_id, title, body, created, created_us, modified)
                        VALUES ('e', 'j', 'Старая запись', 'written before search existed', '2020-01-01T00:00:00Z', 1577836800000000, '2020-01-01T00:00:00Z');
                        """)
                }
            }
            let upgraded = try Store(folder: dir.path + "/" + name)
            #expect(try schema(upgraded) == expected, "upgrade from version \(version)")
            #expect(try upgraded.appliedMigrations() == Migration.all.map(\.id))
            if version >= 1 {
                #expect(try upgraded.search("записи").map(\.id) == ["e"])
            }
        }
    }

    /// Stores exactly as older Quires left them, checked in (Fixtures/make-schema-fixture.py).
    @Test(arguments: [1])
    func checkedInFixturesUpgradeToTheFreshSchema(version: Int) throws {
        let dir = TempDir()
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(String(format: "Fixtures/schema-%04d.sqlite", version))
        try FileManager.default.createDirectory(atPath: dir.path + "/old", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture.path, toPath: dir.path + "/old/journal.sqlite")
        let upgraded = try Store(folder: dir.path + "/old")
        let fresh = try makeStore(dir, name: "fresh")
        #expect(try schema(upgraded) == schema(fresh))
        #expect(try upgraded.appliedMigrations() == Migration.all.map(\.id))
        #expect(upgraded.deviceID == "11111111-2222-4333-8444-555555555555")
        let entry = try #require(try upgraded.entry(id: "e1"))
        #expect(entry.title == "Старая запись" && entry.tags == ["архив"] && entry.media.first?.transcript == "голосовая заметка о поездке")
        #expect(try upgraded.search("поездки").map(\.id) == ["e1"])  // transcripts indexed on upgrade
        #expect(try upgraded.search("東京").map(\.id) == ["e1"])
        #expect(try upgraded.integrityCheck() == "ok")
    }

    @Test func aStoreFromANewerQuireIsRefusedUntouched() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        try store.add(NewEntry(title: "keep me"))
        try store.database.execute("PRAGMA user_version = 99")
        let folder = store.folder
        let path = folder + "/journal.sqlite"
        try store.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            _ = try Store(folder: folder)
        } throws: { ($0 as? StoreError)?.kind == .newerSchema }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func anUnknownMigrationIdIsRefused() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        try store.database.execute("INSERT INTO schema_migrations (id, applied) VALUES ('0000_from_the_future', 'x')")
        #expect {
            _ = try Store(folder: store.folder)
        } throws: { ($0 as? StoreError)?.kind == .newerSchema }
    }

    @Test func garbageInsteadOfADatabaseIsUnreadable() throws {
        let dir = TempDir()
        _ = dir.file("store/journal.sqlite", String(repeating: "not a database ", count: 100))
        #expect {
            _ = try Store(folder: dir.path + "/store")
        } throws: { ($0 as? StoreError)?.kind == .unreadable }
        #expect(dir.read("store/journal.sqlite").hasPrefix("not a database"))
    }

    @Test func aFolderWithOtherFilesIsNotTurnedIntoAStore() throws {
        let dir = TempDir()
        _ = dir.file("home/notes.txt", "mine")
        #expect(throws: StoreError.self) { _ = try Store(folder: dir.path + "/home", options: .init(create: true)) }
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/home/journal.sqlite"))
    }

    @Test func storeFilesArePrivate() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        let attributes = try FileManager.default.attributesOfItem(atPath: store.folder + "/journal.sqlite")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: store.folder)
        #expect((folder[.posixPermissions] as? Int) == 0o700)
        #expect(try store.integrityCheck() == "ok")
    }
}
