import Foundation

/// How concurrent writes to a field are resolved (DESIGN.md, "Merge").
enum MergeRule: Sendable {
    /// A last-writer-wins register ordered by (HLC, device UUID).
    case lastWriterWins
    /// The same, and a concurrent loser is kept as a revision: text a person wrote is never
    /// dropped silently.
    case lastWriterWinsKeepingLoser
}

/// One synced field of a record: its name in change logs and snapshots, its columns, its
/// type, its merge rule, and its key in the JSON-lines interchange (when it has one).
struct FieldSpec: Sendable {
    let name: String
    let columns: [String]
    let type: FieldType
    var merge: MergeRule = .lastWriterWins
    /// A change to it changes what full-text search finds.
    var searchable = false
    /// Its key in an interchange line (nil: not a key of its own there).
    var interchangeKey: String?

    /// A change to it changes what search finds: its text, or whether the record is there.
    var changesSearch: Bool { searchable || type == .tombstone }

    init(_ name: String, _ columns: [String], _ type: FieldType, merge: MergeRule = .lastWriterWins,
         searchable: Bool = false, interchange: String? = nil) {
        self.name = name
        self.columns = columns
        self.type = type
        self.merge = merge
        self.searchable = searchable
        self.interchangeKey = interchange
    }
}

/// The synced records — journals, entries, attachments — declared once. Saving, merging,
/// reading values for a push or a snapshot, and the interchange keys all follow these lists;
/// a field is added here and nowhere else by name.
struct RecordSchema: Sendable {
    let kind: RecordKind
    let table: String
    /// In column order; the tag field (if any) has no columns of its own.
    let fields: [FieldSpec]
    private let byName: [String: FieldSpec]
    private let tagField: FieldSpec?
    /// `SELECT <every column> FROM <table> WHERE id = ?`
    let selectSQL: String
    /// `INSERT INTO <table> (<every column>, id) VALUES (…)`
    let insertSQL: String
    /// `UPDATE <table> SET <every column> = ? WHERE id = ?`
    let updateSQL: String

    private init(_ kind: RecordKind, table: String, _ fields: [(String, [String], FieldType, MergeRule, Bool, String?)]) {
        self.kind = kind
        self.table = table
        let specs = fields.map { FieldSpec($0.0, $0.1, $0.2, merge: $0.3, searchable: $0.4, interchange: $0.5) }
        self.fields = specs
        byName = Dictionary(uniqueKeysWithValues: specs.filter { $0.type != .tag }.map { ($0.name, $0) })
        tagField = specs.first { $0.type == .tag }
        let columns = specs.flatMap(\.columns)
        selectSQL = "SELECT \(columns.joined(separator: ", ")) FROM \(table) WHERE id = ?"
        insertSQL = "INSERT INTO \(table) (\(columns.joined(separator: ", ")), id) VALUES ("
            + Array(repeating: "?", count: columns.count + 1).joined(separator: ", ") + ")"
        updateSQL = "UPDATE \(table) SET " + columns.map { "\($0) = ?" }.joined(separator: ", ") + " WHERE id = ?"
    }

    /// The spec of field `name` (`tag:<name>` fields share the tag spec), or nil for a field
    /// this Quire does not know: a newer Quire's, whose clock is kept and value ignored.
    func field(_ name: String) -> FieldSpec? {
        if let spec = byName[name] { return spec }
        return name.hasPrefix(Self.tagPrefix) ? tagField : nil
    }

    static let tagPrefix = "tag:"

    static func of(_ kind: RecordKind) -> RecordSchema? {
        switch kind {
        case .journal: return journal
        case .entry: return entry
        case .media: return media
        case .device: return device
        case .revision: return nil
        }
    }

    static let journal = RecordSchema(.journal, table: "journals", [
        ("name", ["name"], .text, .lastWriterWins, false, nil),
        ("deleted", ["deleted"], .tombstone, .lastWriterWins, false, nil),
    ])

    static let entry = RecordSchema(.entry, table: "entries", [
        ("journal", ["journal_id"], .reference(.journal), .lastWriterWins, true, "journal"),
        ("title", ["title"], .text, .lastWriterWinsKeepingLoser, true, "title"),
        ("body", ["body"], .text, .lastWriterWinsKeepingLoser, true, "body"),
        ("created", ["created", "created_us"], .instant, .lastWriterWins, false, "created"),
        ("modified", ["modified"], .instant, .lastWriterWins, false, "modified"),
        ("starred", ["starred"], .flag, .lastWriterWins, false, "starred"),
        ("location", ["latitude", "longitude", "place"], .location, .lastWriterWins, true, "location"),
        ("deleted", ["deleted"], .tombstone, .lastWriterWins, false, nil),
        ("tag:", [], .tag, .lastWriterWins, true, "tags"),
    ])

    static let media = RecordSchema(.media, table: "media", [
        ("entry", ["entry_id"], .reference(.entry), .lastWriterWins, false, nil),
        ("position", ["position"], .ordinal, .lastWriterWins, false, nil),
        ("kind", ["kind"], .mediaKind, .lastWriterWins, false, "kind"),
        ("blob", ["blob_id"], .blob, .lastWriterWins, false, "path"),
        ("filename", ["filename"], .text, .lastWriterWins, false, "filename"),
        ("mime", ["mime"], .text, .lastWriterWins, false, "mime"),
        ("duration", ["duration"], .seconds, .lastWriterWins, false, "duration"),
        ("transcript", ["transcript"], .text, .lastWriterWinsKeepingLoser, true, "transcript"),
        ("segments", ["segments"], .segments, .lastWriterWins, false, "segments"),
        ("transcriber", ["transcriber"], .text, .lastWriterWins, false, "transcriber"),
        ("transcribedTo", ["transcribed_to"], .seconds, .lastWriterWins, false, "transcribed_to"),
        ("deleted", ["deleted"], .tombstone, .lastWriterWins, false, nil),
    ])

    static let device = RecordSchema(.device, table: "device_names", [
        ("name", ["name"], .text, .lastWriterWins, false, nil),
    ])

    /// The interchange keys of this record's fields (besides `id`, and an entry's `media`).
    var interchangeKeys: [String] { fields.compactMap(\.interchangeKey) }

    // MARK: - Values

    /// Every field's value (tags as `tag:<name>`) read from one row of `statement`, which
    /// selected `selectSQL`'s columns.
    func values(of row: Statement) -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        var column: Int32 = 0
        for spec in fields where spec.type != .tag {
            values[spec.name] = spec.type.value(of: row, at: column)
            column += Int32(spec.columns.count)
        }
        return values
    }

    /// The SQL values for `insertSQL` and `updateSQL`, the record's id last.
    /// - Throws: `.invalid` naming the first field that cannot hold its value.
    func sqlValues(_ values: [String: JSONValue], id: String) throws -> [SQLValue] {
        var sql: [SQLValue] = []
        for spec in fields where spec.type != .tag {
            guard let converted = spec.type.sqlValues(values[spec.name] ?? spec.type.absentValue, columns: spec.columns.count) else {
                throw StoreError(.invalid, detail: "\(kind.rawValue).\(spec.name) cannot hold that value")
            }
            sql += converted
        }
        return sql + [.text(id)]
    }

    /// The fields (tags aside) whose values differ between `old` and `new`, in declaration order.
    func changedFields(from old: [String: JSONValue], to new: [String: JSONValue]) -> [String] {
        fields.filter { $0.type != .tag && old[$0.name] != new[$0.name] }.map(\.name)
    }

    /// The fields a new record writes: all but its tombstone (a record is born live) and tags
    /// (registers of their own).
    var fieldsOfNewRecord: [String] {
        fields.filter { $0.type != .tag && $0.type != .tombstone }.map(\.name)
    }
}
