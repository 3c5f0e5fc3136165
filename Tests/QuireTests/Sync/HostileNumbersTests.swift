import Foundation
import Testing
@testable import QuireCrypto
@testable import QuireExport
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

/// Numbers from outside (a forged head name, a segment from a hostile device, an import, an
/// SRT file) end in one error naming the object; none traps a conversion or walks to Int.max.
@Suite struct HostileNumbersTests {
    @Test func aForgedHeadIsAnErrorNotAWalkToIntMax() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        try a.add(NewEntry(title: "real"))
        try world.sync(a)
        let forged = "heads/\(UUID().uuidString.lowercased()).9223372036854775807"
        try world.backend.putData(forged, Data())
        for syncer in [try world.syncer(b), try workerSyncer(world, b)] {
            #expect {
                try syncer.sync()
            } throws: { error in
                guard let e = error as? SyncError else { return false }
                return e.object == forged && e.detail.contains("new segments")
            }
        }
        #expect(try b.entryCount() == 0)
    }

    private func workerSyncer(_ world: SyncWorld, _ store: Store) throws -> Syncer {
        let syncer = try world.syncer(store)
        syncer.context.workerBackends = [LocalBackend(root: world.dir.path + "/repo"), LocalBackend(root: world.dir.path + "/repo")]
        return syncer
    }

    /// A device holding the repository key writes a segment no honest Quire writes.
    @Test(arguments: [("duration", JSONValue.number(1e300)), ("position", .number(1e300)), ("position", .number(2.5)),
                      ("segments", .array([.object(["start": .number(0), "end": .number(3e18 * 3600), "text": .string("x")])]))])
    func anOutOfRangeFieldInASegmentStopsTheMergeNamingIt(field: String, value: JSONValue) throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        let entry = try a.add(NewEntry(title: "voice"))
        try a.attach(to: entry.id, NewAttachment(path: world.file("v.ogg", pseudoRandomBytes(100)), kind: .voice, duration: 4.5,
                                                 segments: [Segment(start: 0, end: 4.5, text: "hello")]))
        try world.sync(a)
        let path = LogSegment.path(device: a.deviceID, seq: 1)
        let repository = try Repository.open(backend: world.backend, passphrase: secret("pw"), expectedID: world.repositoryID)
        var segment = try LogSegment.decode(try repository.box.open(try world.backend.getData(path), path: path), path: path)
        let index = try #require(segment.changes.firstIndex { $0.record == .media && $0.field == field })
        segment.changes[index].value = value
        try world.backend.delete(path)
        try world.backend.putData(path, try repository.box.seal(segment.encoded(), path: path))
        #expect {
            try world.sync(b)
        } throws: { ($0 as? SyncError)?.object == path }
        #expect(try b.entryCount() == 0)
        // verify refuses what every restore refuses.
        let found = try world.syncer(a).verify(readData: false).problems
        #expect(found.contains { $0.object == path && $0.detail.contains("unusable value for media.\(field)") }, "\(found)")
    }

    @Test(arguments: [#""seq": 1e300"#, #""format": 1e300"#, #""seq": 2.5"#, #""seq": -4"#])
    func aSegmentWithAnImpossibleNumberIsDamaged(member: String) throws {
        let good = LogSegment(device: UUID().uuidString.lowercased(), seq: 1, previous: "", changes: [], blobs: [:])
        var text = String(decoding: good.encoded(), as: UTF8.self)
        let key = String(member.prefix { $0 != ":" })
        let range = try #require(text.range(of: key + #":\s*[0-9]+"#, options: .regularExpression))
        text.replaceSubrange(range, with: member)
        #expect {
            _ = try LogSegment.decode(Data(text.utf8), path: "log/x/000000000001")
        } throws: { ($0 as? SyncError)?.object == "log/x/000000000001" }
    }

    /// Segments and snapshots read their change rows through one codec: a clock at or before
    /// the epoch, a previous clock below zero, a row of another shape or an unknown record
    /// kind is refused by both alike.
    @Test func aChangeRowWithAnImpossibleClockIsRefusedInSegmentsAndSnapshotsAlike() throws {
        let device = UUID().uuidString.lowercased()
        let change = SyncChange(record: .entry, recordID: UUID().uuidString.lowercased(), field: "title", value: .string("Заметка"),
                                hlc: HLC(rawValue: 42 << 16), device: device, previousHLC: HLC(rawValue: 0), previousDevice: "")
        let row = ChangeRow.encode(change)
        #expect(ChangeRow.decode(row) == change)
        func altered(_ index: Int, _ value: JSONValue) -> JSONValue {
            var values = row.array ?? []
            values[index] = value
            return .array(values)
        }
        for bad in [altered(4, .string("0")), altered(4, .string("-7")), altered(6, .string("-1")), altered(4, .number(42)),
                    altered(0, .string("spell")), .array(Array((row.array ?? []).prefix(7))), .string("row")] {
            #expect(ChangeRow.decode(bad) == nil, "\(bad)")
        }
        // A segment holding such a row is damaged, named by its path.
        var segment = String(decoding: LogSegment(device: device, seq: 1, previous: "", changes: [change], blobs: [:]).encoded(), as: UTF8.self)
        let clock = "\"\(change.hlc.rawValue)\""
        segment = segment.replacingOccurrences(of: clock, with: "\"0\"")
        #expect {
            _ = try LogSegment.decode(Data(segment.utf8), path: "log/x/000000000001")
        } throws: { ($0 as? SyncError)?.detail.contains("a malformed change") == true }
    }

    @Test func aMarkWithAnImpossiblePositionIsNotTrusted() {
        #expect(GCMark(json: .array([.number(1), .object(["d": .number(1e300)])])) == nil)
        #expect(GCMark(json: .array([.number(1), .object(["d": .number(3)])]))?.positions == ["d": 3])
    }

    @Test(arguments: [#""duration": 1e300"#, #""duration": 1e10"#, #""segments": [{"start": 0, "end": 1e300}]"#])
    func anImportWithAnImpossibleTimeNamesItsLine(member: String) throws {
        let dir = TempDir()
        _ = dir.file("in/v.ogg", "voice")
        let file = dir.file("in/e.jsonl", #"{"created": "2025-01-01T00:00:00Z", "media": [{"path": "v.ogg", "# + member + "}]}")
        let store = try makeStore(dir)
        #expect {
            try store.importJSONLines(at: file)
        } throws: { ($0 as? StoreError)?.line == 1 }
        #expect(try store.entryCount() == 0)
    }

    @Test func anSRTHourOf3e18IsAParseErrorNotATrap() {
        let srt = "1\n3000000000000000000:00:00,000 --> 3000000000000000000:00:01,000\nx\n"
        #expect(throws: StoreError.self) { _ = try Subtitles.parse(srt, format: .srt) }
    }

    @Test func attachDurationOutOfRangeIsAUsageError() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        let id = try QuireBinary.run(["add", "--body", "x"], store: store).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = dir.file("v.ogg", "voice")
        let run = try QuireBinary.run(["attach", id, dir.path + "/v.ogg", "--duration", "1e300"], store: store)
        #expect(run.status == 2 && run.stderr.contains("--duration"), "\(run.stderr)")
    }

    /// A value an older Quire stored prints as the bound, never traps.
    @Test func displayingAnyDurationIsTotal() {
        #expect(clockText(1e300) == "277777:46:40")
        #expect(clockText(-.infinity) == "0:00" && clockText(.nan) == "0:00")
        #expect(MediaOverlay.clock(1e300) == "277777:46:40.000")
        #expect(Media.wholeSeconds(1e300) == 1_000_000_000)
    }
}
