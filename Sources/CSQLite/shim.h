#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro that Swift cannot import.
static inline sqlite3_destructor_type quire_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_db_config is variadic: one typed wrapper for the int-flag form.
static inline int quire_sqlite_db_config_int(sqlite3 *db, int op, int value) {
    int out = 0;
    return sqlite3_db_config(db, op, value, &out);
}

// sqlite3_config is variadic: the one setting Quire makes, before SQLite initializes (after
// that it answers SQLITE_MISUSE and changes nothing).
static inline int quire_sqlite_config_memstatus(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}

// The FTS5 extension API, fetched the documented way ("SELECT fts5(?1)" with a bound pointer).
static inline fts5_api *quire_fts5_api(sqlite3 *db) {
    fts5_api *api = 0;
    sqlite3_stmt *stmt = 0;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, 0) != SQLITE_OK) return 0;
    sqlite3_bind_pointer(stmt, 1, (void *)&api, "fts5_api_ptr", 0);
    sqlite3_step(stmt);
    sqlite3_finalize(stmt);
    return api;
}
