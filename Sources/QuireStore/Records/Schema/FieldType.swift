import Foundation

/// What a synced field holds: how its value travels (JSON, in change logs and snapshots),
/// how it is checked when it arrives from another device, and how it sits in SQLite.
/// The conversions live here once, so saving, merging and reading back cannot disagree.
enum FieldType: Equatable, Sendable {
    /// Text in one column.
    case text
    /// An RFC 3339 instant, as text; with a second column, also its microseconds since 1970
    /// (for ordering).
    case instant
    /// true or false.
    case flag
    /// The record's deletion flag: a tombstone, so deletions sync like any other write.
    case tombstone
    /// A whole number (an attachment's place among its entry's).
    case ordinal
    /// Seconds of a recording, or null: 0…10⁹.
    case seconds
    /// `{"lat", "lon", "name"}` or null, in three columns.
    case location
    /// A JSON array of timed transcript pieces, kept as JSON text.
    case segments
    /// One of `MediaKind`'s names.
    case mediaKind
    /// The SHA-256 id of a blob in `blobs/`.
    case blob
    /// The id of a record of another kind; a placeholder row stands in until it arrives.
    case reference(RecordKind)
    /// One tag's presence: a register per tag, kept in `entry_tags` (field "tag:<name>").
    case tag

    /// The SQL values of `value` for this field's columns, or nil when the value is not one
    /// this field can hold (from a damaged or hostile log).
    func sqlValues(_ value: JSONValue, columns: Int) -> [SQLValue]? {
        switch self {
        case .text, .reference:
            return value.string.map { [.text($0)] }
        case .instant:
            guard let s = value.string, let t = Timestamp(rfc3339: s) else { return nil }
            return columns == 2 ? [.text(t.text), .integer(t.microseconds)] : [.text(s)]
        case .flag, .tombstone, .tag:
            return [SQLValue(value == .bool(true))]
        case .ordinal:
            return value.integer.map { [.integer(Int64($0))] }
        case .seconds:
            guard value.isNull || Media.isValidSeconds(value.number) else { return nil }
            return [SQLValue(value.number)]
        case .location:
            if value.isNull { return [.null, .null, .null] }
            guard let o = value.object, let lat = o["lat"]?.number, let lon = o["lon"]?.number else { return nil }
            return [.real(lat), .real(lon), SQLValue(o["name"]?.string)]
        case .segments:
            guard value.array != nil, let segments = try? JSONValue.parseSegments(JSONWriter.value(value)),
                  (try? Store.checkTimings(duration: nil, segments: segments)) != nil else { return nil }
            return [.text(JSONWriter.segments(segments))]
        case .mediaKind:
            guard let s = value.string, MediaKind(name: s) != nil else { return nil }
            return [.text(s)]
        case .blob:
            guard let s = value.string, BlobStore.isValidID(s) else { return nil }
            return [.text(s)]
        }
    }

    /// The field's value from a row whose columns for it start at `column`.
    func value(of row: Statement, at column: Int32) -> JSONValue {
        switch self {
        case .text, .reference, .instant, .mediaKind, .blob:
            return .string(row.text(column))
        case .flag, .tombstone, .tag:
            return .bool(row.int(column) != 0)
        case .ordinal:
            return .number(Double(row.int(column)))
        case .seconds:
            return row.optionalDouble(column).map { .number($0) } ?? .null
        case .location:
            guard let lat = row.optionalDouble(column), let lon = row.optionalDouble(column + 1) else { return .null }
            return .object(["lat": .number(lat), "lon": .number(lon), "name": row.optionalText(column + 2).map { .string($0) } ?? .null])
        case .segments:
            return (try? JSONValue.parse(row.text(column))) ?? .array([])
        }
    }

    /// The value of a field a record has never written (an absent tag, a field it lacks).
    var absentValue: JSONValue { self == .tag ? .bool(false) : .null }
}
