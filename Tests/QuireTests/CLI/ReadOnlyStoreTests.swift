import Foundation
import Testing
@testable import QuireStore

/// A store this user may not write (a backup copy, a mounted snapshot, another user's files)
/// is still read: list, show, search, status and every export work; a write says why not.
/// As root the commands run as `nobody` (root may write anything); otherwise the store is
/// made read-only for this user.
@Suite struct ReadOnlyStoreTests {
    /// Runs quire as a user who may read `store` but not write it.
    func runAsReader(_ arguments: [String], store: String) throws -> QuireRun {
        try QuireBinary.run(arguments, store: store, asUser: getuid() == 0 ? "nobody" : nil)
    }

    @Test(.enabled(if: QuireBinary.otherUserCanRun, QuireBinary.otherUserSkipReason))
    func aStoreThatCannotBeWrittenCanBeRead() throws {
        let dir = TempDir()
        let store = dir.path + "/store"
        let file = InterchangeTests.sampleFile(in: dir)
        #expect(try QuireBinary.run(["import", file], store: store).status == 0)
        let id = try QuireBinary.run(["add", "--title", "Вечер", "--body", "Гуляли по Красной площади."], store: store)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // Readable by all, writable by none but root (which the reader is not).
        for path in [dir.path, store] + (FileManager.default.subpaths(atPath: store) ?? []).map({ store + "/" + $0 }) {
            var isFolder: ObjCBool = false
            FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
            chmod(path, isFolder.boolValue ? 0o555 : 0o444)
        }
        let out = dir.path + "/out"
        defer {
            chmod(dir.path, 0o755)
            chmod(store, 0o755)
        }
        mkdir(out, 0o777)
        chmod(out, 0o777)
        chmod(dir.path, 0o755)  // the exports go into a folder the reader may write

        let list = try runAsReader(["list"], store: store)
        #expect(list.status == 0 && list.stdout.contains("Вечер"), "\(list.stderr)")
        #expect(try runAsReader(["show", String(id.prefix(8))], store: store).stdout.contains("Красной"))
        #expect(try runAsReader(["search", "Москва"], store: store).status == 0)
        #expect(try runAsReader(["search", "площадь"], store: store).stdout.contains("Вечер"))
        #expect(try runAsReader(["status", "--json"], store: store).status == 0)
        for (format, target) in [("json", out + "/dump"), ("markdown", out + "/md"), ("epub", out + "/book.epub")] {
            let run = try runAsReader(["export", format, target], store: store)
            #expect(run.status == 0, "export \(format): \(run.stderr)")
            #expect(FileManager.default.fileExists(atPath: target))
        }
        let write = try runAsReader(["add", "--title", "nope", "--body", "x"], store: store)
        #expect(write.status == 1 && write.stderr.contains("may not be written"), "\(write.stderr)")
        #expect(write.stderr.split(separator: "\n").count <= 2)
    }
}
