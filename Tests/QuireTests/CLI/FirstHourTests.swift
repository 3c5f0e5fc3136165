import Foundation
import Testing
@testable import QuireStore

/// What broke a newcomer's first hour, each driven through the CLI as a person runs it.
@Suite struct FirstHourTests {
    static let env = ["QUIRE_KDF_COST": "1,8192"]

    /// A journal in a folder repository, synced once.
    func repository(_ dir: TempDir) throws -> String {
        let (a, repo) = (dir.path + "/a", "file://" + dir.path + "/repo")
        #expect(try QuireBinary.run(["add", "--title", "первая", "--body", "x"], store: a).status == 0)
        #expect(try QuireBinary.run(["remote", "set", repo], store: a).status == 0)
        #expect(try QuireBinary.run(["remote", "init"], store: a, environment: Self.env.merging(["QUIRE_PASSPHRASE": "right"]) { $1 }).status == 0)
        #expect(try QuireBinary.run(["sync"], store: a, environment: Self.env).status == 0)
        return repo
    }

    @Test func aRestoreWithAWrongPassphraseLeavesNothingAndCanBeRunAgain() throws {
        let dir = TempDir()
        let repo = try repository(dir)
        let new = dir.path + "/new"
        let wrong = try QuireBinary.run(["restore", repo], store: new, environment: Self.env.merging(["QUIRE_PASSPHRASE": "wrong"]) { $1 })
        #expect(wrong.status == 1 && wrong.stderr.contains("passphrase"), "\(wrong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: new), "the failed restore left its store behind")
        let right = try QuireBinary.run(["restore", repo], store: new, environment: Self.env.merging(["QUIRE_PASSPHRASE": "right"]) { $1 })
        #expect(right.status == 0, "\(right.stderr)")
        #expect(try QuireBinary.run(["list"], store: new).stdout.contains("первая"))
    }

    /// A folder the person made beforehand stays, and the retry works in it too.
    @Test func aRestoreIntoAFolderMadeBeforeCanBeRunAgain() throws {
        let dir = TempDir()
        let repo = try repository(dir)
        let new = dir.path + "/made"
        try FileManager.default.createDirectory(atPath: new, withIntermediateDirectories: true)
        #expect(try QuireBinary.run(["restore", repo], store: new, environment: Self.env.merging(["QUIRE_PASSPHRASE": "wrong"]) { $1 }).status == 1)
        #expect(FileManager.default.fileExists(atPath: new))
        let right = try QuireBinary.run(["restore", repo], store: new, environment: Self.env.merging(["QUIRE_PASSPHRASE": "right"]) { $1 })
        #expect(right.status == 0, "\(right.stderr)")
    }

    /// A server that takes the connection and says nothing: a terminal shows the wait and
    /// each try again; then one line names the server, with a hint. Three tries, then done.
    @Test func aSilentServerIsNamedAfterAFewTriesAndTheWaitIsShown() throws {
        let (listener, port) = try Loopback.listen()
        let accepted = Counter()
        Thread.detachNewThread {
            var held: [Int32] = []
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { break }
                held.append(client)  // never read, never answered
                _ = accepted.next()
            }
            held.forEach { close($0) }
        }
        defer { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }
        let dir = TempDir()
        let store = dir.path + "/s"
        #expect(try QuireBinary.run(["remote", "set", "http://127.0.0.1:\(port)/dav/"], store: store).status == 0)
        let terminal = try Terminal(["remote", "init"], store: store,
                                    environment: Self.env.merging(["QUIRE_PASSPHRASE": "pw", "QUIRE_HTTP_LOW_SPEED_TIME": "2"]) { $1 })
        #expect(terminal.waitFor("waiting for 127.0.0.1:\(port) to answer"), "\(terminal.output)")
        #expect(terminal.waitFor("asking again (try 2 of 3)"), "\(terminal.output)")
        #expect(terminal.finish() == 1)
        let screen = terminal.output
        #expect(screen.contains("quire: error: ") && screen.contains("127.0.0.1:\(port) took the connection but sent no answer in 2 s (3 tries)"), "\(screen)")
        #expect(screen.contains("hint: something at that address took the connection but said nothing"))
        #expect(accepted.next() == 3, "three tries, each on a new connection")
    }

    @Test func aRefusedConnectionSaysSoAndHowToFixIt() throws {
        let (listener, port) = try Loopback.listen()
        close(listener)  // nothing listens there now
        let dir = TempDir()
        let store = dir.path + "/s"
        #expect(try QuireBinary.run(["remote", "set", "http://127.0.0.1:\(port)/dav/"], store: store).status == 0)
        let run = try QuireBinary.run(["remote", "init"], store: store, environment: Self.env.merging(["QUIRE_PASSPHRASE": "pw"]) { $1 })
        #expect(run.status == 1 && run.stderr.contains("127.0.0.1:\(port) refused the connection"), "\(run.stderr)")
        #expect(run.stderr.contains("hint: is the server running, and is the port in the URL right?"))
        #expect(run.stderr.split(separator: "\n").count == 2)
    }

    /// When this process is root, `nobody` (whom permissions bind) runs the command; a folder
    /// `nobody` owns holds its store.
    var user: String? { getuid() == 0 ? "nobody" : nil }

    func ownFolder(_ dir: TempDir, _ name: String) -> String {
        let path = dir.path + "/" + name
        mkdir(path, 0o700)
        if getuid() == 0 { chown(path, 65534, 65534) }
        return path
    }

    @Test func aSourceGivenToTheWrongImporterIsNamedWithTheRightCommand() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        let jrnl = dir.file("journal.txt", "[2025-03-01 21:14] Vendredi. Au marché @paris\n\n[2025-03-02 08:00] Samedi.\n")
        let run = try QuireBinary.run(["import", jrnl], store: store)
        #expect(run.status == 1 && run.stderr.contains("is not Quire's JSON lines; it looks like a jrnl journal"), "\(run.stderr)")
        #expect(run.stderr.contains("hint: did you mean `quire import jrnl \(jrnl)`?"))
        #expect(!FileManager.default.fileExists(atPath: store), "nothing was made")
        _ = dir.file("Obsidian/Journal/2025-03-01.md", "# Bastille\n")
        let folder = try QuireBinary.run(["import", dir.path + "/Obsidian/Journal"], store: store)
        #expect(folder.status == 1 && folder.stderr.contains("is a folder") && folder.stderr.contains("quire import markdown \(dir.path)/Obsidian/Journal"),
                "\(folder.stderr)")
        let wrong = try QuireBinary.run(["import", "dayone", jrnl], store: store)
        #expect(wrong.status == 1 && wrong.stderr.contains("did you mean `quire import jrnl"), "\(wrong.stderr)")
        #expect(try QuireBinary.run(["import", "jrnl", jrnl], store: store).status == 0)
    }

    /// An export into a folder this user may not write names that folder and the reason,
    /// never a hidden working file inside it; nothing is left behind.
    @Test(.enabled(if: QuireBinary.otherUserCanRun, QuireBinary.otherUserSkipReason))
    func anExportIntoAFolderThatCannotBeWrittenSaysSo() throws {
        let dir = TempDir()
        let home = ownFolder(dir, "home")
        let store = home + "/s"
        #expect(try QuireBinary.run(["add", "--title", "t", "--body", "x"], store: store, asUser: user).status == 0)
        let closed = dir.path + "/closed"
        mkdir(closed, 0o555)
        chmod(closed, 0o555)
        if getuid() != 0 { chmod(closed, 0o555) }
        for (format, target) in [("epub", closed + "/book.epub"), ("markdown", closed + "/md"), ("json", closed + "/dump")] {
            let run = try QuireBinary.run(["export", format, target], store: store, asUser: user)
            #expect(run.status == 1 && run.stderr.contains(closed) && run.stderr.contains("permission denied"), "\(format): \(run.stderr)")
            #expect(!run.stderr.contains(".quire"), "\(format): \(run.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: closed).isEmpty)
    }

    /// `file:///media/usb/journal` with no disk in: the repository is not made on this
    /// machine's own disk. Quire makes only the last folder of the URL, in a folder that is there.
    @Test func aFolderRepositoryIsMadeOnlyWhereItsParentIs() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        #expect(try QuireBinary.run(["add", "--body", "x"], store: store).status == 0)
        #expect(try QuireBinary.run(["remote", "set", "file://" + dir.path + "/usb/journal"], store: store).status == 0)
        let run = try QuireBinary.run(["remote", "init"], store: store, environment: Self.env.merging(["QUIRE_PASSPHRASE": "pw"]) { $1 })
        #expect(run.status == 1 && run.stderr.contains(dir.path + "/usb: no such folder") && run.stderr.contains("is the disk mounted?"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/usb"))
        if getuid() == 0 {  // a folder under /mnt that no disk is mounted on
            let mountPoint = "/mnt/quire-test-" + UUID().uuidString.lowercased()
            mkdir(mountPoint, 0o755)
            defer { rmdir(mountPoint) }
            #expect(try QuireBinary.run(["remote", "set", "file://" + mountPoint + "/journal"], store: store).status == 0)
            let unmounted = try QuireBinary.run(["remote", "init"], store: store, environment: Self.env.merging(["QUIRE_PASSPHRASE": "pw"]) { $1 })
            #expect(unmounted.status == 1 && unmounted.stderr.contains("no disk is mounted here"), "\(unmounted.stderr)")
            #expect(!FileManager.default.fileExists(atPath: mountPoint + "/journal"))
        }
        #expect(try QuireBinary.run(["remote", "set", "file://" + dir.path + "/journal"], store: store).status == 0)
        #expect(try QuireBinary.run(["remote", "init"], store: store, environment: Self.env.merging(["QUIRE_PASSPHRASE": "pw"]) { $1 }).status == 0)
    }

    /// A folder repository this user may not write: the error names the folder on disk and
    /// says "permission denied", not an internal object name.
    @Test(.enabled(if: QuireBinary.otherUserCanRun, QuireBinary.otherUserSkipReason))
    func aFolderRepositoryThatCannotBeWrittenSaysPermissionDenied() throws {
        let dir = TempDir()
        let home = ownFolder(dir, "home")
        let store = home + "/s"
        let repo = dir.path + "/repo"
        mkdir(repo, 0o555)
        chmod(repo, 0o555)
        #expect(try QuireBinary.run(["add", "--body", "x"], store: store, asUser: user).status == 0)
        #expect(try QuireBinary.run(["remote", "set", "file://" + repo], store: store, asUser: user).status == 0)
        let run = try QuireBinary.run(["remote", "init"], store: store, environment: Self.env.merging(["QUIRE_PASSPHRASE": "pw"]) { $1 }, asUser: user)
        #expect(run.status == 1 && run.stderr.contains(repo) && run.stderr.contains("permission denied"), "\(run.stderr)")
        #expect(!run.stderr.contains("keys/"), "\(run.stderr)")
    }

    /// The prompt says what was wrong and asks again: a passphrase too short for a new
    /// repository, two that differ, an empty one; a wrong one when opening.
    @Test func thePromptForgivesAndExplains() throws {
        let dir = TempDir()
        let (a, repo) = (dir.path + "/a", "file://" + dir.path + "/repo")
        #expect(try QuireBinary.run(["add", "--title", "первая", "--body", "x"], store: a).status == 0)
        #expect(try QuireBinary.run(["remote", "set", repo], store: a).status == 0)
        let good = "correct horse battery staple"
        let initialise = try Terminal(["remote", "init"], store: a, environment: Self.env)
        #expect(initialise.waitFor("New repository passphrase: "))
        initialise.type("abc")
        #expect(initialise.waitFor("too short"), "\(initialise.output)")
        #expect(initialise.waitFor("New repository passphrase: ", times: 2))
        initialise.type(good)
        #expect(initialise.waitFor("Again: "))
        initialise.type(good + "!")
        #expect(initialise.waitFor("The two passphrases differ; once more."))
        #expect(initialise.waitFor("New repository passphrase: ", times: 3))
        initialise.type(good)
        #expect(initialise.waitFor("Again: ", times: 2))
        initialise.type(good)
        #expect(initialise.finish() == 0, "\(initialise.output)")
        #expect(!initialise.output.contains(good), "a passphrase is never echoed")
        #expect(try QuireBinary.run(["sync"], store: a, environment: Self.env).status == 0)

        let restore = try Terminal(["restore", repo], store: dir.path + "/new", environment: Self.env)
        #expect(restore.waitFor("Repository passphrase: "))
        restore.type("")
        #expect(restore.waitFor("The passphrase is empty"), "\(restore.output)")
        #expect(restore.waitFor("Repository passphrase: ", times: 2))
        restore.type("wrong words entirely")
        #expect(restore.waitFor("That passphrase opens no key of this repository; try again (2 of 3)."), "\(restore.output)")
        #expect(restore.waitFor("Repository passphrase: ", times: 3))
        restore.type(good)
        #expect(restore.finish() == 0, "\(restore.output)")
        #expect(try QuireBinary.run(["list"], store: dir.path + "/new").stdout.contains("первая"))
    }

    /// A short passphrase from the environment is the script's choice: taken, with a warning
    /// after the repository is made.
    @Test func aShortPassphraseFromTheEnvironmentIsWarnedOf() throws {
        let dir = TempDir()
        let a = dir.path + "/a"
        #expect(try QuireBinary.run(["add", "--body", "x"], store: a).status == 0)
        #expect(try QuireBinary.run(["remote", "set", "file://" + dir.path + "/repo"], store: a).status == 0)
        let run = try QuireBinary.run(["remote", "init"], store: a, environment: Self.env.merging(["QUIRE_PASSPHRASE": "abc"]) { $1 })
        #expect(run.status == 0 && run.stderr.contains("warning: the passphrase has only 3 characters"), "\(run.stderr)")
        let empty = try QuireBinary.run(["sync"], store: dir.path + "/b", environment: ["QUIRE_PASSPHRASE": ""])
        #expect(empty.status == 1)
    }
}
