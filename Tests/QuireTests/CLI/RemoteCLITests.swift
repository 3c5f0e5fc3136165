import Foundation
import Testing
@testable import QuireCLI
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

/// `quire remote`, `quire passwd` against a local-folder repository, as a person runs them.
@Suite struct RemoteCLITests {
    let cheap = ["QUIRE_KDF_COST": "1,8192"]

    func env(_ extra: [String: String]) -> [String: String] { cheap.merging(extra) { $1 } }

    @Test func initCheckAndChangeThePassphrase() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        #expect(try QuireBinary.run(["add", "--body", "private words"], store: store).status == 0)
        #expect(try QuireBinary.run(["remote", "set", "file://" + dir.path + "/repo"], store: store).status == 0)
        let initRun = try QuireBinary.run(["remote", "init"], store: store, environment: env(["QUIRE_PASSPHRASE": "first"]))
        #expect(initRun.status == 0, "\(initRun.stderr)")
        #expect(try QuireBinary.run(["remote", "check"], store: store, environment: env(["QUIRE_PASSPHRASE": "first"])).status == 0)
        let wrong = try QuireBinary.run(["remote", "check"], store: store, environment: env(["QUIRE_PASSPHRASE": "second"]))
        #expect(wrong.status == 1 && wrong.stderr.hasPrefix("quire: error: the passphrase opens no key"))
        let again = try QuireBinary.run(["remote", "init"], store: store, environment: env(["QUIRE_PASSPHRASE": "first"]))
        #expect(again.status == 1)

        let passFile = dir.file("new-pass", "second\n")
        let passwd = try QuireBinary.run(["passwd", "--new-passphrase-file", passFile], store: store, environment: env(["QUIRE_PASSPHRASE": "first"]))
        #expect(passwd.status == 0 && passwd.stderr.hasSuffix("the new one opens it, the old one no longer does.\n"), "\(passwd.stderr)")
        #expect(try QuireBinary.run(["remote", "check"], store: store, environment: env(["QUIRE_PASSPHRASE": "second"])).status == 0)
        #expect(try QuireBinary.run(["remote", "check"], store: store, environment: env(["QUIRE_PASSPHRASE": "first"])).status == 1)
        // Secrets never reach output or the repository's readable files.
        for run in [initRun, passwd] { #expect(!(run.stdout + run.stderr).contains("first") && !(run.stdout + run.stderr).contains("second")) }
        let config = dir.read("repo/quire-repo.json")
        #expect(config.contains("\"format\"") && !config.contains("private"))
    }

    /// Nextcloud and ownCloud keep what a DELETE names in the account's trash bin: after
    /// passwd the old key file is there, and the old passphrase opens it, so the person is
    /// told to delete it. Only their WebDAV (under /remote.php/) is said to have one.
    @Test func passwdOnNextcloudSaysTheOldKeyIsInTheTrashBin() {
        for url in ["https://cloud.example.org/remote.php/dav/files/anna/Journal/", "https://example.org/owncloud/remote.php/webdav/j/"] {
            #expect(WebDAVBackend.hasTrashBin(url), "\(url)")
        }
        for url in ["https://dav.example.org/journal/", "file:///srv/remote.php/dav/j", "https://example.org/remote.phpx/j/"] {
            #expect(!WebDAVBackend.hasTrashBin(url), "\(url)")
        }
        let trash = PasswdCommand.sentence(PassphraseChange(keyName: "new", oldKeyKept: false, oldKeyInTrash: true), repository: "1234abcd", oldKey: "keys/old")
        #expect(trash.contains("trash bin, the old key file (keys/old) among them") && trash.contains("delete it from Deleted files"))
        let kept = PasswdCommand.sentence(PassphraseChange(keyName: "new", oldKeyKept: true, oldKeyInTrash: false), repository: "1234abcd", oldKey: "keys/old")
        #expect(kept.contains("the bucket keeps old versions") && !kept.contains("no longer does"))
    }

    @Test func aSecondInitOnTheSameURLIsRefused() throws {
        let dir = TempDir()
        for name in ["a", "b"] {
            #expect(try QuireBinary.run(["remote", "set", "file://" + dir.path + "/repo"], store: dir.path + "/" + name).status == 0)
        }
        #expect(try QuireBinary.run(["remote", "init"], store: dir.path + "/a", environment: env(["QUIRE_PASSPHRASE": "p"])).status == 0)
        let second = try QuireBinary.run(["remote", "init"], store: dir.path + "/b", environment: env(["QUIRE_PASSPHRASE": "p"]))
        #expect(second.status == 1 && second.stderr.contains("already exists"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/repo/keys").count == 1)
    }

    @Test func aDifferentOrMissingRepositoryIsAHardErrorThatChangesNothing() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        #expect(try QuireBinary.run(["add", "--body", "mine"], store: store).status == 0)
        #expect(try QuireBinary.run(["remote", "set", "file://" + dir.path + "/ours"], store: store).status == 0)
        #expect(try QuireBinary.run(["remote", "init"], store: store, environment: env(["QUIRE_PASSPHRASE": "p"])).status == 0)
        // Another journal's repository, made with the same passphrase.
        #expect(try QuireBinary.run(["remote", "set", "file://" + dir.path + "/theirs"], store: dir.path + "/other").status == 0)
        #expect(try QuireBinary.run(["remote", "init"], store: dir.path + "/other", environment: env(["QUIRE_PASSPHRASE": "p"])).status == 0)
        let before = try QuireBinary.run(["export", "json", dir.path + "/before"], store: store)
        #expect(before.status == 0)
        let remoteBefore = try QuireBinary.run(["remote", "--json"], store: store).stdout

        for (url, words) in [("file://" + dir.path + "/theirs", "not the one this journal syncs with"),
                             ("file://" + dir.path + "/empty", "no Quire repository")] {
            #expect(try QuireBinary.run(["remote", "set", url], store: store).status == 0)
            for command in [["remote", "check"], ["passwd"]] {
                let run = try QuireBinary.run(command, store: store, environment: env(["QUIRE_PASSPHRASE": "p", "QUIRE_NEW_PASSPHRASE": "q"]))
                #expect(run.status == 1 && run.stderr.contains(words), "\(command): \(run.stderr)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/empty"))  // nothing created there either
        #expect(try QuireBinary.run(["export", "json", dir.path + "/after"], store: store).status == 0)
        #expect(dir.read("before/entries.jsonl") == dir.read("after/entries.jsonl"))
        let remoteAfter = try QuireBinary.run(["remote", "--json"], store: store).stdout
        let repository = { (text: String) in try JSONValue.parse(text).object?["repository"]?.string }
        #expect(try repository(remoteAfter) == repository(remoteBefore))
        #expect(try repository(remoteBefore)?.count == 36)
    }

    @Test func noPassphraseWithoutATerminalIsAClearError() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        #expect(try QuireBinary.run(["remote", "set", "file://" + dir.path + "/repo"], store: store).status == 0)
        let run = try QuireBinary.run(["remote", "init"], store: store, environment: ["QUIRE_PASSPHRASE": ""].merging(cheap) { $1 })
        #expect(run.status == 1 && run.stderr.contains("empty"))
        let missing = try QuireBinary.run(["remote", "init"], store: store, environment: cheap)
        #expect(missing.status == 1 && missing.stderr.contains("no passphrase"))
    }
}
