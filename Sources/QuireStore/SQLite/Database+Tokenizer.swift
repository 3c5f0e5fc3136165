import CSQLite

/// Registers `QuireTokenizer` with FTS5 on a connection as the tokenizer named `quire`.
extension QuireTokenizer {
    static func register(on database: Database) throws {
        guard let api = quire_fts5_api(database.handle) else {
            throw StoreError(.database, path: database.path, detail: "this SQLite has no FTS5")
        }
        var tokenizer = fts5_tokenizer(
            xCreate: { _, _, _, out in
                // Stateless: any non-null handle will do.
                out?.pointee = OpaquePointer(bitPattern: 1)
                return SQLITE_OK
            },
            xDelete: { _ in },
            xTokenize: { _, context, flags, text, length, callback in
                guard let callback else { return SQLITE_ERROR }
                guard let text, length > 0 else { return SQLITE_OK }
                let mode: QuireTokenizer.Mode = flags & FTS5_TOKENIZE_PREFIX != 0 ? .prefix
                    : flags & FTS5_TOKENIZE_QUERY != 0 ? .query : .document
                let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: Int(length))
                return QuireTokenizer.tokenize(bytes, mode: mode) { token, start, end, colocated in
                    token.withMemoryRebound(to: CChar.self) { t in
                        callback(context, colocated ? FTS5_TOKEN_COLOCATED : 0, t.baseAddress, Int32(t.count), Int32(start), Int32(end))
                    }
                }
            }
        )
        let rc = api.pointee.xCreateTokenizer(api, "quire", nil, &tokenizer, nil)
        try database.check(rc)
    }
}
