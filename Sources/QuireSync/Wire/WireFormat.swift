import Foundation
import QuireStore

/// The versioned JSON objects of the repository (segments, snapshot headers, heads): each
/// carries a format number, written and checked here and nowhere else. A reader meets an
/// object of a format it does not know as one clear error ("written by a newer Quire"),
/// never as a misread; an object from before format numbers reads as `unnumbered`.
struct WireFormat: Sendable {
    /// What a person calls it, for errors.
    let name: String
    /// The newest format this Quire reads (and the one it writes unless told otherwise).
    let newest: Int
    /// The format an object without a number has (nil: the number is required).
    let unnumbered: Int?

    static let segment = WireFormat(name: "change-log segment", newest: 2, unnumbered: nil)
    static let snapshot = WireFormat(name: "snapshot", newest: 1, unnumbered: nil)
    static let head = WireFormat(name: "head", newest: 1, unnumbered: 1)

    /// `members` with the format number, as compact JSON.
    func encode(_ members: [String: JSONValue], format: Int? = nil) -> Data {
        var members = members
        members["format"] = .number(Double(format ?? newest))
        return JSONWriter.data(.object(members), compact: true)
    }

    /// The object in `data` (compressed, as format 3 writes it, or not), its format checked.
    /// - Throws: `SyncError.damaged` naming `path`: not a JSON object, no or a bad format
    ///   number, a format newer than this Quire reads, or a compressed object that is damaged
    ///   or expands past its bound.
    func decode(_ data: Data, path: String) throws -> [String: JSONValue] {
        var size = 0
        return try decode(data, path: path, decodedBytes: &size)
    }

    /// The same, saying how many bytes of JSON the object decoded to (what reading it costs).
    func decode(_ data: Data, path: String, decodedBytes: inout Int) throws -> [String: JSONValue] {
        try decode(data, path: path, decodedBytes: &decodedBytes, refusal: nil) { bytes throws(JSONValue.ParseError) in
            try JSONValue.parse(bytes, sharingStrings: true)
        }
    }

    /// The same, handing each row of the array member `key` to `row` as it is read (the
    /// member reads as an empty array): a segment's changes, never held as JSON whole.
    /// - Throws: as `decode`; a row `row` refuses is `damaged` with `refusal`.
    func decode(_ data: Data, path: String, decodedBytes: inout Int, rowsOf key: String, refusal: String,
                row: ([JSONValue]) -> Bool) throws -> [String: JSONValue] {
        try decode(data, path: path, decodedBytes: &decodedBytes, refusal: refusal) { bytes throws(JSONValue.ParseError) in
            try JSONValue.parse(bytes, sharingStrings: true, rowsOf: key, refusal: refusal, row: row)
        }
    }

    /// Decompresses, parses with `parse` and checks the format; a parse that failed with
    /// `refusal` is `damaged` with it, any other is "not JSON".
    private func decode(_ data: Data, path: String, decodedBytes: inout Int, refusal: String?,
                        parse: (UnsafeBufferPointer<UInt8>) throws(JSONValue.ParseError) -> JSONValue) throws -> [String: JSONValue] {
        let data = try WireCompression.decompress(data, path: path)
        decodedBytes = data.count
        let parsed = data.withUnsafeBytes { raw in
            Result { () throws(JSONValue.ParseError) -> JSONValue in try parse(raw.bindMemory(to: UInt8.self)) }
        }
        let object: [String: JSONValue]
        switch parsed {
        case .success(let value):
            guard let o = value.object else { throw damaged(path, "not JSON") }
            object = o
        case .failure(let error):
            throw damaged(path, refusal != nil && error.reason == refusal ? error.reason : "not JSON")
        }
        try check(object, path: path)
        return object
    }

    /// Checks the format number of an already parsed object.
    func check(_ object: [String: JSONValue], path: String) throws {
        guard let raw = object["format"] else {
            guard unnumbered != nil else { throw damaged(path, "no format number") }
            return
        }
        guard let format = raw.integer, format >= 1 else { throw damaged(path, "a bad format number") }
        guard format <= newest else {
            throw SyncError(.damaged, object: path, detail: "a \(name) of format \(format), written by a newer Quire: upgrade Quire")
        }
    }

    private func damaged(_ path: String, _ why: String) -> SyncError {
        SyncError(.damaged, object: path, detail: "not a valid \(name) (\(why))")
    }
}
