import Foundation
import Testing
@testable import QuireCrypto

@Suite struct CryptoTests {
    @Test func keyFileOpensOnlyWithItsPassphraseAndRepository() throws {
        let keys = try RepositoryKeys.generate()
        let file = try KeyFile.wrap(keys, passphrase: try secret("correct horse"), repositoryID: "repo-1", cost: testCost)
        #expect(file.opslimit == testCost.opslimit && file.memlimit == testCost.memlimit)  // the cost travels with the key
        let opened = try file.unwrap(passphrase: try secret("correct horse"), repositoryID: "repo-1", name: "keys/k")
        #expect(Data(bytes: opened.master.bytes, count: 32) == Data(bytes: keys.master.bytes, count: 32))
        for (passphrase, repo) in [("wrong horse", "repo-1"), ("correct horse", "repo-2"), ("", "repo-1")] {
            #expect {
                _ = try file.unwrap(passphrase: try secret(passphrase), repositoryID: repo, name: "keys/k")
            } throws: { ($0 as? CryptoError)?.kind == .wrongPassphrase }
        }
        // The encoded file holds no key material in the clear.
        let encoded = try file.encoded()
        #expect(!encoded.contains(Data(bytes: keys.master.bytes, count: 32)))
    }

    @Test func hostileKeyFilesAreRefusedBeforeAnyWork() throws {
        var file = try KeyFile.wrap(try RepositoryKeys.generate(), passphrase: try secret("p"), repositoryID: "r", cost: testCost)
        file.memlimit = 1 << 42  // 4 TiB of Argon2 memory
        #expect { _ = try file.unwrap(passphrase: try secret("p"), repositoryID: "r", name: "k") } throws: {
            ($0 as? CryptoError)?.kind == .badKeyFile
        }
        #expect { _ = try KeyFile.decode(Data("{not json".utf8), name: "k") } throws: { ($0 as? CryptoError)?.kind == .badKeyFile }
    }

    @Test func recordsAreBoundToTheirPathAndRepository() throws {
        let keys = try RepositoryKeys.generate()
        let box = RecordBox(keys: keys, repositoryID: "repo")
        let plaintext = Data("Сон о море — 夢".utf8)
        let sealed = try box.seal(plaintext, path: "log/dev/1")
        #expect(try box.open(sealed, path: "log/dev/1") == plaintext)
        #expect(!sealed.contains(plaintext))
        func rejects(_ data: Data, path: String, box: RecordBox = box) {
            #expect {
                _ = try box.open(data, path: path)
            } throws: { error in
                guard let e = error as? CryptoError else { return false }
                return e.kind == .unauthenticated && e.object == path
            }
        }
        rejects(sealed, path: "log/dev/2")                                      // moved
        rejects(sealed, path: "log/dev/1", box: RecordBox(keys: keys, repositoryID: "other"))
        rejects(sealed, path: "log/dev/1", box: RecordBox(keys: try RepositoryKeys.generate(), repositoryID: "repo"))
        for index in [0, 5, 30, sealed.count - 1] {                             // any flipped byte
            var damaged = sealed
            damaged[index] ^= 0x01
            rejects(damaged, path: "log/dev/1")
        }
        rejects(sealed.prefix(20), path: "log/dev/1")                           // truncated
        rejects(Data(), path: "log/dev/1")
    }

    func encrypt(_ plain: [UInt8], keys: RepositoryKeys, id: String) throws -> [UInt8] {
        let encryptor = try BlobCipher.Encryptor(keys: keys, blobID: id)
        var out = encryptor.header
        var buffer = [UInt8](repeating: 0, count: BlobCipher.chunkSize + 64)
        var offset = 0
        repeat {
            let end = min(plain.count, offset + BlobCipher.chunkSize)
            let final = end == plain.count
            let n = try plain.withUnsafeBytes { p in
                try buffer.withUnsafeMutableBytes { try encryptor.seal(UnsafeRawBufferPointer(rebasing: p[offset..<end]), final: final, into: $0) }
            }
            out += buffer[0..<n]
            offset = end
            if final { break }
        } while true
        return out
    }

    func decrypt(_ sealed: [UInt8], keys: RepositoryKeys, id: String, pieces: Int = 7919) throws -> [UInt8] {
        var plain: [UInt8] = []
        let decryptor = try BlobCipher.Decryptor(keys: keys, blobID: id, object: "blobs/" + id) { plain += $0 }
        var offset = 0
        while offset < sealed.count {
            let end = min(sealed.count, offset + pieces)
            try sealed[offset..<end].withUnsafeBytes { try decryptor.feed($0) }
            offset = end
        }
        try decryptor.finish()
        return plain
    }

    @Test(arguments: [0, 1, BlobCipher.chunkSize - 1, BlobCipher.chunkSize, BlobCipher.chunkSize * 3, 300_001])
    func blobsRoundTripAtEverySize(size: Int) throws {
        let keys = try RepositoryKeys.generate()
        let plain = pseudoRandomBytes(size, seed: UInt64(size) + 1)
        let sealed = try encrypt(plain, keys: keys, id: "b1")
        #expect(Int64(sealed.count) == BlobCipher.sealedSize(plaintextSize: Int64(plain.count)))
        #expect(try decrypt(sealed, keys: keys, id: "b1") == plain)
        #expect(try decrypt(sealed, keys: keys, id: "b1", pieces: 1 << 20) == plain)
    }

    @Test func damagedTruncatedReorderedOrSwappedBlobsAreDetected() throws {
        let keys = try RepositoryKeys.generate()
        let plain = pseudoRandomBytes(BlobCipher.chunkSize * 3 + 100, seed: 9)
        let sealed = try encrypt(plain, keys: keys, id: "b1")
        let chunk = BlobCipher.chunkSize + 17, head = 4 + 24
        func rejects(_ data: [UInt8], id: String = "b1", _ why: String) {
            #expect(throws: CryptoError.self, "\(why)") { _ = try decrypt(data, keys: keys, id: id) }
        }
        var flipped = sealed
        flipped[head + chunk + 10] ^= 0x80
        rejects(flipped, "a flipped byte")
        rejects(Array(sealed.prefix(head + chunk * 2)), "cut at a chunk boundary")
        rejects(Array(sealed.dropLast(1)), "last byte missing")
        rejects(Array(sealed.prefix(10)), "header only")
        var reordered = Array(sealed[0..<head])
        reordered.append(contentsOf: sealed[(head + chunk)..<(head + 2 * chunk)])
        reordered.append(contentsOf: sealed[head..<(head + chunk)])
        reordered.append(contentsOf: sealed[(head + 2 * chunk)...])
        rejects(reordered, "two chunks swapped")
        rejects(sealed, id: "b2", "presented under another blob's name")
        rejects(sealed + [0, 1, 2], "bytes after the end")
        #expect(throws: CryptoError.self) { _ = try decrypt(sealed, keys: try RepositoryKeys.generate(), id: "b1") }
    }

    @Test func blobIdsAreKeyedAndStable() throws {
        let keys = try RepositoryKeys.generate()
        func id(_ bytes: [UInt8], _ k: RepositoryKeys) throws -> String {
            let h = try BlobHasher(keys: k)
            bytes.withUnsafeBytes { h.update($0) }
            return h.finalizeHex()
        }
        let a = Array("same bytes".utf8)
        #expect(try id(a, keys) == id(a, keys))
        #expect(try id(a, keys) != id(a, try RepositoryKeys.generate()))  // no guessing content across repositories
        #expect(try id(a, keys).count == 64)
    }
}
