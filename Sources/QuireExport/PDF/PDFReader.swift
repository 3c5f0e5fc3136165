import CQPDF
import Foundation

/// A finished PDF read through libqpdf: its pages, trailer, objects and streams, parsed by a
/// real PDF parser rather than found by searching the file's text. Read only: what the book
/// changes afterwards goes into an incremental update (`PDFUpdate`), so a book of 40,000
/// pages is never held or rewritten whole (a full rewrite by qpdf of a 10k-entry book took
/// 177 MB and 1.45 s; reading its page tree takes 13 MB). Objects are read as they are asked
/// for. The only file that talks to libqpdf.
final class PDFReader {
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// A handle on one object, valid while the reader is.
    struct Object {
        fileprivate let handle: qpdf_oh
    }

    private var data: qpdf_data?

    /// Reads the cross-reference table and trailer; a damaged file is not repaired but refused.
    init(path: String) throws {
        var data = qpdf_init()
        qpdf_silence_errors(data)
        qpdf_set_suppress_warnings(data, QPDF_TRUE)
        qpdf_set_attempt_recovery(data, QPDF_FALSE)
        if qpdf_read(data, path, nil) & QPDF_ERRORS != 0 {
            let reason = Self.lastError(data) ?? "unreadable"
            qpdf_cleanup(&data)
            throw Failure(reason: reason)
        }
        self.data = data
    }

    deinit {
        // A reader whose init threw has no data (and qpdf_cleanup takes no null).
        if data != nil { qpdf_cleanup(&data) }
    }

    private static func lastError(_ data: qpdf_data?) -> String? {
        guard qpdf_has_error(data) != QPDF_FALSE, let error = qpdf_get_error(data),
              let text = qpdf_get_error_message_detail(data, error) else { return nil }
        return String(cString: text)
    }

    /// Throws what the last call failed with, if it did.
    private func check() throws {
        if let reason = Self.lastError(data) { throw Failure(reason: reason) }
    }

    /// Runs `body`, then lets go of every handle it made. qpdf's C interface keeps each
    /// handle it gives out until it is released, so walking a 4,600-page book's resources
    /// held 34 MB of them; a walk page by page in a scope holds one page's. Handles are
    /// numbered in the order they are made, so those made inside are the ones between two
    /// fresh handles. No object from inside may be used after.
    func scoped<T>(_ body: () throws -> T) rethrows -> T {
        let first = qpdf_oh_new_null(data)
        defer {
            let last = qpdf_oh_new_null(data)
            if last > first { for handle in first...last { qpdf_oh_release(data, handle) } }
        }
        return try body()
    }

    var trailer: Object { Object(handle: qpdf_get_trailer(data)) }
    var root: Object { Object(handle: qpdf_get_root(data)) }

    /// The pages in reading order (the page tree flattened, as qpdf reads it).
    func pages() throws -> [Object] {
        let count = qpdf_get_num_pages(data)
        try check()
        guard count >= 0 else { throw Failure(reason: "no page tree") }
        return try (0..<Int(count)).map { index in
            let page = qpdf_get_page_n(data, index)
            try check()
            return Object(handle: page)
        }
    }

    /// The pages as the page tree's root lists them, each read only when asked for: for a
    /// tree of one level, as cairo writes; else all of them, flattened (`pages`).
    func pagesListed() throws -> [Object] {
        if let tree = value("Pages", in: root), let kids = value("Kids", in: tree) {
            let listed = items(of: kids)
            if listed.count == value("Count", in: tree).flatMap(integer) { return listed }
        }
        return try pages()
    }

    /// A dictionary, or a stream's dictionary; nil for anything else.
    private func dictionary(_ object: Object) -> qpdf_oh? {
        let target = isStream(object) ? qpdf_oh_get_dict(data, object.handle) : object.handle
        return qpdf_oh_is_dictionary(data, target) != QPDF_FALSE ? target : nil
    }

    /// The value of `key` in a dictionary or a stream's dictionary; nil when absent or null.
    func value(_ key: String, in object: Object) -> Object? {
        guard let target = dictionary(object), qpdf_oh_has_key(data, target, "/" + key) != QPDF_FALSE else { return nil }
        let value = qpdf_oh_get_key(data, target, "/" + key)
        return qpdf_oh_is_null(data, value) != QPDF_FALSE ? nil : Object(handle: value)
    }

    /// The keys of a dictionary (or a stream's dictionary), without their slash.
    func keys(of object: Object) -> [String] {
        guard let target = dictionary(object) else { return [] }
        var keys: [String] = []
        qpdf_oh_begin_dict_key_iter(data, target)
        while qpdf_oh_dict_more_keys(data) != QPDF_FALSE {
            if let key = qpdf_oh_dict_next_key(data) { keys.append(String(String(cString: key).dropFirst())) }
        }
        return keys
    }

    /// How many items an array holds (0 for anything else).
    func count(_ array: Object) -> Int {
        qpdf_oh_is_array(data, array.handle) != QPDF_FALSE ? max(0, Int(qpdf_oh_get_array_n_items(data, array.handle))) : 0
    }

    func items(of array: Object) -> [Object] {
        guard qpdf_oh_is_array(data, array.handle) != QPDF_FALSE else { return [] }
        return (0..<Int32(count(array))).map { Object(handle: qpdf_oh_get_array_item(data, array.handle, $0)) }
    }

    /// The object's number when it is an indirect object of generation 0 (all cairo writes).
    func number(of object: Object) -> Int? {
        guard qpdf_oh_is_indirect(data, object.handle) != QPDF_FALSE, qpdf_oh_get_generation(data, object.handle) == 0 else { return nil }
        let number = Int(qpdf_oh_get_object_id(data, object.handle))
        return number > 0 ? number : nil
    }

    /// Object `number` (generation 0), nil when the file has none.
    func object(_ number: Int) -> Object? {
        let handle = qpdf_get_object_by_id(data, Int32(number), 0)
        return qpdf_oh_is_null(data, handle) != QPDF_FALSE ? nil : Object(handle: handle)
    }

    /// `object` (a dictionary, or a stream's) written again with its `keys` as they are and `entries`.
    func rewritten(_ object: Object, keeping keys: [String], adding entries: String) -> String {
        let fields = keys.compactMap { key in value(key, in: object).map { "/\(key) " + text($0) } }
        return "<< " + (fields + [entries]).joined(separator: "\n   ") + "\n>>"
    }

    func isStream(_ object: Object) -> Bool { qpdf_oh_is_stream(data, object.handle) != QPDF_FALSE }
    func isDictionary(_ object: Object) -> Bool { qpdf_oh_is_dictionary(data, object.handle) != QPDF_FALSE }

    func name(_ object: Object) -> String? {
        guard qpdf_oh_is_name(data, object.handle) != QPDF_FALSE, let name = qpdf_oh_get_name(data, object.handle) else { return nil }
        return String(cString: name)
    }

    func integer(_ object: Object) -> Int? {
        var value: Int64 = 0
        return qpdf_oh_get_value_as_longlong(data, object.handle, &value) != QPDF_FALSE ? Int(value) : nil
    }

    /// A number's value (an integer or a real), or nil when it is not a number.
    func real(_ object: Object) -> Double? {
        var value = 0.0
        return qpdf_oh_get_value_as_number(data, object.handle, &value) != QPDF_FALSE ? value : nil
    }

    /// An array of numbers (a box), or nil when it is not one.
    func numbers(_ array: Object) -> [Double]? {
        let values = items(of: array).map { item -> Double? in
            var value = 0.0
            return qpdf_oh_get_value_as_number(data, item.handle, &value) != QPDF_FALSE ? value : nil
        }
        return values.contains(nil) ? nil : values.compactMap { $0 }
    }

    /// The object written as PDF: an indirect object as its reference (`N 0 R`) unless
    /// `resolved`, then as its value (a stream as its dictionary).
    func text(_ object: Object, resolved: Bool = false) -> String {
        let target = resolved ? dictionary(object) ?? object.handle : object.handle
        guard let text = resolved ? qpdf_oh_unparse_resolved(data, target) : qpdf_oh_unparse(data, target) else { return "null" }
        return String(cString: text)
    }

    /// A stream's data: as stored (`decoded: false`), or with its general filters undone.
    func streamData(_ stream: Object, decoded: Bool) throws -> [UInt8] {
        var buffer: UnsafeMutablePointer<UInt8>?
        var length = 0
        var filtered: QPDF_BOOL = QPDF_FALSE
        let status = qpdf_oh_get_stream_data(data, stream.handle, decoded ? qpdf_dl_generalized : qpdf_dl_none, &filtered, &buffer, &length)
        defer { free(buffer) }
        if status & QPDF_ERRORS != 0 { throw Failure(reason: Self.lastError(data) ?? "an unreadable stream") }
        guard !decoded || filtered != QPDF_FALSE else { throw Failure(reason: "a stream qpdf cannot decode") }
        guard let buffer else { return [] }
        return Array(UnsafeBufferPointer(start: buffer, count: length))
    }
}
