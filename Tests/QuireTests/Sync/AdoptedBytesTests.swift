import Foundation
import Testing
@testable import QuireCrypto
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

/// Downloaded attachment bytes are hashed as they stream and taken in only under the
/// SHA-256 they are: authentic bytes under a wrong id (a key holder's segment that lies, or
/// a device whose disk changed a blob file under its name) are damage, named, never stored.
@Suite struct AdoptedBytesTests {
    /// Device a's blob files rot after they were attached (same names, other bytes); its push
    /// seals what is on disk. Device b, by every path a download takes (one at a time, in the
    /// background, a restore), refuses them naming the pack, and stores nothing under the ids.
    @Test(arguments: [0, 3])
    func bytesThatAreNotTheirIdAreDamageNeverTakenIn(workers: Int) throws {
        let world = try SyncWorld(devices: 1)
        let a = world.stores[0]
        let entry = try a.add(NewEntry(title: "photos"))
        let small = try a.attach(to: entry.id, NewAttachment(path: world.file("s.png", pseudoRandomBytes(5_000, seed: 3))))
        let large = try a.attach(to: entry.id, NewAttachment(path: world.file("l.png", pseudoRandomBytes(700_000, seed: 4))))
        for media in [small, large] {
            let path = a.blobs.path(for: media.blobID)
            chmod(path, 0o600)
            try Data(pseudoRandomBytes(Int(a.blobs.size(of: media.blobID) ?? 0), seed: 9)).write(to: URL(fileURLWithPath: path))
        }
        try world.sync(a)
        for restore in [false, true] {
            let b = try world.makeDevice("b-\(workers)-\(restore)")
            let syncer = try world.syncer(b)
            syncer.context.workerBackends = (0..<workers).map { _ in LocalBackend(root: world.dir.path + "/repo") }
            #expect {
                _ = restore ? try syncer.restore() : try syncer.sync()
            } throws: { error in
                let text = "\(error)"
                return text.contains("packs/") && text.contains("not the bytes its id")
            }
            #expect(!b.hasBlob(small.blobID) && !b.hasBlob(large.blobID))
            let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: b.blobs.root + "/tmp")) ?? []
            #expect(leftovers.isEmpty, "\(leftovers)")
        }
    }

    /// The same for bytes a segment of an older Quire carried inline (`blobs_inline`).
    @Test func carriedBytesMustBeTheirIdToo() throws {
        #expect(throws: SyncError.self) {
            try BlobIntake.checkCarried(Data("not it".utf8), local: SHA256.hex(of: Array("it".utf8)), object: "log/x/1")
        }
        try BlobIntake.checkCarried(Data("it".utf8), local: SHA256.hex(of: Array("it".utf8)), object: "log/x/1")
    }
}
