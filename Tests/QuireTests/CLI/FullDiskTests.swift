import Foundation
import Testing
@testable import QuireStore

/// A small disk of its own (a 2 MiB tmpfs, mounted for the test and unmounted after) that a
/// test fills to the last byte. Only root may mount: elsewhere the tests say why they skipped.
final class FullDisk: @unchecked Sendable {
    let path: String
    private let holder = TempDir()

    static let canMount: Bool = {
        guard getuid() == 0, let disk = try? FullDisk() else { return false }
        _ = disk
        return true
    }()

    init() throws {
        path = holder.path + "/disk"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mount = try ExternalTool.run("mount", ["-t", "tmpfs", "-o", "size=2m,mode=0755", "tmpfs", path])
        guard mount.status == 0 else { throw POSIXError(.EPERM) }
    }

    deinit { _ = try? ExternalTool.run("umount", ["-l", path]) }

    /// Writes a filler file until the disk says it is full.
    func fill() {
        let fd = open(path + "/filler", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let block = [UInt8](repeating: 0, count: 4096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        // Some blocks stay free below a page: fill them a byte at a time.
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, 1) }) > 0 {}
    }
}

/// A full disk, the store's or the export's: reading goes on, every write that fails says
/// "no space left" and names the path, and nothing half-written stays.
@Suite(.enabled(if: FullDisk.canMount, "mounts a 2 MiB tmpfs, which only root may do"))
struct FullDiskTests {
    let dir = TempDir()

    @Test func aStoreOnAFullDiskIsStillReadAndSaysWhyItCannotBeWritten() throws {
        let disk = try FullDisk()
        let store = disk.path + "/s"
        var ids: [String] = []
        for n in 1...3 {
            let added = try QuireBinary.run(["add", "--title", "Entry \(n)", "Words of entry \(n)."], store: store)
            try #require(added.status == 0, "a new store fits a 2 MiB disk: \(added.stderr)")
            ids.append(added.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        disk.fill()
        let list = try QuireBinary.run(["list"], store: store)
        #expect(list.status == 0 && list.stdout.contains("Entry 3"), "\(list.stderr)")
        #expect(try QuireBinary.run(["show", ids[0]], store: store).stdout.contains("Words of entry 1."))
        #expect(try QuireBinary.run(["search", "entry"], store: store).stdout.contains("Entry 2"))
        #expect(try QuireBinary.run(["status"], store: store).stdout.contains("entries:    3"))
        let book = dir.path + "/book.epub"
        #expect(try QuireBinary.run(["export", "epub", book], store: store).status == 0)
        let added = try QuireBinary.run(["add", "One more."], store: store)
        #expect(added.status == 1 && added.stderr.hasPrefix("quire: error: \(store)/journal.sqlite: no space left on the disk"), "\(added.stderr)")
        #expect(try QuireBinary.run(["list"], store: store).stdout.split(separator: "\n").count == 3, "nothing was added")
    }

    @Test(arguments: [("pdf", "book.pdf"), ("epub", "book.epub"), ("markdown", "notes"), ("json", "dump")])
    func anExportIntoAFullDiskSaysSoAndLeavesNothing(format: String, name: String) throws {
        let store = try VariedJournal.make(in: dir, generated: 60)
        let disk = try FullDisk()
        disk.fill()
        let out = disk.path + "/" + name
        let run = try QuireBinary.run(["export", format, out], store: store)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("quire: error: \(out)") && run.stderr.contains("no space left on device"), "\(format): \(run.stderr)")
        #expect(!run.stderr.contains(".quire"), "the hidden working name is never shown: \(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path) == ["filler"], "nothing half-written stays")
    }
}
