import CSQLite

/// SQL functions Quire's schema uses, registered on every connection before migrations run.
extension Database {
    /// `quire_plain(markdown)`: the words of an entry's text (`PlainText.of`), what search
    /// indexes and shows in snippets, so a snippet reads as text, not as `![](quire:media/…)`.
    func registerFunctions() throws {
        let rc = sqlite3_create_function_v2(handle, "quire_plain", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil,
                                            { context, count, arguments in
            guard count == 1, let argument = arguments?[0], let text = sqlite3_value_text(argument) else {
                sqlite3_result_text(context, "", 0, quire_sqlite_transient())
                return
            }
            let length = Int(sqlite3_value_bytes(argument))
            let plain = PlainText.of(utf8: UnsafeBufferPointer(start: text, count: length))
            plain.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) {
                    guard let start = $0.baseAddress else { return sqlite3_result_text(context, "", 0, quire_sqlite_transient()) }
                    sqlite3_result_text(context, start, Int32($0.count), quire_sqlite_transient())
                }
            }
        }, nil, nil, nil)
        try check(rc)
    }
}
