import Foundation
import Testing
@testable import QuireStore

/// `quire remote init` and `check` against servers that answer badly: one clear line, exit 1,
/// and nothing written in the journal.
@Suite struct ServerFailureCLITests {
    let environment = ["QUIRE_KDF_COST": "1,8192", "QUIRE_PASSPHRASE": "p", "QUIRE_HTTP_ATTEMPTS": "2",
                       "QUIRE_WEBDAV_PASSWORD": "pw"]

    @Test(arguments: [(401, "valid user and password"), (403, "refuses"), (500, "busy or failing"), (507, "out of space"),
                      (207, "not one well-formed XML document"), (404, "not found")])
    func eachFailureIsOneLineAndChangesNothing(status: Int, words: String) throws {
        let server = try StubServer { _ in .init(status: status, body: Data("<html>broken".utf8)) }
        let dir = TempDir()
        let store = dir.path + "/s"
        #expect(try QuireBinary.run(["add", "--body", "keep"], store: store).status == 0)
        #expect(try QuireBinary.run(["remote", "set", server.url, "--user", "me"], store: store).status == 0)
        let before = try QuireBinary.run(["remote", "--json"], store: store).stdout
        for command in [["remote", "init"], ["remote", "check"]] {
            let run = try QuireBinary.run(command, store: store, environment: environment)
            #expect(run.status == 1, "\(command) with \(status): \(run.stderr)")
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.first?.hasPrefix("quire: error: ") == true && lines.count <= 2)
            #expect(run.stderr.contains(words) || command == ["remote", "check"], "\(command) with \(status): \(run.stderr)")
            #expect(!run.stderr.contains("pw"))
        }
        #expect(try QuireBinary.run(["remote", "--json"], store: store).stdout == before)  // no repository recorded
        #expect(try QuireBinary.run(["list"], store: store).stdout.contains("keep"))
    }

    @Test func netrcSuppliesCredentials() throws {
        let server = try StubServer { request in
            guard request.headers["authorization"] != nil else {
                return .init(status: 401, headers: ["WWW-Authenticate": "Basic realm=\"quire\""])
            }
            return .init(status: 404)
        }
        let dir = TempDir()
        _ = dir.file("home/.netrc", "machine 127.0.0.1 login netrc-user password netrc-pass\n")
        chmod(dir.path + "/home/.netrc", 0o600)
        let store = dir.path + "/s"
        #expect(try QuireBinary.run(["remote", "set", server.url], store: store).status == 0)
        let run = try QuireBinary.run(["remote", "check"], store: store, environment: ["HOME": dir.path + "/home", "QUIRE_PASSPHRASE": "p"])
        #expect(run.status == 1 && run.stderr.contains("no Quire repository"), "\(run.stderr)")
        let sent = server.requests.compactMap { $0.headers["authorization"] }
        #expect(sent.contains("Basic " + Data("netrc-user:netrc-pass".utf8).base64EncodedString()))
    }
}
