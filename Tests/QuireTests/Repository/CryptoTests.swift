import Foundation
import Testing
import CSodium
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

    /// `SecretStreamPull` opens libsodium's secretstream with OpenSSL doing the bulk, so it
    /// must open every chunk libsodium's own pull opens, to the same bytes and tag, and
    /// refuse every chunk it refuses, with the state after each the same: chunks of every
    /// length around the 16- and 64-byte steps of the MAC's and the key stream's blocks,
    /// every tag (a rekey moves both to new keys), associated data of every padding, and
    /// damaged chunks, each followed by its intact self.
    @Test func theStreamPullOpensWhatLibsodiumOpensAndNothingElse() throws {
        let key = pseudoRandomBytes(32, seed: 77)
        var push = crypto_secretstream_xchacha20poly1305_state()
        var reference = crypto_secretstream_xchacha20poly1305_state()
        var header = [UInt8](repeating: 0, count: Int(crypto_secretstream_xchacha20poly1305_headerbytes()))
        #expect(crypto_secretstream_xchacha20poly1305_init_push(&push, &header, key) == 0)
        #expect(crypto_secretstream_xchacha20poly1305_init_pull(&reference, header, key) == 0)
        let pull = try #require(SecretStreamPull(header: header, key: key))
        let tags = [crypto_secretstream_xchacha20poly1305_tag_message(), crypto_secretstream_xchacha20poly1305_tag_push(),
                    crypto_secretstream_xchacha20poly1305_tag_rekey()]
        let lengths = [0, 1, 15, 16, 17, 47, 48, 63, 64, 65, 127, 128, 1000, 4096, BlobCipher.chunkSize - 1, BlobCipher.chunkSize]
        var opened = 0
        for (index, length) in lengths.enumerated() {
            for (round, tag) in tags.enumerated() {
                let ad = Array("quire-blob:".utf8).prefix((index * 3 + round) % 12) + pseudoRandomBytes(round * 5, seed: UInt64(index))
                let message = pseudoRandomBytes(length, seed: UInt64(index * 10 + round))
                var sealed = [UInt8](repeating: 0, count: length + SecretStreamPull.overhead)
                var sealedLength: UInt64 = 0
                #expect(crypto_secretstream_xchacha20poly1305_push(&push, &sealed, &sealedLength, message, UInt64(length),
                                                                   Array(ad), UInt64(ad.count), tag) == 0)
                func both(_ chunk: [UInt8]) -> (ours: [UInt8]?, theirs: [UInt8]?) {
                    var plain = [UInt8](repeating: 0, count: BlobCipher.chunkSize)
                    let ours = chunk.withUnsafeBytes { c in
                        plain.withUnsafeMutableBytes { pull.pull(c, ad: Array(ad), into: $0) }
                    }.map { Array(plain[0..<$0.length]) + [$0.tag] }
                    var theirs = [UInt8](repeating: 0, count: BlobCipher.chunkSize)
                    var theirLength: UInt64 = 0, theirTag: UInt8 = 0
                    let rc = crypto_secretstream_xchacha20poly1305_pull(&reference, &theirs, &theirLength, &theirTag, chunk,
                                                                        UInt64(chunk.count), Array(ad), UInt64(ad.count))
                    return (ours, rc == 0 ? Array(theirs[0..<Int(theirLength)]) + [theirTag] : nil)
                }
                for damage in [0, length / 2 + 1, length + 1, length + 16] where damage < sealed.count {
                    var damaged = sealed
                    damaged[damage] ^= 0x20
                    let (ours, theirs) = both(damaged)
                    #expect(ours == nil && theirs == nil, "length \(length), tag \(tag), byte \(damage) flipped")
                }
                let (ours, theirs) = both(sealed)
                #expect(theirs == message + [tag])
                #expect(ours == theirs, "length \(length), tag \(tag)")
                if ours != nil { opened += 1 }
            }
        }
        #expect(opened == lengths.count * tags.count)
    }

    /// `SecretStreamPush` seals with OpenSSL doing the bulk; libsodium's own pull must open
    /// every chunk it seals, to the message and tag sealed, one after another through every
    /// tag (a rekey moves both to new keys) and every length around the blocks' steps: the
    /// MAC binds every byte, so a chunk libsodium opens is the one libsodium would have made.
    @Test func theStreamPushSealsWhatLibsodiumOpens() throws {
        let key = pseudoRandomBytes(32, seed: 78)
        let push = try #require(SecretStreamPush(key: key))
        var reference = crypto_secretstream_xchacha20poly1305_state()
        #expect(crypto_secretstream_xchacha20poly1305_init_pull(&reference, push.header, key) == 0)
        let tags = [crypto_secretstream_xchacha20poly1305_tag_message(), crypto_secretstream_xchacha20poly1305_tag_push(),
                    crypto_secretstream_xchacha20poly1305_tag_rekey()]
        let lengths = [0, 1, 15, 16, 17, 63, 64, 65, 128, 1000, 4096, BlobCipher.chunkSize - 1, BlobCipher.chunkSize]
        var opened = 0
        for (index, length) in lengths.enumerated() {
            for (round, tag) in tags.enumerated() {
                let ad = Array("quire-blob:".utf8).prefix((index * 5 + round) % 12) + pseudoRandomBytes(round * 7, seed: UInt64(index))
                let message = pseudoRandomBytes(length, seed: UInt64(index * 10 + round + 500))
                var sealed = [UInt8](repeating: 0, count: length + SecretStreamPush.overhead)
                let sealedLength = message.withUnsafeBytes { m in sealed.withUnsafeMutableBytes { push.push(m, tag: tag, ad: Array(ad), into: $0) } }
                #expect(sealedLength == sealed.count)
                var plain = [UInt8](repeating: 0, count: max(length, 1))
                var plainLength: UInt64 = 0, plainTag: UInt8 = 0
                let rc = crypto_secretstream_xchacha20poly1305_pull(&reference, &plain, &plainLength, &plainTag, sealed,
                                                                    UInt64(sealed.count), Array(ad), UInt64(ad.count))
                #expect(rc == 0, "length \(length), tag \(tag)")
                #expect(Array(plain[0..<Int(plainLength)]) == message && plainTag == tag, "length \(length), tag \(tag)")
                if rc == 0 { opened += 1 }
            }
        }
        #expect(opened == lengths.count * tags.count)
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
