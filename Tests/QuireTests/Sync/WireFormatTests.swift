import Foundation
import Testing
@testable import QuireCrypto
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync
import QuireSupport

/// Every versioned object of the repository goes through one codec that checks its format
/// number: a newer Quire's object is one clear error, never a misread.
@Suite struct WireFormatTests {
    @Test func formatNumbersAreWrittenAndChecked() throws {
        let head = WireFormat.head.encode(["seq": .number(3)])
        #expect(try WireFormat.head.decode(head, path: "h")["format"] == .number(1))
        // Heads from before format numbers read as format 1; segments must say.
        #expect(try WireFormat.head.decode(Data(#"{"seq": 3}"#.utf8), path: "h")["seq"] == .number(3))
        #expect { try WireFormat.segment.decode(Data(#"{"seq": 3}"#.utf8), path: "s") } throws: {
            ($0 as? SyncError)?.detail.contains("no format number") == true
        }
        for (format, path) in [(WireFormat.segment, "log/x/1"), (.snapshot, "snapshots/x/1"), (.head, "heads/x.1")] {
            let newer = format.encode([:], format: format.newest + 1)
            #expect { try format.decode(newer, path: path) } throws: { error in
                let e = error as? SyncError
                return e?.object == path && e?.detail.contains("newer Quire: upgrade Quire") == true
            }
            #expect { try format.decode(Data(#"{"format": 0}"#.utf8), path: path) } throws: { ($0 as? SyncError)?.object == path }
        }
    }

    /// A segment's repeated strings are parsed once (`sharingStrings`): the document reads the
    /// same as without, whatever strings share a slot of the cache, and bad text is refused.
    @Test func sharedStringsReadAsTheDocumentSays() throws {
        // 5,000 ids of 36 bytes (more than the cache's slots, so many share one), each named
        // by several rows, among strings of the lengths on either side of what is shared.
        var rows: [JSONValue] = []
        for n in 0..<5_000 {
            let id = String(format: "%08x-0000-4000-8000-%012x", n * 7919, n)
            for field in ["title", "body", "тэг:日記-\(n % 7)"] {
                rows.append(.array([.string(id), .string(field), .string(String(repeating: "é", count: n % 40)),
                                    .string(String(repeating: "x", count: 15 + n % 3)), .string("line\n\"\(n)\"")]))
            }
        }
        let text = JSONWriter.data(.object(["changes": .array(rows)]), compact: true)
        let plain = try text.withUnsafeBytes { try JSONValue.parse($0.bindMemory(to: UInt8.self)) }
        let shared = try text.withUnsafeBytes { try JSONValue.parse($0.bindMemory(to: UInt8.self), sharingStrings: true) }
        let same = shared == plain  // not printed whole when it fails: 15,000 rows
        #expect(same)
        #expect(shared.object?["changes"]?.array?.count == 15_000)
        // Rows handed over one by one (a segment's changes): the same rows, in order, the
        // member left empty; a row refused stops the parse with the refusal.
        var streamed: [JSONValue] = []
        let rest = try text.withUnsafeBytes {
            try JSONValue.parse($0.bindMemory(to: UInt8.self), sharingStrings: true, rowsOf: "changes", refusal: "no") { row in
                streamed.append(.array(row))
                return true
            }
        }
        let sameRows = streamed == plain.object?["changes"]?.array
        #expect(sameRows && rest == .object(["changes": .array([])]))
        var seen = 0
        #expect(throws: JSONValue.ParseError.self) {
            try text.withUnsafeBytes { bytes in
                try JSONValue.parse(bytes.bindMemory(to: UInt8.self), rowsOf: "changes", refusal: "a bad row") { _ in
                    seen += 1
                    return seen < 100
                }
            }
        }
        #expect(seen == 100)
        for bad in [#"{"changes": [["a"], "b"]}"#, #"{"changes": [["a"] ["b"]]}"#, #"{"changes": [["a", ]]}"#, #"{"changes": [["a"]"#] {
            #expect(throws: JSONValue.ParseError.self) {
                try Array(bad.utf8).withUnsafeBufferPointer { try JSONValue.parse($0, rowsOf: "changes", refusal: "bad") { _ in true } }
            }
        }
        // A string made valid once is compared byte by byte, not taken by its length and hash.
        var bad = Array(#"["aaaaaaaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaaaa"#.utf8)
        bad += [0xFF, 0x22, 0x5D]
        #expect(throws: JSONValue.ParseError.self) { try bad.withUnsafeBufferPointer { try JSONValue.parse($0, sharingStrings: true) } }
    }

    /// A segment only a newer Quire writes stops the pull at it, naming it, and merges nothing.
    @Test func aSegmentOfANewerFormatIsRefusedByName() throws {
        let world = try SyncWorld(devices: 2)
        let (a, b) = (world.stores[0], world.stores[1])
        try a.add(NewEntry(title: "from the future"))
        try world.sync(a)
        let path = LogSegment.path(device: a.deviceID, seq: 1)
        let repository = try Repository.open(backend: world.backend, passphrase: secret("pw"), expectedID: world.repositoryID)
        let plain = try WireCompression.decompress(try repository.box.open(try world.backend.getData(path), path: path), path: path)
        var object = try #require(try JSONValue.parse(String(decoding: plain, as: UTF8.self)).object)
        object.removeValue(forKey: "format")
        try world.backend.delete(path)
        try world.backend.putData(path, try repository.box.seal(WireFormat.segment.encode(object, format: 9), path: path))
        #expect { try world.sync(b) } throws: { error in
            let e = error as? SyncError
            return e?.object == path && e?.detail.contains("format 9") == true
        }
        #expect(try b.entryCount() == 0)
    }

    /// A snapshot only a newer Quire writes: a restore names it and takes nothing from it.
    @Test func aSnapshotOfANewerFormatIsRefusedByName() throws {
        let world = try SyncWorld(devices: 1)
        let a = world.stores[0]
        try a.add(NewEntry(title: "snapshotted"))
        try world.sync(a)
        let snapshot = try world.syncer(a).prune().snapshot
        let repository = try Repository.open(backend: world.backend, passphrase: secret("pw"), expectedID: world.repositoryID)
        // Rewrite its header line with format 2, sealed as a snapshot is.
        let sink = DataSink()
        let decryptor = try BlobCipher.Decryptor(keys: repository.keys, blobID: Snapshot.streamID(snapshot), object: snapshot) {
            try sink.write($0)
        }
        try world.backend.get(snapshot, range: nil, into: DecryptingSink(decryptor))
        try decryptor.finish()
        var lines = String(decoding: sink.data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[0] = lines[0].replacingOccurrences(of: #""format":1"#, with: #""format":2"#)
        #expect(lines[0].contains(#""format":2"#))
        let file = world.file("snapshot.plain", Array(lines.joined(separator: "\n").utf8))
        let source = try EncryptingSource(file: try FileSource(path: file, range: nil), keys: repository.keys, blobID: Snapshot.streamID(snapshot))
        try world.backend.put(snapshot, from: source)
        let fresh = try world.makeDevice("fresh")
        #expect { _ = try world.syncer(fresh).restore() } throws: { error in
            let e = error as? SyncError
            return e?.object == snapshot && e?.detail.contains("newer Quire") == true
        }
        #expect(try fresh.entryCount() == 0)
    }
}

private final class DecryptingSink: ByteSink {
    let decryptor: BlobCipher.Decryptor
    init(_ decryptor: BlobCipher.Decryptor) { self.decryptor = decryptor }
    func write(_ bytes: UnsafeRawBufferPointer) throws { try decryptor.feed(bytes) }
    func reset() throws {}
}
