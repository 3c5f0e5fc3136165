import Foundation
import Testing
@testable import QuireStore

/// Sync through a proxy that fails in the ways real networks and servers do, in front of the
/// Apache the test command started. Each fault: sync retries or fails with a clear error, and
/// a later sync converges.
@Suite(.enabled(if: Backends.servers.contains { $0.name == "apache" }, "needs the Apache that scripts/test starts"))
struct FaultTests {
    static let env = ["QUIRE_KDF_COST": "1,8192", "QUIRE_PASSPHRASE": "pw", "QUIRE_HTTP_ATTEMPTS": "4",
                      "QUIRE_HTTP_LOW_SPEED_TIME": "2", "QUIRE_WEBDAV_PASSWORD": Backends.settings.password ?? ""]

    /// Runs a sync through the proxy with `fault` as its policy, checks that the sync succeeded
    /// (or failed with `expectFailure`) and that a later one converges; returns the proxy, so
    /// a test can check which faults it injected.
    @discardableResult
    func run(_ fault: @escaping @Sendable (Int, String, String) -> FaultProxy.Fault, expectFailure: String? = nil) throws -> FaultProxy {
        let apache = try #require(Backends.servers.first { $0.name == "apache" }?.url)
        let proxy = try FaultProxy(upstream: apache)
        let dir = TempDir()
        let base = URL(string: apache)?.path ?? "/dav"
        let collection = (base.hasSuffix("/") ? base : base + "/") + "fault-" + UUID().uuidString.lowercased() + "/"
        let (a, b) = (dir.path + "/a", dir.path + "/b")
        let user = Backends.settings.user ?? "quire"
        #expect(try QuireBinary.run(["import", InterchangeTests.sampleFile(in: dir)], store: a).status == 0)
        #expect(try QuireBinary.run(["remote", "set", proxy.url(collection), "--user", user], store: a).status == 0)
        #expect(try QuireBinary.run(["remote", "set", "http://127.0.0.1:\(proxy.upstreamPort)" + collection, "--user", user], store: b).status == 0)
        let initialised = try QuireBinary.run(["remote", "init"], store: a, environment: Self.env)
        #expect(initialised.status == 0, "\(initialised.stderr)\n\(proxy.log.joined(separator: "\n"))")

        proxy.policy = fault
        let faulty = try QuireBinary.run(["sync", "--json"], store: a, environment: Self.env)
        if let words = expectFailure {
            #expect(faulty.status == 1 && faulty.stderr.contains(words), "\(faulty.stderr)\n\(proxy.log.joined(separator: "\n"))")
            #expect(faulty.stderr.split(separator: "\n").count <= 2)
        } else {
            #expect(faulty.status == 0, "\(faulty.stderr)\n\(proxy.log.joined(separator: "\n"))")
        }
        #expect(!proxy.injected.isEmpty, "the sync made too few requests for any fault to be injected: \(proxy.log)")
        proxy.policy = { _, _, _ in .pass }
        #expect(try QuireBinary.run(["sync"], store: a, environment: Self.env).status == 0)
        let pulled = try QuireBinary.run(["sync"], store: b, environment: Self.env)
        #expect(pulled.status == 0, "\(pulled.stderr)")
        var dumps: [String] = []
        for store in [a, b] {
            let out = dir.path + "/dump-" + UUID().uuidString
            #expect(try QuireBinary.run(["export", "json", out], store: store).status == 0)
            dumps.append((try? String(contentsOfFile: out + "/entries.jsonl", encoding: .utf8)) ?? "")
        }
        #expect(dumps[0] == dumps[1] && !dumps[0].isEmpty)
        let verified = try QuireBinary.run(["verify", "--read-data"], store: b, environment: Self.env)
        #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
        return proxy
    }

    @Test func busyServersAreRetried() throws {
        let proxy = try run { n, _, _ in n > 3 && n % 3 == 0 ? .status(n % 2 == 0 ? 503 : 500) : .pass }
        #expect(proxy.injected.contains(.status(503)) && proxy.injected.contains(.status(500)), "\(proxy.injected)")
    }

    /// Counts the uploads the proxy has seen, so every other one is cut whatever the order
    /// of requests (which changes as the sync does).
    final class EveryOther: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func next() -> Bool { lock.withLock { count += 1; return count % 2 == 1 } }
    }

    @Test func connectionsCutMidBodyAreRetried() throws {
        let uploads = EveryOther()
        let proxy = try run { n, method, _ in
            guard n > 3 else { return .pass }
            if method == "PUT" { return uploads.next() ? .cutUpload : .pass }
            return n % 4 == 0 ? .cutResponse : .pass
        }
        #expect(proxy.injected.contains(.cutUpload) && proxy.injected.contains(.cutResponse), "\(proxy.injected)")
    }

    /// The proxy answers one request never: the client's low-speed limit (2 s here) ends it
    /// and the request is sent again.
    @Test func aStalledServerTimesOutAndIsRetried() throws {
        let proxy = try run { n, _, _ in n == 6 ? .stall : .pass }
        #expect(proxy.injected == [.stall] && proxy.stallsOutwaited == 0, "the client waited for the stalled server forever")
    }

    /// Every other folder listing comes back whole and then followed by an error's text
    /// (rclone's answer when a file vanished while it listed): each is asked again.
    @Test func listingsFollowedByAnErrorAreAskedAgain() throws {
        let listings = Counter()
        let proxy = try run { _, method, _ in method == "PROPFIND" && listings.next() % 2 == 0 ? .textAfterBody : .pass }
        #expect(proxy.injected.contains(.textAfterBody), "\(proxy.log)")
    }

    @Test func aFullServerIsAClearErrorAndALaterSyncConverges() throws {
        let proxy = try run({ _, method, _ in method == "PUT" ? .status(507) : .pass }, expectFailure: "out of space")
        #expect(proxy.injected.first == .status(507))
    }

    @Test func aServerThatNeverRecoversIsAClearError() throws {
        let proxy = try run({ n, _, _ in n > 3 ? .status(503) : .pass }, expectFailure: "busy or failing")
        #expect(proxy.injected.count >= 4, "QUIRE_HTTP_ATTEMPTS=4 tries of a request, each refused: \(proxy.injected)")
    }
}

