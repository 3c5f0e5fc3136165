import CSQLite
import Foundation

/// A prepared statement. Values are bound by position (1-based) and read by column (0-based).
final class Statement {
    private let handle: OpaquePointer
    private unowned let database: Database

    init(database: Database, sql: String) throws {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw StoreError.sqlite(rc, message: String(cString: sqlite3_errmsg(database.handle)) + " in: \(sql)", path: database.path, systemErrno: sqlite3_system_errno(database.handle))
        }
        self.handle = statement
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `values` in order, replacing earlier bindings.
    @discardableResult
    func bind(_ values: [SQLValue]) throws -> Statement {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
            case .real(let v): rc = sqlite3_bind_double(handle, index, v)
            case .text(let v):
                // By its byte length, not to its first NUL: a text holding U+0000 is kept whole
                // (the lossless interchange must give back what it took).
                var text = v
                rc = text.withUTF8 { bindText(index, $0) }
            case .blob(let v):
                rc = v.withUnsafeBytes { sqlite3_bind_blob64(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64($0.count), quire_sqlite_transient()) }
            }
            try database.check(rc)
        }
        return self
    }

    /// Binds UTF-8 `bytes` as text by their length (SQLite copies them).
    private func bindText(_ index: Int32, _ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        bytes.withMemoryRebound(to: CChar.self) { chars in
            sqlite3_bind_text(handle, index, chars.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(chars.count), quire_sqlite_transient())
        }
    }

    /// Steps once; returns true while a row is available.
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let message = String(cString: sqlite3_errmsg(database.handle))
        sqlite3_reset(handle)
        throw StoreError.sqlite(rc, message: message, path: database.path, systemErrno: sqlite3_system_errno(database.handle))
    }

    /// Runs the statement to completion, ignoring rows.
    func run(_ values: [SQLValue] = []) throws {
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Calls `row` for each result row.
    func forEach(_ values: [SQLValue] = [], _ row: (Statement) throws -> Void) throws {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() { try row(self) }
    }

    func rows<T>(_ values: [SQLValue] = [], _ map: (Statement) throws -> T) throws -> [T] {
        var result: [T] = []
        try forEach(values) { result.append(try map($0)) }
        return result
    }

    func first<T>(_ values: [SQLValue] = [], _ map: (Statement) throws -> T) throws -> T? {
        try bind(values)
        defer { sqlite3_reset(handle) }
        return try step() ? try map(self) : nil
    }

    /// How many columns a row of this statement has.
    var columnCount: Int32 { sqlite3_column_count(handle) }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    func int(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }

    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }

    /// A text column's UTF-8 bytes as they are stored (empty for NULL).
    func bytes(_ column: Int32) -> [UInt8] {
        guard let bytes = sqlite3_column_text(handle, column) else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))))
    }

    /// Runs the statement with `first` and then `texts` (UTF-8 bytes, each bound whole) as its parameters.
    func run(_ first: Int64, texts: [[UInt8]]) throws {
        sqlite3_reset(handle)
        try database.check(sqlite3_bind_int64(handle, 1, first))
        for (offset, text) in texts.enumerated() {
            try database.check(text.withUnsafeBufferPointer { bindText(Int32(offset + 2), $0) })
        }
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Runs the statement once for each row `rows` steps to, its columns bound as they are
    /// (type and bytes): rows copied between two connections' tables of the same columns.
    func run(eachRowOf rows: Statement) throws {
        let columns = rows.columnCount
        defer { sqlite3_reset(rows.handle) }
        while try rows.step() {
            sqlite3_reset(handle)
            for column in 0..<columns {
                try database.check(sqlite3_bind_value(handle, column + 1, sqlite3_column_value(rows.handle, column)))
            }
            while try step() {}
        }
        sqlite3_reset(handle)
    }

    func data(_ column: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, column)))
    }
}

/// A value bound to a statement.
enum SQLValue: Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

extension SQLValue {
    init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    init(_ value: Double?) { self = value.map { .real($0) } ?? .null }
    init(_ value: Bool) { self = .integer(value ? 1 : 0) }
    init(_ value: Int) { self = .integer(Int64(value)) }
}
