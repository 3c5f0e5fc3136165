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
                if version == 1 {
                    // Data written before search existed survives and becomes searchable.
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
            if version == 1 {
                #expect(try upgraded.search("записи").map(\.id) == ["e"])
            }
        }
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// Writes Fixtures/schema-NNNN.sqlite for QUIRE_WRITE_SCHEMA_FIXTURE=N: a store at version N
    /// with a little data (schema-0001 was first written by an equivalent script). Run once for
    /// version N when the migration after N is added, commit it, and never regenerate it.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["QUIRE_WRITE_SCHEMA_FIXTURE"] != nil))
    func writeSchemaFixture() throws {
        let version = Int(ProcessInfo.processInfo.environment["QUIRE_WRITE_SCHEMA_FIXTURE"] ?? "") ?? 0
        let target = Self.fixtures.appendingPathComponent(String(format: "schema-%04d.sqlite", version)).path
        #expect(!FileManager.default.fileExists(atPath: target), "fixtures are never regenerated")
        let dir = TempDir()
        let store = try makeStore(dir, migrationLimit: version)
        try store.database.execute("""
            INSERT INTO journals VALUES ('j1', 'Journal', 0);
            INSERT INTO entries (id, journal_id, title, body, created, created_us, modified)
            VALUES ('e1', 'j1', 'Старая запись', 'Тексты из прошлого 東京タワー\(version >= 16 ? " 서울에서 ΟΔΟΣ" : "")\(version >= 17 ? " कुल கால்" : "")\(version >= 18 ? " می‌خواهم" : "")\(version >= 19 ? " Swimming with the neighbours" : "")', '2024-05-01T10:00:00+03:00', 1714546800000000, '2024-05-01T10:00:00+03:00');
            INSERT INTO entry_tags VALUES ('e1', 'архив');
            INSERT INTO blobs VALUES ('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 0);
            INSERT INTO media (id, entry_id, kind, blob_id, filename, mime, transcript)
            VALUES ('m1', 'e1', 'voice', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'a.m4a', 'audio/mp4', 'голосовая заметка о поездке');
            INSERT INTO field_clocks (record, record_id, field, hlc, device) VALUES ('entry', 'e1', 'title', 112368000000000000, 1);
            UPDATE meta SET value = '11111111-2222-4333-8444-555555555555' WHERE key = 'device_id';
            UPDATE devices SET id = '11111111-2222-4333-8444-555555555555' WHERE num = 1;
            \(version >= 6 ? "INSERT INTO search (rowid, title, body, transcripts, tags, place) SELECT rowid, title, body, transcripts, tags, place FROM search_source;"
                : "INSERT INTO search (rowid, title, body, transcripts) SELECT rowid, title, body, transcripts FROM search_source;")
            PRAGMA wal_checkpoint(TRUNCATE);
            PRAGMA journal_mode = DELETE;
            """)
        try FileManager.default.copyItem(atPath: store.folder + "/journal.sqlite", toPath: target)
    }

    /// A store whose entry holds two transcripts at one place, taken in another order than
    /// their ids: the upgrade to migration 16 rewrites that entry's search row in the order
    /// the entry shows them, and leaves the others.
    @Test func theUpgradeOrdersAnEntrysTranscriptsLikeItsAttachments() throws {
        let dir = TempDir()
        do {
            let old = try makeStore(dir, name: "old", migrationLimit: 15)
            try old.database.execute("""
                INSERT INTO journals VALUES ('j1', 'Journal', 0);
                INSERT INTO entries (id, journal_id, title, body, created, created_us, modified)
                VALUES ('e1', 'j1', 'берег', '', '2024-05-01T10:00:00+03:00', 1714546800000000, '2024-05-01T10:00:00+03:00'),
                       ('e2', 'j1', 'поле', '', '2024-05-02T10:00:00+03:00', 1714633200000000, '2024-05-02T10:00:00+03:00');
                INSERT INTO blobs VALUES ('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 0);
                INSERT INTO media (id, entry_id, kind, blob_id, transcript)
                VALUES ('m2', 'e1', 'voice', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'ветер воет'),
                       ('m1', 'e1', 'voice', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'чайка кричит'),
                       ('m3', 'e2', 'voice', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'тишина');
                INSERT INTO search (rowid, title, body, transcripts, tags, place) SELECT rowid, title, body, transcripts, tags, place FROM search_source;
                """)
            #expect(try old.database.prepare("SELECT transcripts FROM search WHERE title = 'берег'").first([]) { $0.text(0) } == "ветер воет\nчайка кричит")
        }
        let upgraded = try Store(folder: dir.path + "/old")
        func row(_ title: String) throws -> String? {
            try upgraded.database.prepare("SELECT transcripts FROM search WHERE title = ?").first([.text(title)]) { $0.text(0) }
        }
        #expect(try row("берег") == "чайка кричит\nветер воет")
        #expect(try row("поле") == "тишина")
        #expect(try upgraded.search("чайка").map(\.id) == ["e1"] && upgraded.search("тишина").map(\.id) == ["e2"])
        #expect(try upgraded.database.prepare("SELECT count(*) FROM search").first([]) { $0.int(0) } == 2)
        #expect(try upgraded.integrityCheck() == "ok")
    }

    /// Stores exactly as older Quires left them, checked in (see writeSchemaFixture).
    @Test(arguments: [1, 2, 3, 4, 5, 6, 10, 16, 17, 18, 19])
    func checkedInFixturesUpgradeToTheFreshSchema(version: Int) throws {
        let dir = TempDir()
        let fixture = Self.fixtures.appendingPathComponent(String(format: "schema-%04d.sqlite", version))
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
        #expect(try upgraded.search("архив").map(\.id) == ["e1"], "tags are searched since migration 0006")
        #expect(try upgraded.integrityCheck() == "ok")
        if version >= 16 {
            // Written with the tokenizer before Hangul bigrams and Greek's final sigma: the
            // index is built again (migration 0017), so FTS5 finds its terms where it looks.
            #expect(try upgraded.search("서울").map(\.id) == ["e1"] && upgraded.search("οδός").map(\.id) == ["e1"])
            try upgraded.database.execute("INSERT INTO search(search) VALUES ('integrity-check')")
        }
        if version >= 17 {
            // Written when the Indic scripts lost their nonspacing vowel signs and virama:
            // कुल was indexed as कल (migration 0018 builds the index again).
            #expect(try upgraded.search("कुल").map(\.id) == ["e1"] && upgraded.search("கால்").map(\.id) == ["e1"])
            #expect(try upgraded.search("कल").map(\.id) == [])
        }
        if version >= 18 {
            // Written when a zero-width non-joiner cut a word in two (migration 0019).
            #expect(try upgraded.search("میخواهم").map(\.id) == ["e1"] && upgraded.search("خواهم").map(\.id) == ["e1"])
        }
        if version >= 19 {
            // Written when English words were indexed as written (migration 0020 stems them).
            #expect(try upgraded.search("swim").map(\.id) == ["e1"] && upgraded.search("neighbour").map(\.id) == ["e1"])
            try upgraded.database.execute("INSERT INTO search(search) VALUES ('integrity-check')")
        }
        // A new store's pages are 16 KiB (`Store.pageSize`); one made before keeps its 4 KiB.
        func pageSize(_ store: Store) throws -> Int64? { try store.database.prepare("PRAGMA page_size").first([]) { $0.int(0) } }
        #expect(try pageSize(fresh) == 16384)
        #expect(try pageSize(upgraded) == (version >= 16 ? 16384 : 4096))
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
