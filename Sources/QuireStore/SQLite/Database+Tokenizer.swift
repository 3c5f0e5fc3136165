import CSQLite

/// Registers `QuireTokenizer` with FTS5 on a connection as the tokenizer named `quire`, and
/// the auxiliary function `quire_hits`.
extension QuireTokenizer {
    static func register(on database: Database) throws {
        guard let api = quire_fts5_api(database.handle) else {
            throw StoreError(.database, path: database.path, detail: "this SQLite has no FTS5")
        }
        var tokenizer = fts5_tokenizer(
            xCreate: { userData, _, _, out in
                // The tokenizer instance is the connection's word cache.
                out?.pointee = OpaquePointer(userData)
                return SQLITE_OK
            },
            xDelete: { _ in },
            xTokenize: { instance, context, flags, text, length, callback in
                guard let callback, let instance else { return SQLITE_ERROR }
                let cache = Unmanaged<QuireTokenizer.Cache>.fromOpaque(UnsafeRawPointer(instance)).takeUnretainedValue()
                guard let text, length > 0 else { return SQLITE_OK }
                let mode: QuireTokenizer.Mode = flags & FTS5_TOKENIZE_PREFIX != 0 ? .prefix
                    : flags & FTS5_TOKENIZE_QUERY != 0 ? .query : .document
                let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: Int(length))
                let emit = { (token: UnsafeBufferPointer<UInt8>, start: Int, end: Int, colocated: Bool) -> Int32 in
                    token.withMemoryRebound(to: CChar.self) { t in
                        callback(context, colocated ? FTS5_TOKEN_COLOCATED : 0, t.baseAddress, Int32(t.count), Int32(start), Int32(end))
                    }
                }
                if mode == .document, let feed = cache.feed, let rc = feed.replay(bytes, emit: emit) { return rc }
                return QuireTokenizer.tokenize(bytes, mode: mode, cache: cache, emit: emit)
            }
        )
        // The connection owns the cache; SQLite holds it unretained for the connection's life.
        let cache = Unmanaged.passUnretained(database.tokenizerCache).toOpaque()
        let rc = api.pointee.xCreateTokenizer(api, "quire", cache, &tokenizer, nil)
        try database.check(rc)
        // `quire_hits(search)`: how many times the row matched, so a search asks FTS5's
        // snippet only of a row it can make one for (`Store.snippets`).
        let hits: fts5_extension_function = { api, fts, context, _, _ in
            var count: Int32 = 0
            guard let instances = api?.pointee.xInstCount, instances(fts, &count) == SQLITE_OK else {
                sqlite3_result_null(context)
                return
            }
            sqlite3_result_int64(context, Int64(count))
        }
        try database.check(api.pointee.xCreateFunction(api, "quire_hits", nil, hits, nil))
    }
}
