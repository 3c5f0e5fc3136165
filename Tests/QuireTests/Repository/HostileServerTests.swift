import Foundation
import Testing
@testable import QuireCrypto
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

/// A hostile server gets a bounded cost: key files ask for at most SENSITIVE Argon2id and few
/// are tried; folder listings are capped in size and time.
@Suite struct HostileServerTests {
    @Test func aKeyFileAskingForMoreThanSensitiveIsRefused() throws {
        let dir = TempDir()
        let backend = LocalBackend(root: dir.path + "/repo")
        let repository = try Repository.initialize(backend: backend, passphrase: try secret("pw"), cost: testCost)
        let name = try #require(try backend.list("keys").first?.name)
        var file = try KeyFile.decode(try backend.getData("keys/" + name), name: name)
        for (ops, mem) in [(UInt64(64), testCost.memlimit), (testCost.opslimit, UInt64(4) << 30), (5, testCost.memlimit)] {
            file.opslimit = ops
            file.memlimit = mem
            #expect {
                _ = try file.unwrap(passphrase: try secret("pw"), repositoryID: repository.id, name: name)
            } throws: { ($0 as? CryptoError)?.kind == .badKeyFile }
        }
    }

    @Test func onlyAFewKeyFilesAreTriedAndTheLastOneThatOpenedGoesFirst() throws {
        let dir = TempDir()
        let backend = LocalBackend(root: dir.path + "/repo")
        let repository = try Repository.initialize(backend: backend, passphrase: try secret("pw"), cost: testCost)
        // The real key file sorts last behind a crowd of others (other passphrases).
        try backend.move("keys/" + repository.keyName, to: "keys/zzzz", overwrite: false)
        for i in 0..<(Repository.maxKeyFilesTried + 4) {
            let file = try KeyFile.wrap(repository.keys, passphrase: try secret("other \(i)"), repositoryID: repository.id, cost: testCost)
            try backend.publishData("keys/a\(i)", try file.encoded())
        }
        #expect {
            _ = try Repository.open(backend: backend, passphrase: try secret("pw"), expectedID: repository.id)
        } throws: { ($0 as? CryptoError)?.kind == .wrongPassphrase && "\($0)".contains("\(Repository.maxKeyFilesTried) key files tried") }
        let opened = try Repository.open(backend: backend, passphrase: try secret("pw"), expectedID: repository.id, preferredKey: "zzzz")
        #expect(opened.keyName == "zzzz")
    }

    @Test func aListingWithAnEndlessHrefIsRefused() throws {
        let long = String(repeating: "a", count: PropfindParser.maxTextBytes + 10)
        let body = #"<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>/repo/heads/"# + long
            + #"</d:href><d:propstat><d:prop><d:resourcetype/></d:prop></d:propstat></d:response></d:multistatus>"#
        let server = try StubServer { _ in .init(status: 207, headers: ["Content-Type": "application/xml"], body: Data(body.utf8)) }
        var settings = HTTPSettings()
        settings.attempts = 1
        let backend = try WebDAVBackend(url: server.url, settings: settings)
        #expect {
            _ = try backend.list("heads")
        } throws: { ($0 as? RemoteError)?.kind == .protocolError && "\($0)".contains("longer than") }
    }

    /// rclone's answer when a file vanished while it listed (captured on the wire): a whole,
    /// well-formed multistatus, then the text of an error in the same body. The listing may
    /// be incomplete: it is asked again like a 503, and only reported once attempts run out.
    @Test func aListingFollowedByAnErrorIsAskedAgain() throws {
        let listing = #"<?xml version="1.0" encoding="UTF-8"?><D:multistatus xmlns:D="DAV:">"#
            + #"<D:response><D:href>/repo/heads/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"#
            + #"<D:response><D:href>/repo/heads/dev.7</D:href><D:propstat><D:prop><D:resourcetype/><D:getcontentlength>96</D:getcontentlength></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"#
            + "</D:multistatus>"
        let calls = Calls()
        let server = try StubServer { _ in
            let cut = calls.next() <= 2
            return .init(status: 207, headers: ["Content-Type": "text/xml; charset=utf-8"],
                         body: Data((listing + (cut ? "Internal Server Error\n" : "")).utf8))
        }
        var settings = HTTPSettings()
        settings.attempts = 3
        settings.backoff = 0.01
        let backend = try WebDAVBackend(url: server.url, settings: settings)
        var retries = 0
        backend.onRetry = { _, _ in retries += 1 }
        #expect(try backend.list("heads").map(\.name) == ["dev.7"])
        #expect(retries == 2 && server.requests.count == 3)
        // Every answer cut: after the attempts, one error that says what was wrong.
        let always = try StubServer { _ in .init(status: 207, body: Data((listing + "Internal Server Error\n").utf8)) }
        settings.attempts = 2
        let failing = try WebDAVBackend(url: always.url, settings: settings)
        #expect {
            _ = try failing.list("heads")
        } throws: { ($0 as? RemoteError)?.kind == .transient && "\($0)".contains("listing was cut short or had other text after it") }
        #expect(always.requests.count == 2)
        // A listing cut before its end is the same.
        let short = try StubServer { _ in .init(status: 207, body: Data(listing.prefix(listing.count / 2).utf8)) }
        let shortBackend = try WebDAVBackend(url: short.url, settings: settings)
        #expect { _ = try shortBackend.list("heads") } throws: { ($0 as? RemoteError)?.kind == .transient }
    }

    @Test func aListingThatNeverEndsTimesOut() throws {
        let server = try StubServer { _ in
            .init(status: 207, raw: Data("HTTP/1.1 207 Multi-Status\r\nContent-Length: 100000\r\n\r\n<?xml version=\"1.0\"?>".utf8), stalls: true)
        }
        var settings = HTTPSettings()
        settings.attempts = 1
        settings.listingTimeout = 1
        let backend = try WebDAVBackend(url: server.url, settings: settings)
        #expect {
            _ = try backend.list("heads")
        } throws: { ($0 as? RemoteError)?.kind == .transient }
    }

    /// A connection cut inside the headers of a 200 (before any length was said) must not
    /// pass for a whole answer with an empty body: it is retried like any cut.
    @Test func anAnswerCutInsideItsHeadersIsRetriedNotTakenAsEmpty() throws {
        let calls = Calls()
        let server = try StubServer { _ in
            if calls.next() % 2 == 1 { return .init(status: 200, raw: Data("HTTP/1.1 200 OK\r\nContent-Ty".utf8)) }
            return .init(status: 200, body: Data(#"{"format": 2}"#.utf8))
        }
        var settings = HTTPSettings()
        settings.attempts = 2
        let backend = try WebDAVBackend(url: server.url, settings: settings)
        #expect(try backend.getData("quire-repo.json") == Data(#"{"format": 2}"#.utf8))
        #expect(server.requests.count == 2)
        settings.attempts = 1
        let once = try WebDAVBackend(url: server.url, settings: settings)
        #expect { _ = try once.getData("quire-repo.json") } throws: { ($0 as? RemoteError)?.kind == .transient }
    }

    @Test func theCachedKeyIsWrittenThroughNoPlantedLink() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        _ = dir.file("outside.txt", "not a key")
        #expect(try QuireBinary.run(["add", "--body", "x"], store: store).status == 0)
        try FileManager.default.createSymbolicLink(atPath: store + "/repository.key", withDestinationPath: dir.path + "/outside.txt")
        try FileManager.default.createSymbolicLink(atPath: store + "/repository.key.tmp", withDestinationPath: dir.path + "/outside.txt")
        #expect(try QuireBinary.run(["remote", "set", "file://" + dir.path + "/repo"], store: store).status == 0)
        let run = try QuireBinary.run(["remote", "init"], store: store, environment: ["QUIRE_PASSPHRASE": "pw", "QUIRE_KDF_COST": "1,8192"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(dir.read("outside.txt") == "not a key")
        let attributes = try FileManager.default.attributesOfItem(atPath: store + "/repository.key")
        #expect(attributes[.type] as? FileAttributeType == .typeRegular && attributes[.posixPermissions] as? Int == 0o600)
    }

    @Test func anExistingFolderThatBecomesAStoreIsTheOwnersAlone() throws {
        let dir = TempDir()
        try FileManager.default.createDirectory(atPath: dir.path + "/open", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        #expect(try QuireBinary.run(["add", "--body", "x"], store: dir.path + "/open").status == 0)
        #expect((try FileManager.default.attributesOfItem(atPath: dir.path + "/open"))[.posixPermissions] as? Int == 0o700)
    }

    @Test func theKDFKnobHasACeiling() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        #expect(try QuireBinary.run(["remote", "set", "file://" + dir.path + "/repo"], store: store).status == 0)
        let run = try QuireBinary.run(["remote", "init"], store: store, environment: ["QUIRE_PASSPHRASE": "pw", "QUIRE_KDF_COST": "64,4294967296"])
        #expect(run.status == 2 && run.stderr.contains("QUIRE_KDF_COST"), "\(run.stderr)")
    }
}

/// A MKCOL of a folder that exists is answered 403 by Apache when another client made it a
/// moment before, 409 by some servers: checked and passed over, never reported.
@Suite struct FolderRaceTests {
    static let collection = #"<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>/repo/log/</d:href><d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop></d:propstat></d:response></d:multistatus>"#

    @Test(arguments: [403, 409])
    func aFolderThatExistsIsPassedOver(status: Int) throws {
        let server = try StubServer { request in
            switch request.method {
            case "MKCOL": return .init(status: request.path.hasSuffix("/log/") ? status : 405)
            case "PROPFIND": return request.headers["depth"] == "0" ? .init(status: 207, body: Data(Self.collection.utf8)) : .init(status: 404)
            default: return .init(status: 500)
            }
        }
        var settings = HTTPSettings()
        settings.attempts = 1
        try WebDAVBackend(url: server.url, settings: settings).makeFolder("log")
        #expect(server.requests.contains { $0.method == "PROPFIND" && $0.headers["depth"] == "0" })
    }

    @Test func aFolderThatIsNotThereIsStillAnError() throws {
        let server = try StubServer { request in
            request.method == "MKCOL" ? .init(status: request.path.hasSuffix("/log/") ? 403 : 405) : .init(status: 404)
        }
        var settings = HTTPSettings()
        settings.attempts = 1
        #expect {
            try WebDAVBackend(url: server.url, settings: settings).makeFolder("log")
        } throws: { ($0 as? RemoteError)?.kind == .forbidden }
    }
}

/// A folder is asked for before its parents: they usually exist, and then a MKCOL is one
/// round trip, not one per level. A 409 (a parent missing) makes the parents, then the folder.
@Suite struct FolderCreationTests {
    var settings: HTTPSettings {
        var settings = HTTPSettings()
        settings.attempts = 1
        return settings
    }

    @Test func aFolderWhoseParentsExistIsOneRequest() throws {
        let server = try StubServer { $0.method == "MKCOL" ? .init(status: 201) : .init(status: 500) }
        try WebDAVBackend(url: server.url, settings: settings).makeFolder("packs/device")
        #expect(server.requests.map { "\($0.method) \($0.path)" } == ["MKCOL /repo/packs/device/"])
    }

    @Test func missingParentsAreMadeThenTheFolder() throws {
        let made = Folders()
        let server = try StubServer { request in
            guard request.method == "MKCOL" else { return .init(status: 500) }
            var parent = String(request.path.dropLast())
            parent = String(parent[..<(parent.lastIndex(of: "/") ?? parent.startIndex)]) + "/"
            guard parent == "/" || made.contains(parent) else { return .init(status: 409) }
            made.insert(request.path)
            return .init(status: 201)
        }
        let backend = try WebDAVBackend(url: server.url, settings: settings)
        try backend.makeFolder("log/device")
        #expect(server.requests.map(\.path) == ["/repo/log/device/", "/repo/log/", "/repo/", "/repo/log/", "/repo/log/device/"])
        // Known now, with every folder above it: no request for them again.
        try backend.makeFolder("log")
        try backend.makeFolder("log/device")
        #expect(server.requests.count == 5)
    }

    @Test func anObjectReadProvesItsFoldersExist() throws {
        let server = try StubServer { request in
            switch request.method {
            case "GET": return .init(status: 200, body: Data("{}".utf8))
            case "PUT": return .init(status: 201)
            default: return .init(status: 500)
            }
        }
        let backend = try WebDAVBackend(url: server.url, settings: settings)
        _ = try backend.getData("keys/k1")
        try backend.makeFolder("keys")
        #expect(server.requests.map(\.method) == ["GET"])
    }
}

private final class Folders: @unchecked Sendable {
    private let lock = NSLock()
    private var paths = Set<String>()
    func contains(_ path: String) -> Bool { lock.withLock { paths.contains(path) } }
    func insert(_ path: String) { lock.withLock { _ = paths.insert(path) } }
}

/// Counts a stub server's answers (its handler runs on the server's thread).
private final class Calls: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func next() -> Int { lock.withLock { count += 1; return count } }
}
