import Foundation
import Testing
@testable import QuireKit
@testable import QuireRemote
@testable import QuireStore

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

    /// A scheme learned in an earlier run is offered at once: Basic goes up front, and a sync
    /// begins without a refused request. One the server no longer wants is forgotten after
    /// one 401 (the request then asked again, its body sent again), for the next run too.
    /// (The proxy counts requests sent without credentials: Basic refused by the Digest area
    /// carried some, and its nonce lets the next request answer at once.)
    @Test(arguments: [("dav", "basic", 0, nil), ("dav", "digest", 1, "basic"), ("digest", "basic", 0, "digest"), ("digest", "digest", 1, nil)])
    func aRememberedSchemeIsOfferedFirstAndForgottenWhenWrong(area: String, remembered: String, challenges: Int, learned: String?) throws {
        let apache = try #require(Backends.servers.first { $0.name == "apache" }?.url)
        let proxy = try FaultProxy(upstream: apache)
        let url = proxy.url("/\(area)/remembered-\(UUID().uuidString.lowercased())/")
        let settings = Backends.settings
        settings.schemes.remember(remembered)
        let backend = try WebDAVBackend(url: url, settings: settings)
        try backend.makeFolder("f")
        try backend.putData("f/o", Data(repeating: 1, count: 100_000))
        #expect(try backend.getData("f/o").count == 100_000)
        #expect(proxy.unauthenticated == challenges, "\(proxy.log.joined(separator: "\n"))")
        #expect(settings.schemes.toRemember == learned)
    }

    /// A journal keeps the scheme in its store: its second sync meets no challenge.
    @Test func aJournalsSecondSyncMeetsNoChallenge() throws {
        let apache = try #require(Backends.servers.first { $0.name == "apache" }?.url)
        let proxy = try FaultProxy(upstream: apache)
        let dir = TempDir()
        let journal = try Journal(folder: dir.path + "/j", create: true)
        let password = Backends.settings.password
        journal.connection.password = { _ in password }
        try journal.setRemote(RemoteAddress(url: proxy.url("/dav/journal-\(UUID().uuidString.lowercased())/"), user: Backends.settings.user))
        let passphrase = try SecureBytes(copying: Array("auth test".utf8))
        try journal.createRepository(passphrase: passphrase, cost: .interactive)
        _ = try journal.store.add(NewEntry(title: "one", body: "a"))
        try journal.sync(.cachedKeyOnly)
        #expect(try journal.store.remoteSettings()?.authScheme == "basic")
        let before = proxy.unauthenticated
        let again = try Journal(folder: dir.path + "/j")
        again.connection.password = { _ in password }
        _ = try again.store.add(NewEntry(title: "two", body: "b"))
        try again.sync(.cachedKeyOnly)
        #expect(proxy.unauthenticated == before, "\(proxy.log.joined(separator: "\n"))")
        // Pointed elsewhere, the store forgets what this server asked for.
        try again.setRemote(RemoteAddress(url: proxy.url("/dav/elsewhere/"), user: Backends.settings.user))
        #expect(try again.store.remoteSettings()?.authScheme == nil)
    }
}
