/// One field write as it travels between devices: the unit of merging.
package struct SyncChange: Equatable, Sendable {
    package var record: RecordKind
    package var recordID: String
    package var field: String
    package var value: JSONValue
    package var hlc: HLC
    /// The writing device's UUID.
    package var device: String
    /// The clock of the value this write replaced (zero and "" for a first write).
    package var previousHLC: HLC
    package var previousDevice: String

    package init(record: RecordKind, recordID: String, field: String, value: JSONValue, hlc: HLC, device: String,
                previousHLC: HLC = .zero, previousDevice: String = "") {
        self.record = record
        self.recordID = recordID
        self.field = field
        self.value = value
        self.hlc = hlc
        self.device = device
        self.previousHLC = previousHLC
        self.previousDevice = previousDevice
    }

    /// Last-writer-wins order: (HLC, device UUID), a total order every device agrees on.
    package func wins(over hlc: HLC, device: String) -> Bool {
        self.hlc != hlc ? self.hlc > hlc : self.device > device
    }

    /// Text fields keep a concurrent loser as a revision.
    package var isText: Bool { RecordSchema.of(record)?.field(field)?.merge == .lastWriterWinsKeepingLoser }

    /// The blob (local id) this change points its attachment at, if it is such a change.
    package var namedBlob: String? {
        RecordSchema.of(record)?.field(field)?.type == .blob ? value.string : nil
    }

    /// True when this change sets or clears its record's deletion flag.
    package var isTombstone: Bool { RecordSchema.of(record)?.field(field)?.type == .tombstone }
}
