import Foundation
import Testing
@testable import QuireRemote

/// How often a server's authentication challenge is met, counted by a proxy in front of the
/// Apache the test command started (Basic at /dav/, Digest at /digest/). Every 401 is a round
/// trip, and a PUT sends its body until the 401 arrives and then again.
@Suite(.enabled(if: Backends.servers.contains { $0.name == "apache" }, "needs the Apache that scripts/test starts"))
struct AuthChallengeTests {
    /// A connection meets the challenge on its first request only: it then sends Basic up
    /// front, or answers the Digest nonce it keeps. Further connections made with the same
    /// settings start with Basic at once; with Digest each needs its own nonce, once.
    @Test(arguments: ["dav", "digest"])
    func eachConnectionMeetsTheChallengeAtMostOnce(area: String) throws {
        let apache = try #require(Backends.servers.first { $0.name == "apache" }?.url)
        let proxy = try FaultProxy(upstream: apache)
        let url = proxy.url("/\(area)/auth-\(UUID().uuidString.lowercased())/")
        let settings = Backends.settings
        let first = try WebDAVBackend(url: url, settings: settings)
        try first.makeFolder("f")
        for i in 0..<4 {
            try first.putData("f/o\(i)", Data(repeating: UInt8(i), count: 100_000))
            #expect(try first.getData("f/o\(i)").count == 100_000)
        }
        #expect(try first.list("f").count == 4)
        #expect(proxy.unauthenticated == 1, "one challenge for ten requests: \(proxy.log.joined(separator: "\n"))")
        let others = try (0..<3).map { _ in try WebDAVBackend(url: url, settings: settings) }
        for (i, other) in others.enumerated() {
            try other.putData("f/p\(i)", Data(repeating: 7, count: 100_000))
            try other.putData("f/q\(i)", Data(repeating: 8, count: 100_000))
        }
        #expect(proxy.unauthenticated == (area == "dav" ? 1 : 4), "\(proxy.log.joined(separator: "\n"))")
        #expect(try first.getData("f/q2") == Data(repeating: 8, count: 100_000))
    }
}
