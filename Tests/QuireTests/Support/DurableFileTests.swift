import Foundation
import Testing
@testable import QuireSupport

/// The one durable write the store's files and the local repository's objects share: a
/// temporary that is gone again when filling it fails, a rename that replaces whole, a link
/// that refuses a name already taken, and failures that say which step and why.
@Suite struct DurableFileTests {
    let dir = TempDir()

    func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() }

    struct Refused: Error {}

    @Test func aFillThatFailsLeavesNothingBehind() throws {
        #expect(throws: Refused.self) {
            _ = try DurableFile.temporary(in: dir.path, prefix: ".t-") { fd in
                try DurableFile.writeAll(fd, UnsafeRawBufferPointer(start: "half", count: 4), path: "x")
                throw Refused()
            }
        }
        #expect(try names().isEmpty)
    }

    @Test func replaceSwapsTheWholeFileAndLinkRefusesATakenName() throws {
        let path = dir.path + "/object"
        for text in ["first", "second, longer"] {
            let temp = try DurableFile.temporary(in: dir.path, prefix: ".t-") { fd in
                try Array(text.utf8).withUnsafeBytes { try DurableFile.writeAll(fd, $0, path: path) }
            }
            try DurableFile.replace(path, with: temp)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
        }
        #expect(try names() == ["object"], "no temporary is left")

        let other = try DurableFile.temporary(in: dir.path, prefix: ".t-") { _ in }
        defer { unlink(other) }
        do {
            try DurableFile.link(path, to: other)
            Issue.record("a taken name was linked over")
        } catch {
            #expect(error.step == .link && error.code == EEXIST)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "second, longer")
    }

    @Test func aFolderThatIsNotThereIsACreateFaultNamingIt() {
        do {
            _ = try DurableFile.temporary(in: dir.path + "/missing", prefix: ".t-") { _ in }
            Issue.record("a temporary was made in a folder that is not there")
        } catch let fault as DurableFile.Fault {
            #expect(fault.step == .create && fault.code == ENOENT && fault.path.hasPrefix(dir.path + "/missing/"))
            #expect(fault.reason == "no such file or directory")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
