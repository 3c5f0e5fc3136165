import QuireStore

/// One field write as the repository keeps it, in segments and snapshots alike: eight values,
/// record kind, record id, field, value, clock, writer, previous clock, previous writer, the
/// clocks as decimal text (they do not fit a JSON number's 53-bit mantissa). Written and
/// checked here and nowhere else, so the two readers cannot drift apart.
enum ChangeRow {
    static func encode(_ c: SyncChange) -> JSONValue {
        .array([.string(c.record.rawValue), .string(c.recordID), .string(c.field), c.value, .string(String(c.hlc.rawValue)),
                .string(c.device), .string(String(c.previousHLC.rawValue)), .string(c.previousDevice)])
    }

    /// The change a row holds; nil when it is not one: another shape, a record kind this Quire
    /// does not know, a clock that is not after the epoch, or a previous clock below zero.
    static func decode(_ row: JSONValue) -> SyncChange? {
        row.array.flatMap(decode)
    }

    /// The same, of a row's values.
    static func decode(_ r: [JSONValue]) -> SyncChange? {
        guard r.count == 8, let kind = r[0].string.flatMap(RecordKind.init(rawValue:)),
              let id = r[1].string, let field = r[2].string, let hlc = r[4].string.flatMap({ Int64($0) }), let writer = r[5].string,
              let previous = r[6].string.flatMap({ Int64($0) }), let previousWriter = r[7].string, hlc > 0, previous >= 0 else {
            return nil
        }
        return SyncChange(record: kind, recordID: id, field: field, value: r[3], hlc: HLC(rawValue: hlc),
                          device: writer, previousHLC: HLC(rawValue: previous), previousDevice: previousWriter)
    }
}
