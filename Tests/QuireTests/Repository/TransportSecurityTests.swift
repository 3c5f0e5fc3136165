import Foundation
import Testing
@testable import QuireRemote
@testable import QuireStore

/// Credentials never cross a network in clear: plain http:// beyond this machine is refused
/// unless the user says --insecure-http, and even then Basic authentication is never sent.
@Suite struct TransportSecurityTests {
    @Test(arguments: [["remote", "set", "http://192.0.2.10/dav/journal/"], ["restore", "http://dav.example.org/journal/"]])
    func plainHTTPBeyondLoopbackIsRefused(command: [String]) throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        let run = try QuireBinary.run(command, store: store, environment: ["QUIRE_PASSPHRASE": "p"])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("quire: error: ") && run.stderr.contains("--insecure-http"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store + "/journal.sqlite"))  // refused before anything is written
    }

    @Test func loopbackAndTheUsersSayAreAccepted() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        #expect(try QuireBinary.run(["remote", "set", "http://127.0.0.1:8080/dav/"], store: store).status == 0)
        #expect(try QuireBinary.run(["remote", "set", "http://localhost:8080/dav/"], store: store).status == 0)
        #expect(try QuireBinary.run(["remote", "set", "http://192.0.2.10/dav/", "--insecure-http"], store: store).status == 0)
        #expect(try QuireBinary.run(["remote"], store: store).stdout.contains("192.0.2.10"))
    }

    @Test(arguments: ["localhost", "127.0.0.1", "127.1.2.3", "[::1]", "::1"])
    func loopbackNames(host: String) { #expect(WebDAVBackend.isLoopback(host)) }

    @Test(arguments: ["192.0.2.10", "127.0.0.1.example.org", "localhost.example.org", "10.0.0.1", "127.0.0", "example.org"])
    func otherHostsAreNotLoopback(host: String) { #expect(!WebDAVBackend.isLoopback(host)) }

    /// An active attacker on the path answers "Basic only": the password must not go out.
    @Test func basicIsNeverSentOverPlainHTTP() throws {
        let server = try StubServer { request in
            request.headers["authorization"] == nil
                ? .init(status: 401, headers: ["WWW-Authenticate": "Basic realm=\"quire\""]) : .init(status: 404)
        }
        var settings = HTTPSettings(user: "me", password: "hunter2")
        settings.insecureHTTP = true
        settings.resolve = ["dav.quire.test:\(server.port):127.0.0.1"]
        settings.attempts = 1
        let backend = try WebDAVBackend(url: "http://dav.quire.test:\(server.port)/repo/", settings: settings)
        #expect {
            _ = try backend.getData("quire-repo.json")
        } throws: { error in
            guard let e = error as? RemoteError else { return false }
            return e.kind == .unauthorized && e.description.contains("Basic") && !e.description.contains("hunter2")
        }
        #expect(!server.requests.isEmpty)
        #expect(server.requests.allSatisfy { $0.headers["authorization"] == nil })

        // The same server on loopback is this machine: Basic goes, as it does to the test Apache.
        let local = try WebDAVBackend(url: server.url, settings: HTTPSettings(user: "me", password: "hunter2"))
        #expect(throws: RemoteError.self) { _ = try local.getData("quire-repo.json") }
        #expect(server.requests.contains { $0.headers["authorization"]?.hasPrefix("Basic ") == true })
    }

    /// With --insecure-http a Digest server still works: the password itself never travels.
    @Test func digestIsSentOverPlainHTTP() throws {
        let server = try StubServer { request in
            guard let auth = request.headers["authorization"] else {
                return .init(status: 401, headers: ["WWW-Authenticate": "Digest realm=\"quire\", nonce=\"abc\", qop=\"auth\""])
            }
            return auth.hasPrefix("Digest ") ? .init(status: 404) : .init(status: 400)
        }
        var settings = HTTPSettings(user: "me", password: "hunter2")
        settings.insecureHTTP = true
        settings.resolve = ["dav.quire.test:\(server.port):127.0.0.1"]
        settings.attempts = 1
        let backend = try WebDAVBackend(url: "http://dav.quire.test:\(server.port)/repo/", settings: settings)
        #expect { _ = try backend.getData("quire-repo.json") } throws: { ($0 as? RemoteError)?.kind == .notFound }
        #expect(server.requests.contains { $0.headers["authorization"]?.hasPrefix("Digest ") == true })
        #expect(!server.requests.contains { $0.headers["authorization"]?.contains("hunter2") == true })
    }
}
