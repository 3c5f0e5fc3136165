import Foundation
import Testing
@testable import QuireRemote

/// A server of one's own whose certificate no public CA signed: a private CA, or a
/// self-signed certificate. The test's SeaweedFS (S3) and Apache (WebDAV) behind a TLS front
/// (Fixtures/tls/forward.py) with such a certificate: refused without `--ca-file`, in one
/// line that says what to do; trusted with it, for remote init, sync and restore; and a CA
/// file that does not vouch for the server is said to be the wrong one.
@Suite(.enabled(if: !Backends.s3Servers.isEmpty, "needs the SeaweedFS that scripts/test starts"))
struct TLSTrustTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/tls").path

    /// A TLS front with `certificate` for the server at `upstream` (a URL on 127.0.0.1), on a
    /// free port of 127.0.0.1; stopped by its PID when the value goes. (forward.py says its
    /// port and PID and leaves the front running in a process that holds nothing of this
    /// one's: the pipes of quires other tests start meanwhile.)
    final class Front {
        let port: Int
        let pid: pid_t

        init(certificate: String, upstream: String) throws {
            let upstreamPort = try #require(URLComponents(string: upstream)?.port)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", fixtures + "/forward.py", fixtures + "/\(certificate).pem", fixtures + "/\(certificate).key", String(upstreamPort)]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            // Its one line, then its end (the events to wait for, not a clock).
            let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: " ")
            process.waitUntilExit()
            guard said.count == 2, let port = Int(said[0]), let pid = pid_t(said[1].trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw TLSFrontError(said: said.joined(separator: " "))
            }
            (self.port, self.pid) = (port, pid)
        }

        deinit { kill(pid, SIGTERM) }
    }

    struct TLSFrontError: Error { let said: String }

    let dir = TempDir()
    var keys: [String: String] {
        SyncCLITests.env.merging(["AWS_ACCESS_KEY_ID": Backends.s3Credentials.accessKey, "AWS_SECRET_ACCESS_KEY": Backends.s3Credentials.secretKey,
                                  "QUIRE_WEBDAV_PASSWORD": Backends.settings.password ?? ""]) { $1 }
    }

    /// The test's S3 server through `front`: a fresh prefix of its bucket, and the options.
    func bucket(through front: Front) throws -> (url: String, options: [String]) {
        let server = try #require(Backends.s3Servers.first)
        let address = try S3Address(url: server.url)
        return ("s3://\(address.bucket)/tls-\(UUID().uuidString.prefix(8).lowercased())", ["--endpoint", "https://127.0.0.1:\(front.port)", "--path-style"])
    }

    @Test func aPrivateCAIsTrustedWithCAFileAndOnlyThen() throws {
        let front = try Front(certificate: "server", upstream: try S3Address(url: try #require(Backends.s3Servers.first).url).endpoint)
        let (url, options) = try bucket(through: front)
        let (a, b) = (dir.path + "/a", dir.path + "/b")
        #expect(try QuireBinary.run(["add", "--title", "Through TLS", "--body", "a private CA"], store: a, stdin: "").status == 0)
        #expect(try QuireBinary.run(["remote", "set", url] + options, store: a).status == 0)
        let refused = try QuireBinary.run(["remote", "init"], store: a, environment: keys)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("its TLS certificate is not one this machine trusts") && refused.stderr.contains("--ca-file F"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "one line that says what to do: \(refused.stderr)")

        let ca = Self.fixtures + "/ca.pem"
        #expect(try QuireBinary.run(["remote", "set", url, "--ca-file", ca] + options, store: a).status == 0)
        #expect(try QuireBinary.run(["remote"], store: a).stdout.contains("ca file:    \(ca)"))
        let initialised = try QuireBinary.run(["remote", "init"], store: a, environment: keys)
        #expect(initialised.status == 0, "\(initialised.stderr)")
        let synced = try QuireBinary.run(["sync"], store: a, environment: keys)
        #expect(synced.status == 0, "\(synced.stderr)")
        // A new machine: refused without the CA, restored with it, and it keeps it for its syncs.
        let bare = try QuireBinary.run(["restore", url] + options, store: b, environment: keys)
        #expect(bare.status == 1 && bare.stderr.contains("not one this machine trusts"), "\(bare.stderr)")
        let restored = try QuireBinary.run(["restore", url, "--ca-file", ca] + options, store: b, environment: keys)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try QuireBinary.run(["list"], store: b).stdout.contains("Through TLS"))
        #expect(try QuireBinary.run(["sync"], store: b, environment: keys).status == 0)
    }

    @Test func aSelfSignedCertificateIsItsOwnCAFile() throws {
        let front = try Front(certificate: "selfsigned", upstream: try S3Address(url: try #require(Backends.s3Servers.first).url).endpoint)
        let (url, options) = try bucket(through: front)
        let a = dir.path + "/a"
        #expect(try QuireBinary.run(["add", "--title", "x"], store: a, stdin: "").status == 0)
        // Another CA's certificate does not vouch for it: said so, naming the file.
        let other = Self.fixtures + "/ca.pem"
        #expect(try QuireBinary.run(["remote", "set", url, "--ca-file", other] + options, store: a).status == 0)
        let wrong = try QuireBinary.run(["remote", "init"], store: a, environment: keys)
        #expect(wrong.status == 1 && wrong.stderr.contains("the CA file \(other) does not vouch for it"), "\(wrong.stderr)")
        let own = Self.fixtures + "/selfsigned.pem"
        #expect(try QuireBinary.run(["remote", "set", url, "--ca-file", own] + options, store: a).status == 0)
        let initialised = try QuireBinary.run(["remote", "init"], store: a, environment: keys)
        #expect(initialised.status == 0, "\(initialised.stderr)")
        #expect(try QuireBinary.run(["sync"], store: a, environment: keys).status == 0)
    }

    /// WebDAV through the same front: a repository written over plain HTTP on this machine's
    /// Apache restores over TLS with the CA. (Writes are S3's test: Apache's MOVE refuses a
    /// Destination whose scheme is not its own, as it does behind any TLS proxy that does not
    /// rewrite that header; that refusal is said once, with the remedy.)
    @Test(.enabled(if: Backends.servers.contains { $0.name == "apache" }, "needs the Apache that scripts/test starts"))
    func aWebDAVServerBehindAPrivateCARestores() throws {
        let apache = try #require(Backends.servers.first { $0.name == "apache" }?.url)
        let collection = "tls-" + UUID().uuidString.lowercased() + "/"
        let (a, b) = (dir.path + "/a", dir.path + "/b")
        #expect(try QuireBinary.run(["add", "--title", "Over WebDAV"], store: a, stdin: "").status == 0)
        #expect(try QuireBinary.run(["remote", "set", apache + collection, "--user", "quire"], store: a).status == 0)
        #expect(try QuireBinary.run(["remote", "init"], store: a, environment: keys).status == 0)
        #expect(try QuireBinary.run(["sync"], store: a, environment: keys).status == 0)
        let front = try Front(certificate: "server", upstream: apache)
        let path = try #require(URLComponents(string: apache)?.path)
        let url = "https://127.0.0.1:\(front.port)\(path)\(collection)"
        // Writing through the front: Apache's MOVE refuses a Destination on another scheme
        // and port, as behind any proxy that ends TLS. Said once, with the remedy, not
        // retried as if the server were busy.
        let c = dir.path + "/c"
        #expect(try QuireBinary.run(["add", "--title", "x"], store: c, stdin: "").status == 0)
        #expect(try QuireBinary.run(["remote", "set", url + "other/", "--user", "quire", "--ca-file", Self.fixtures + "/ca.pem"], store: c).status == 0)
        let proxied = try QuireBinary.run(["remote", "init"], store: c, environment: keys)
        #expect(proxied.status == 1 && proxied.stderr.contains("reached through a proxy that ends TLS"), "\(proxied.stderr)")
        #expect(proxied.stderr.contains("Apache: set ServerName https://127.0.0.1:\(front.port)") && !proxied.stderr.contains("tries"), "\(proxied.stderr)")
        #expect(proxied.stderr.split(separator: "\n").count == 1, "\(proxied.stderr)")
        let bare = try QuireBinary.run(["restore", url, "--user", "quire"], store: b, environment: keys)
        #expect(bare.status == 1 && bare.stderr.contains("not one this machine trusts"), "\(bare.stderr)")
        let restored = try QuireBinary.run(["restore", url, "--user", "quire", "--ca-file", Self.fixtures + "/ca.pem"], store: b, environment: keys)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try QuireBinary.run(["list"], store: b).stdout.contains("Over WebDAV"))
    }

    @Test func aCAFileThatIsNoCertificateIsRefusedUpFront() throws {
        let a = dir.path + "/a"
        let missing = try QuireBinary.run(["remote", "set", "https://dav.example.org/journal/", "--ca-file", dir.path + "/none.pem"], store: a)
        #expect(missing.status == 2 && missing.stderr.contains("cannot read the CA file \(dir.path)/none.pem"), "\(missing.stderr)")
        let key = try QuireBinary.run(["remote", "set", "https://dav.example.org/journal/", "--ca-file", Self.fixtures + "/server.key"], store: a)
        #expect(key.status == 2 && key.stderr.contains("holds no PEM certificate"), "\(key.stderr)")
        let folder = try QuireBinary.run(["remote", "set", "file://" + dir.path + "/repo", "--ca-file", Self.fixtures + "/ca.pem"], store: a)
        #expect(folder.status == 2 && folder.stderr.contains("--ca-file goes with an https:// or s3:// remote"), "\(folder.stderr)")
    }
}
