import CSQLite
import Testing
@testable import QuireStore

@Suite struct DatabaseTests {
    /// SQLite's memory statistics take one process-wide mutex on every allocation, which two
    /// connections on two threads (an import and its index built aside) wait on. They are off
    /// before the first connection opens: nothing is counted however much a store allocates.
    @Test func sqliteCountsNoMemoryOnceAStoreIsOpen() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        try store.database.execute("CREATE TEMP TABLE filler (text TEXT); INSERT INTO filler WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) SELECT hex(randomblob(1000)) FROM n")
        #expect(try store.database.prepare("SELECT count(*) FROM temp.filler").first { $0.int(0) } == 100)
        #expect(sqlite3_memory_used() == 0)
        #expect(sqlite3_memory_highwater(0) == 0)
    }
}
