import Foundation
import Testing
@testable import QuireCrypto
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

/// 300 mutations of one device's segment on the server: half of its sealed bytes (what a
/// server without the key can do: all fail authentication), half of its plaintext sealed
/// again with the key (what a key holder can do: any JSON, numbers, ids). Each goes through
/// a restore, a sync of a device that has the segment's predecessor, and verify --read-data:
/// none crashes or hangs, each that fails says one line naming the segment, and a failed
/// restore or sync leaves the store as it was.
@Suite struct SegmentMutationTests {
    @Test func mutatedSegmentsAreOneLineErrorsNeverCrashes() throws {
        let world = try SyncWorld(devices: 2)
        let a = world.stores[0]
        var b = world.stores[1]
        let entry = try a.add(NewEntry(title: "Утро", body: "first", tags: ["t"]))
        try world.sync(a); try world.sync(b)
        try a.edit(entryID: entry.id, EntryEdit(body: "second, with a photo"))
        try a.attach(to: entry.id, NewAttachment(path: world.file("p.png", pseudoRandomBytes(3_000, seed: 8)), duration: 2.5))
        try world.sync(a)
        let path = LogSegment.path(device: a.deviceID, seq: 2)
        let sealed = [UInt8](try world.backend.getData(path))
        let repository = try Repository.open(backend: world.backend, passphrase: secret("pw"), expectedID: world.repositoryID)
        let plain = [UInt8](try WireCompression.decompress(try repository.box.open(Data(sealed), path: path), path: path))
        let before = try world.dump(b)
        let kept = world.dir.path + "/b-as-it-was"
        try FileManager.default.copyItem(atPath: b.folder, toPath: kept)
        var outcomes = (failed: 0, merged: 0)
        for n in 0..<300 {
            let keyHolder = n % 2 == 1
            let bytes = keyHolder ? try repository.box.seal(Data(ImageMutationTests.mutant(plain, n)), path: path)
                                  : Data(ImageMutationTests.mutant(sealed, n))
            try world.backend.delete(path)
            try world.backend.putData(path, bytes)
            for step in ["restore", "sync", "verify"] {
                let fresh = step == "restore" ? try world.makeDevice("r\(n)") : nil
                do {
                    switch step {
                    case "restore": _ = try world.syncer(try #require(fresh)).restore()
                    case "sync": _ = try world.syncer(b).sync()
                    default:
                        let report = try world.syncer(a).verify(readData: true)
                        for problem in report.problems { #expect(!(problem.object + problem.detail).contains("\n"), "\(problem)") }
                    }
                    if step != "verify" { outcomes.merged += 1 }
                } catch {
                    outcomes.failed += 1
                    #expect(!"\(error)".contains("\n"), "\(step) of mutant \(n): \(error)")
                    if step == "sync" { #expect(try world.dump(b) == before, "a failed sync changed the store (mutant \(n))") }
                }
                if let fresh { try? FileManager.default.removeItem(atPath: fresh.folder) }
            }
            if try world.dump(b) != before {
                // A mutant a key holder made that is still a valid segment merged: back to b as it was.
                let folder = b.folder
                try FileManager.default.removeItem(atPath: folder)
                try FileManager.default.copyItem(atPath: kept, toPath: folder)
                b = try Store(folder: folder)
            }
        }
        #expect(outcomes.failed > 300, "\(outcomes)")
    }
}
