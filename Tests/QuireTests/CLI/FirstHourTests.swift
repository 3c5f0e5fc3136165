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
}
