import CZstd
import Foundation
import Testing
@testable import QuireCrypto
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

/// Repository format 3: segments compressed before they are sealed, still padded to bucket
/// sizes, decompressed within a bound whatever a server sends; format 1 and 2 repositories
/// still read, byte for byte, and moved forward by a push.
@Suite struct CompressionTests {
    static let text = Data((0..<400).map { i in
        #"{"title":"Утро \#(i)","body":"Шёл дождь, и мы пили кофе на веранде. 今日は雨だった。 A walk by the river, number \#(i)."}"#
    }.joined(separator: ",").utf8)

    @Test func compressedJSONComesBackAndSealedIsABucketsSize() throws {
        let overhead = RecordBox.overhead
        let packed = WireCompression.compress(Self.text, overhead: overhead)
        #expect(packed.count < Self.text.count / 3, "\(packed.count) of \(Self.text.count)")
        #expect(Padding.size(Int64(packed.count + overhead)) == Int64(packed.count + overhead))
        #expect(try WireCompression.decompress(packed, path: "log/x") == Self.text)
        // Every size, so the skippable frame's 8-byte minimum is met wherever a gap falls.
        for count in stride(from: 1, to: 3000, by: 7) {
            let json = Data(Self.text.prefix(count))
            let padded = WireCompression.compress(json, overhead: overhead)
            #expect(Padding.size(Int64(padded.count + overhead)) == Int64(padded.count + overhead), "\(count)")
            #expect(try WireCompression.decompress(padded, path: "log/x") == json, "\(count)")
        }
    }

    @Test func jsonAsFormat2WroteItPassesThrough() throws {
        let padded = Padding.padJSON(Data(#"{"format":2}"#.utf8), overhead: RecordBox.overhead)
        #expect(try WireCompression.decompress(padded, path: "log/x") == padded)
    }

    /// A frame that says it holds more than any object Quire writes is refused before a byte
    /// is made; one that does not say, and expands past the bound, is refused on the way.
    @Test func aZstdBombIsRefusedWithinItsBound() throws {
        let zeros = Data(count: 4 << 20)
        let declared = WireCompression.compress(zeros, overhead: 0)
        #expect(declared.count < 1024)
        #expect {
            try WireCompression.decompress(declared, path: "log/bomb", limit: 1 << 20)
        } throws: { "\($0)".contains("claims 4194304 bytes") && ($0 as? SyncError)?.kind == .damaged }

        // Streamed without a declared size.
        guard let context = ZSTD_createCCtx() else { Issue.record("no zstd context"); return }
        defer { ZSTD_freeCCtx(context) }
        ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 0)
        var frame = [UInt8](repeating: 0, count: 1 << 16)
        var written = 0
        zeros.withUnsafeBytes { input in
            frame.withUnsafeMutableBytes { out in
                var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
                var outBuffer = ZSTD_outBuffer(dst: out.baseAddress, size: out.count, pos: 0)
                while ZSTD_compressStream2(context, &outBuffer, &inBuffer, ZSTD_e_end) != 0 {}
                written = outBuffer.pos
            }
        }
        let undeclared = Data(frame[0..<written])
        #expect(undeclared.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) } == ZSTD_CONTENTSIZE_UNKNOWN)
        #expect {
            try WireCompression.decompress(undeclared, path: "log/bomb", limit: 1 << 20)
        } throws: { "\($0)".contains("expands past 1048576 bytes") }
        #expect(try WireCompression.decompress(undeclared, path: "log/ok", limit: 8 << 20) == zeros)
    }

    @Test func aCutOrGarbledFrameIsDamagedNeverATrap() throws {
        let packed = WireCompression.compress(Self.text, overhead: RecordBox.overhead)
        let frameOnly = packed.prefix(while: { _ in true })
        for cut in [5, 20, frameOnly.count / 2] {
            #expect(throws: SyncError.self) { try WireCompression.decompress(packed.prefix(cut), path: "log/cut") }
        }
        var garbled = packed
        for i in 6..<min(40, garbled.count) { garbled[i] ^= 0x5A }
        #expect(throws: SyncError.self) { try WireCompression.decompress(garbled, path: "log/garbled") }
    }

    /// A repository of format 2 restores as it was written; this Quire's first push moves it
    /// to format 3 and writes its segments compressed, and a restore of the result is whole.
    @Test func aFormat2RepositoryRestoresAndMovesToCompressedSegments() throws {
        let repo = try FixtureRepository("repository-format2")
        let (dir, backend) = (repo.dir, repo.backend)
        let id = try Repository.readID(backend)
        let restored = try repo.restore("restored")
        #expect(try repo.expectedMedia().count == 3)
        #expect(try repo.differencesFromExpected(restored) == [])
        #expect(dir.read("repo/quire-repo.json").contains("\"format\":2"))

        let repository = try Repository.open(backend: backend, passphrase: try secret("fixture"), expectedID: id)
        let e = try restored.add(NewEntry(title: "Сжатый сегмент", body: String(repeating: "Слова, которые повторяются. ", count: 200)))
        try restored.attach(to: e.id, NewAttachment(path: dir.file("new.txt", "новые байты")))
        _ = try Syncer(store: restored, repository: repository).sync()
        #expect(dir.read("repo/quire-repo.json").contains("\"format\":3"))
        let log = "log/" + restored.deviceID
        let names = try backend.list(log).map(\.name).sorted()
        let newest = try #require(names.last)
        let plain = try repository.box.open(try backend.getData(log + "/" + newest), path: log + "/" + newest)
        #expect(plain.starts(with: [0x28, 0xB5, 0x2F, 0xFD]), "the new segment is a zstd frame")
        #expect(plain.count < 2000, "5,600 characters of text and more went into \(plain.count) bytes")

        let again = try repo.restore("again")
        let (a, b) = (dir.path + "/d1", dir.path + "/d2")
        try restored.exportJSON(to: a)
        try again.exportJSON(to: b)
        #expect(dir.read("d1/entries.jsonl") == dir.read("d2/entries.jsonl"))
        #expect(try Syncer(store: again, repository: repository).verify(readData: true).problems.isEmpty)
    }

    /// A Quire that reads format 2 at most meets a format-3 repository as "upgrade Quire",
    /// before it reads any segment.
    @Test func aRepositoryNewerThanThisQuireSaysUpgrade() throws {
        let dir = TempDir()
        let backend = LocalBackend(root: dir.path + "/repo")
        let repository = try Repository.initialize(backend: backend, passphrase: try secret("pw"), cost: testCost)
        try backend.putData(Repository.configPath, Data(#"{"id":"\#(repository.id)","format":\#(Repository.format + 1)}"#.utf8))
        #expect {
            try Repository.readID(backend)
        } throws: { "\($0)".contains("uses format \(Repository.format + 1); upgrade Quire") }
    }
}
