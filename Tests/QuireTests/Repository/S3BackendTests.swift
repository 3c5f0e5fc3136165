import Foundation
import Testing
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

/// What S3 does that WebDAV does not (the shared conformance suite covers the rest, a body
/// cut mid-upload included), against the real servers `./scripts/test` starts
/// (SeaweedFS; Ceph RGW in `./scripts/interop`), and, for answers a real one gives only on
/// a bad day, a stub on loopback.
@Suite(.enabled(if: !Backends.s3Servers.isEmpty || ProcessInfo.processInfo.environment["QUIRE_REQUIRE_TOOLS"] != nil))
struct S3BackendTests {
    static var server: String { Backends.s3Servers.first?.name ?? "(missing)" }

    func fresh() throws -> (S3Backend, AnyObject) {
        try #require(!Backends.s3Servers.isEmpty, "scripts/test starts SeaweedFS: QUIRE_TEST_S3_URLS")
        let (backend, keep) = try Backends.make(Self.server)
        return (try #require(backend as? S3Backend), keep)
    }

    /// A listing cut into pages is followed to its end: 5 keys at 2 a page are 3 requests,
    /// and a prefix of 5,000 keys lists whole at the default 1,000 a page.
    @Test func aListingOfManyPagesListsWhole() throws {
        let (backend, keep) = try fresh()
        defer { _ = keep }
        for i in 0..<5 { try backend.putData("few/\(i)", Data([UInt8(i)])) }
        backend.pageSize = 2
        let before = backend.requestCount
        #expect(try backend.list("few").map(\.name) == ["0", "1", "2", "3", "4"])
        #expect(backend.requestCount - before == 3)
        backend.pageSize = 1000
        let names = (0..<5000).map { String(format: "%05d", $0) }
        let group = DispatchGroup()
        let failures = Locked<[String]>([])
        for lane in 0..<8 {
            let connection = Unchecked(try Backends.twin(of: backend))
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                for name in names.enumerated().filter({ $0.offset % 8 == lane }).map(\.element) {
                    do { try connection.value.putData("many/" + name, Data()) } catch { failures.update { $0.append("\(error)") } }
                }
            }
        }
        group.wait()
        #expect(failures.value.isEmpty, "\(failures.value.prefix(3))")
        let listed = try backend.list("many")
        #expect(listed.count == 5000 && listed.map(\.name) == names)
    }

    /// A create-only write that comes second loses, on a server that honours
    /// `If-None-Match: *` (probed once) and, by a HEAD first, on one that does not.
    @Test(arguments: [true, false])
    func aCreateOnlyWriteThatComesSecondLoses(conditional: Bool) throws {
        let (backend, keep) = try fresh()
        defer { _ = keep }
        if !conditional { backend.conditionalPut = false }
        var heard: Bool?
        backend.onProbe = { heard = $0 }
        try backend.publishData("once/key", Data("first".utf8))
        #expect {
            try backend.publishData("once/key", Data("second".utf8))
        } throws: { ($0 as? RemoteError)?.kind == .exists }
        #expect(try backend.getData("once/key") == Data("first".utf8))
        if conditional { #expect(heard == true && backend.conditionalPut == true, "SeaweedFS honours If-None-Match") }
        #expect(try backend.list("once").map(\.name) == ["key"], "the probe leaves nothing behind")
    }

    /// A server that refuses `If-None-Match` outright (501 NotImplemented, as AWS did before
    /// 2024) is one that does not honour it: the probe says so, and publishing goes on with a
    /// HEAD first, a second write still losing.
    @Test func aServerThatRefusesIfNoneMatchIsPublishedToWithAHeadFirst() throws {
        let stored = Locked([String: Data]())
        let stub = try StubServer { request in
            let key = String(request.path.split(separator: "?")[0])
            switch request.method {
            case "PUT" where request.headers["if-none-match"] != nil:
                return .init(status: 501, body: Data("<Error><Code>NotImplemented</Code><Message>A header you provided implies functionality that is not implemented</Message></Error>".utf8))
            case "PUT":
                stored.update { $0[key] = request.body }
                return .init(status: 200)
            case "HEAD": return .init(status: stored.update { $0[key] } == nil ? 404 : 200)
            case "GET": return stored.update { $0[key] }.map { .init(status: 200, body: $0) } ?? .init(status: 404)
            case "DELETE":
                stored.update { $0[key] = nil }
                return .init(status: 204)
            default: return .init(status: 400)
            }
        }
        let address = try S3Address(bucket: "bucket", prefix: "p", endpoint: "http://127.0.0.1:\(stub.port)", region: nil, pathStyle: true)
        let backend = try S3Backend(address: address, credentials: S3Credentials(accessKey: "k", secretKey: "s"), settings: Backends.settings)
        var heard: Bool?
        backend.onProbe = { heard = $0 }
        try backend.publishData("once/key", Data("first".utf8))
        #expect(heard == false && backend.conditionalPut == false)
        #expect {
            try backend.publishData("once/key", Data("second".utf8))
        } throws: { ($0 as? RemoteError)?.kind == .exists }
        #expect(try backend.getData("once/key") == Data("first".utf8))
        #expect(stored.update { $0.keys.sorted() } == ["/bucket/p/once/key"], "the probe leaves nothing behind")
    }

    /// A bucket host that does not resolve (a self-hosted server without a name for each
    /// bucket) says to name the bucket in the path; with it in the path already, or for
    /// another failure, the error stays as it was.
    @Test func anUnresolvedBucketHostSaysPathStyle() throws {
        let named = try S3Address(bucket: "journal", prefix: "", endpoint: "https://s3.example.org", region: nil, pathStyle: false)
        let unresolved = RemoteError(.unreachable, detail: "journal.s3.example.org:443: Couldn't resolve host name")
        let said = try #require(S3Backend.unresolvedBucketHost(unresolved, address: named))
        #expect(said.detail.contains("journal.s3.example.org does not resolve") && said.detail.contains("--path-style") && said.advises)
        #expect(!said.description.contains("\n"))
        var byPath = named
        byPath.pathStyle = true
        #expect(S3Backend.unresolvedBucketHost(unresolved, address: byPath) == nil)
        #expect(S3Backend.unresolvedBucketHost(RemoteError(.refused, detail: "s3.example.org refused the connection"), address: named) == nil)
    }

    /// A wrong secret and a bucket that does not exist are one line each, naming what to
    /// check, and write nothing; no credential is in the message.
    @Test func aWrongSecretOrAMissingBucketIsOneLineAndWritesNothing() throws {
        let (backend, keep) = try fresh()
        defer { _ = keep }
        let wrong = try S3Backend(address: backend.address, credentials: S3Credentials(accessKey: Backends.s3Credentials.accessKey, secretKey: "not-the-secret"),
                                  settings: Backends.settings)
        #expect {
            try wrong.putData("nope", Data("x".utf8))
        } throws: { error in
            let text = "\(error)"
            return (error as? RemoteError)?.kind == .unauthorized && text.contains("credentials") && !text.contains("not-the-secret") && !text.contains("\n")
        }
        #expect(try backend.list("").isEmpty)
        var missing = backend.address
        missing.bucket = "no-such-bucket-" + UUID().uuidString.prefix(8).lowercased()
        let nowhere = try S3Backend(address: missing, credentials: Backends.s3Credentials, settings: Backends.settings)
        // (SeaweedFS makes a bucket on a PUT by an admin; the listing every command starts with says.)
        #expect {
            _ = try nowhere.list("")
        } throws: { "\($0)".contains("does not exist") && ($0 as? RemoteError)?.kind != .notFound }
        // What `remote init` does with it: a listing says it is missing, a PUT makes it, and a
        // second PUT (another device's init at the same moment) is no error.
        #expect(try nowhere.bucketExists() == false)
        try nowhere.makeBucket()
        #expect(try nowhere.bucketExists())
        try nowhere.makeBucket()
        #expect(try nowhere.list("").isEmpty)
        try nowhere.putData("made", Data("x".utf8))
        #expect(try nowhere.list("").map(\.name) == ["made"])
    }

    /// Making a bucket names its region wherever it is not us-east-1 (which S3 refuses to be
    /// named), and each refusal a service gives is one line saying what to do.
    @Test func aBucketIsMadeInItsRegionAndARefusalSaysWhy() throws {
        let answers = Locked([String: String]())
        let stub = try StubServer { request in
            let bucket = String(request.path.split(separator: "/").first ?? "")
            switch request.method {
            case "GET" where bucket == "there": return .init(status: 200, body: Data("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>".utf8))
            case "GET" where bucket == "theirs": return .init(status: 403, body: Data("<Error><Code>AccessDenied</Code></Error>".utf8))
            case "GET" where bucket == "web": return .init(status: 404, body: Data("<html>Not Found</html>".utf8))
            case "GET": return .init(status: 404, body: Data("<Error><Code>NoSuchBucket</Code></Error>".utf8))
            case "PUT":
                answers.update { $0[bucket] = String(decoding: request.body, as: UTF8.self) }
                let code = ["mine": "BucketAlreadyOwnedByYou", "taken": "BucketAlreadyExists", "denied": "AccessDenied",
                            "nowhere": "InvalidLocationConstraint", "full": "TooManyBuckets"][bucket]
                guard let code else { return .init(status: 200) }
                let status = ["mine": 409, "taken": 409, "denied": 403, "full": 400][bucket] ?? 400
                return .init(status: status, body: Data("<Error><Code>\(code)</Code><Message>no</Message></Error>".utf8))
            default: return .init(status: 400)
            }
        }
        func backend(_ bucket: String, region: String?) throws -> S3Backend {
            let address = try S3Address(bucket: bucket, prefix: "journal", endpoint: "http://127.0.0.1:\(stub.port)", region: region, pathStyle: true)
            return try S3Backend(address: address, credentials: S3Credentials(accessKey: "k", secretKey: "s"), settings: Backends.settings)
        }
        #expect(try backend("there", region: nil).bucketExists())
        #expect(try backend("missing", region: nil).bucketExists() == false)
        #expect(try backend("theirs", region: nil).bucketExists(), "a refusal is the listing's to explain, by its code")
        #expect(try backend("web", region: nil).bucketExists(), "a 404 that is not S3's NoSuchBucket makes nothing")
        try backend("plain", region: nil).makeBucket()
        try backend("placed", region: "eu-central-1").makeBucket()
        try backend("mine", region: nil).makeBucket()
        #expect(answers.value["plain"] == "", "us-east-1 is never named")
        #expect(answers.value["placed"]?.contains("<LocationConstraint>eu-central-1</LocationConstraint>") == true)
        let said: [(String, String)] = [("taken", "choose another name"), ("denied", "s3:CreateBucket"),
                                        ("nowhere", "region eu-central-1"), ("full", "prefix of its own")]
        for (bucket, advice) in said {
            #expect {
                try backend(bucket, region: "eu-central-1").makeBucket()
            } throws: { error in
                let text = "\(error)"
                return text.contains(advice) && !text.contains("\n")
            }
        }
        #expect(!stub.requests.contains { $0.path.split(separator: "?")[0].contains("journal") }, "only the bucket is asked for, never a key")
    }

    /// A server that answers SlowDown (or 503) is asked again with back-off; one whose clock
    /// says this machine's is off says so in one line.
    @Test func slowDownIsRetriedAndASkewedClockOrAnArchivedObjectIsSaid() throws {
        let answers = Locked(0)
        let stub = try StubServer { request in
            let n = answers.update { $0 += 1; return $0 }
            if request.path.contains("skew") {
                return .init(status: 403, body: Data("<Error><Code>RequestTimeTooSkewed</Code><Message>too far</Message></Error>".utf8))
            }
            if request.path.contains("archived") {
                return .init(status: 403, body: Data("<Error><Code>InvalidObjectState</Code><Message>The operation is not valid for the object's storage class</Message></Error>".utf8))
            }
            if n <= 2 { return .init(status: 503, body: Data("<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>".utf8)) }
            return .init(status: 200, body: Data("ok".utf8))
        }
        let address = try S3Address(bucket: "bucket", prefix: "p", endpoint: "http://127.0.0.1:\(stub.port)", region: nil, pathStyle: true)
        var retries = 0
        let backend = try S3Backend(address: address, credentials: S3Credentials(accessKey: "k", secretKey: "s"), settings: Backends.settings)
        backend.onRetry = { _, _ in retries += 1 }
        #expect(try backend.getData("object") == Data("ok".utf8))
        #expect(retries == 2)
        #expect {
            _ = try backend.getData("skew")
        } throws: { "\($0)".contains("clock") && !"\($0)".contains("\n") }
        // An object a lifecycle rule archived is said to be so, once: no retry brings it back.
        let before = stub.requests.count
        #expect {
            _ = try backend.getData("archived")
        } throws: { "\($0)".contains("archived") && ($0 as? RemoteError)?.advises == true }
        #expect(stub.requests.count == before + 1)
        // Every request was signed, and none carried the secret.
        #expect(stub.requests.allSatisfy { $0.headers["authorization"]?.hasPrefix("AWS4-HMAC-SHA256 Credential=k/") == true })
        #expect(!stub.requests.contains { $0.headers.values.contains { $0.contains("s") && $0 == "s" } })
    }

    /// A bucket's versioning is read as the server says it, and a server that does not say
    /// (no permission, no such API, an answer that is something else) is never an error.
    @Test func aBucketSaysWhetherItKeepsOldVersions() throws {
        let said = Locked((status: 200, body: ""))
        let stub = try StubServer { request in
            guard request.method == "GET", request.path.hasSuffix("?versioning=") else { return .init(status: 400) }
            let (status, body) = said.update { $0 }
            return .init(status: status, body: Data(body.utf8))
        }
        let address = try S3Address(bucket: "bucket", prefix: "p", endpoint: "http://127.0.0.1:\(stub.port)", region: nil, pathStyle: true)
        let backend = try S3Backend(address: address, credentials: S3Credentials(accessKey: "k", secretKey: "s"), settings: Backends.settings)
        let configuration = { (inner: String) in "<?xml version=\"1.0\"?><VersioningConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\(inner)</VersioningConfiguration>" }
        let cases: [(Int, String, Bool?)] = [
            (200, configuration("<Status>Enabled</Status>"), true),
            (200, configuration("<Status>Suspended</Status><MfaDelete>Disabled</MfaDelete>"), true),
            (200, configuration(""), false),
            (200, configuration("<Status>Sometimes</Status>"), nil),
            (200, "<ListBucketResult><Status>Enabled</Status></ListBucketResult>", nil),
            (200, "Enabled", nil),
            (403, "<Error><Code>AccessDenied</Code></Error>", nil),
            (501, "<Error><Code>NotImplemented</Code></Error>", nil),
        ]
        for (status, body, expected) in cases {
            said.update { $0 = (status, body) }
            #expect(backend.keepsOldVersions() == expected, "\(status) \(body)")
        }
        #expect(stub.requests.allSatisfy { $0.path == "/bucket/?versioning=" })
    }

    /// Temporary keys renewed while a connection lives (a watch runs for hours) are signed
    /// with from the next request, their session token with them.
    @Test func renewedKeysSignTheNextRequest() throws {
        let stub = try StubServer { _ in .init(status: 200, body: Data("ok".utf8)) }
        let address = try S3Address(bucket: "bucket", prefix: "p", endpoint: "http://127.0.0.1:\(stub.port)", region: nil, pathStyle: true)
        let lookups = Locked(0)
        let keys = S3KeySource {
            let n = lookups.update { $0 += 1; return $0 }
            // Expired already: each request finds them due again.
            return S3Credentials(accessKey: "k\(n)", secretKey: "s\(n)", sessionToken: "t\(n)", expiration: .distantPast)
        }
        let backend = try S3Backend(address: address, keys: keys, settings: Backends.settings)
        _ = try backend.getData("a")
        _ = try backend.getData("b")
        let signed = stub.requests.map { ($0.headers["authorization"] ?? "", $0.headers["x-amz-security-token"] ?? "") }
        #expect(signed.count == 2)
        #expect(signed.first.map { $0.0.contains("Credential=k2/") && $0.1 == "t2" } == true, "\(signed) \(stub.requests.map(\.headers))")
        #expect(signed.last.map { $0.0.contains("Credential=k3/") && $0.1 == "t3" } == true, "\(signed)")
    }

    /// Old versions in a folder go, every page of them: old versions first, then the delete
    /// markers (one deleted first would bring back what it hides); never a current object,
    /// never a key outside the folder. A refusal is an error.
    @Test func oldVersionsInAFolderGoAndCurrentObjectsStay() throws {
        @Sendable func version(_ key: String, _ id: String, latest: Bool, marker: Bool = false) -> String {
            let tag = marker ? "DeleteMarker" : "Version"
            return "<\(tag)><Key>p/keys/\(key)</Key><VersionId>\(id)</VersionId><IsLatest>\(latest)</IsLatest></\(tag)>"
        }
        let refuse = Locked(false)
        let stub = try StubServer { request in
            if request.method == "DELETE" { return .init(status: refuse.update { $0 } ? 403 : 204) }
            let second = request.path.contains("key-marker=")
            let entries = second
                ? version("b", "b1", latest: false) + version("c", "c2", latest: true) + version("c", "cm", latest: false, marker: true)
                    + "<Version><Key>p/other/z</Key><VersionId>z1</VersionId><IsLatest>false</IsLatest></Version>"
                : version("a", "a2", latest: true) + version("a", "a1", latest: false) + version("b", "bm", latest: true, marker: true)
            let cut = second ? "<IsTruncated>false</IsTruncated>"
                : "<IsTruncated>true</IsTruncated><NextKeyMarker>p/keys/b</NextKeyMarker><NextVersionIdMarker>bm</NextVersionIdMarker>"
            return .init(status: 200, body: Data("<ListVersionsResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Prefix>p/keys/</Prefix>\(cut)\(entries)</ListVersionsResult>".utf8))
        }
        let address = try S3Address(bucket: "bucket", prefix: "p", endpoint: "http://127.0.0.1:\(stub.port)", region: nil, pathStyle: true)
        let backend = try S3Backend(address: address, credentials: S3Credentials(accessKey: "k", secretKey: "s"), settings: Backends.settings)
        try backend.deleteOldVersions(in: "keys")
        let lists = stub.requests.filter { $0.method == "GET" }.map(\.path)
        #expect(lists == ["/bucket/?prefix=p%2Fkeys%2F&versions=",
                          "/bucket/?key-marker=p%2Fkeys%2Fb&prefix=p%2Fkeys%2F&version-id-marker=bm&versions="])
        let deleted = stub.requests.filter { $0.method == "DELETE" }.map(\.path)
        #expect(deleted == ["/bucket/p/keys/a?versionId=a1", "/bucket/p/keys/b?versionId=b1",
                            "/bucket/p/keys/b?versionId=bm", "/bucket/p/keys/c?versionId=cm"])
        refuse.update { $0 = true }
        #expect(throws: RemoteError.self) { try backend.deleteOldVersions(in: "keys") }
        // A server whose every page names the same next page is an error, not a loop.
        let looping = try StubServer { _ in
            .init(status: 200, body: Data(("<ListVersionsResult><IsTruncated>true</IsTruncated><NextKeyMarker>p/keys/a</NextKeyMarker>"
                                           + "<NextVersionIdMarker>1</NextVersionIdMarker></ListVersionsResult>").utf8))
        }
        let endless = try S3Backend(address: try S3Address(bucket: "bucket", prefix: "p", endpoint: "http://127.0.0.1:\(looping.port)", region: nil, pathStyle: true),
                                    credentials: S3Credentials(accessKey: "k", secretKey: "s"), settings: Backends.settings)
        #expect {
            _ = try endless.versions(in: "keys")
        } throws: { "\($0)".contains("goes on without end") }
        #expect(looping.requests.count == 2)
    }

    /// A bucket asked for in the wrong region is followed there, as AWS says where it is: in
    /// the error body's `<Region>` (a request signed for another region), or in the
    /// `x-amz-bucket-region` header of a 301 without a body (a HEAD). The request is asked
    /// again at once, signed for that region, and every connection sharing the journal's
    /// `S3Regions` starts there. Answers that disagree are followed once, then named; one
    /// at another endpoint is said so; what the server names is repeated only when it is a
    /// plain name.
    @Test func aBucketInAnotherRegionIsFollowedThere() throws {
        let stub = try StubServer { request in
            func error(_ code: String, _ more: String) -> Data {
                Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>\(code)</Code><Message>no</Message>\(more)<RequestId>1</RequestId></Error>".utf8)
            }
            let signed = request.headers["authorization"] ?? ""
            func signedFor(_ region: String) -> Bool { signed.contains("/\(region)/s3/aws4_request") }
            switch request.path.split(separator: "/").last ?? "" {
            case "signed":
                return signedFor("eu-west-1") ? .init(status: 200, body: Data("ok".utf8))
                    : .init(status: 400, body: error("AuthorizationHeaderMalformed", "<Region>eu-west-1</Region>"))
            case "head":
                return signedFor("ap-south-1") ? .init(status: 200, body: Data("ok".utf8)) : .init(status: 301, headers: ["x-amz-bucket-region": "ap-south-1"])
            case "flip":
                return .init(status: 400, body: error("AuthorizationHeaderMalformed", signedFor("ap-south-1") ? "<Region>eu-north-1</Region>" : "<Region>ap-south-1</Region>"))
            case "moved": return .init(status: 301, body: error("PermanentRedirect", "<Endpoint>bucket.s3.eu-west-1.amazonaws.com</Endpoint>"))
            case "hostile": return .init(status: 400, body: error("AuthorizationHeaderMalformed", "<Region>\u{202E}eu-west-1 &amp; more</Region>"))
            case "same": return .init(status: 400, body: error("AuthorizationHeaderMalformed", "<Region>us-east-1</Region>"))
            default: return .init(status: 404)
            }
        }
        let address = try S3Address(bucket: "bucket", prefix: "p", endpoint: "http://127.0.0.1:\(stub.port)", region: nil, pathStyle: true)
        func connect(_ regions: S3Regions? = nil) throws -> S3Backend {
            let backend = try S3Backend(address: address, credentials: S3Credentials(accessKey: "k", secretKey: "s"), settings: Backends.settings)
            backend.regions = regions
            return backend
        }
        func failure(_ path: String, on backend: S3Backend) -> RemoteError? {
            do { _ = try backend.getData(path) } catch let error as RemoteError { return error } catch {}
            return nil
        }
        // Followed: one request to the wrong region, one to the right, and remembered.
        let regions = S3Regions()
        let first = try connect(regions)
        #expect(try first.getData("signed") == Data("ok".utf8))
        #expect(first.requestsSent == 2 && first.address.region == "eu-west-1")
        #expect(first.address.endpoint == address.endpoint, "an endpoint a person gave stays")
        #expect(regions.toRemember == "eu-west-1")
        let second = try connect(regions)
        #expect(try second.getData("signed") == Data("ok".utf8))
        #expect(second.requestsSent == 1, "a connection made after the region was learned starts there")
        #expect(try connect().getData("head") == Data("ok".utf8))
        // Two answers that disagree: the first is followed, the second named.
        let flipped = try #require(failure("flip", on: try connect()))
        #expect(flipped.kind == .invalid && flipped.advises)
        #expect(flipped.detail.contains("region eu-north-1, not ap-south-1") && flipped.detail.contains("--region eu-north-1"))
        #expect(flipped.detail.contains("--endpoint"), "a custom endpoint is named too: it does not follow the region")
        let moved = try #require(failure("moved", on: try connect()))
        #expect(moved.advises && moved.detail.contains("another endpoint (bucket.s3.eu-west-1.amazonaws.com)"))
        // Not a region's name: nothing of it is repeated or followed, and the error is the code's.
        let backend = try connect()
        let hostile = try #require(failure("hostile", on: backend))
        #expect(!hostile.advises && !hostile.description.contains("\u{202E}") && hostile.detail.contains("AuthorizationHeaderMalformed"))
        #expect(backend.address.region == "us-east-1")
        // The region this remote already uses: the answer means something else.
        #expect(try #require(failure("same", on: backend)).detail.contains("region") == false)
        #expect(try #require(failure("other", on: backend)).kind == .notFound)
    }

    /// AWS's own endpoint follows the region with it (s3.REGION.amazonaws.com); the URL as
    /// stored is not changed by it.
    @Test func anAWSEndpointMovesWithTheRegion() throws {
        let address = try S3Address(url: "s3://bucket/p")
        #expect(address.endpoint == "https://s3.us-east-1.amazonaws.com")
        let regions = S3Regions()
        regions.remember("eu-central-1")
        let backend = try S3Backend(address: address, credentials: S3Credentials(accessKey: "k", secretKey: "s"), settings: Backends.settings)
        backend.regions = regions
        #expect(backend.address.endpoint == "https://s3.eu-central-1.amazonaws.com" && backend.address.region == "eu-central-1")
        #expect(regions.toRemember == nil, "what an earlier run learned is not news")
    }

    /// A bucket is named in the host at AWS (and the services like it) unless --path-style,
    /// and in the path everywhere else unless `addressing_style = virtual` said otherwise; a
    /// dotted bucket over TLS is named in the path, since no wildcard certificate covers
    /// `my.journal.s3.….amazonaws.com`.
    @Test func aDottedBucketOverTLSIsNamedInThePath() throws {
        let plain = try S3Address(url: "s3://my-journal/anna?region=eu-central-1")
        #expect(plain.url(key: "anna/keys/k 1") == "https://my-journal.s3.eu-central-1.amazonaws.com/anna/keys/k%201")
        let dotted = try S3Address(url: "s3://my.journal/anna?region=eu-central-1")
        #expect(dotted.url(key: "anna/keys", query: [("prefix", "a/"), ("list-type", "2")])
                == "https://s3.eu-central-1.amazonaws.com/my.journal/anna/keys?list-type=2&prefix=a%2F")
        // Plain HTTP has no certificate to match: the host names the bucket as asked.
        let named = try S3Address(bucket: "my.journal", prefix: "", endpoint: "http://minio.lan:9000", region: nil, pathStyle: false)
        #expect(named.url(key: "x") == "http://my.journal.minio.lan:9000/x")
        #expect(named.text == "s3://my.journal?endpoint=http%3A%2F%2Fminio.lan%3A9000&path-style=0")
        #expect(try S3Address(url: named.text) == named)
        // Not asked: in the path, except at the services that want it in the host.
        let services = ["https://s3.eu-central-003.backblazeb2.com": false, "https://acc.r2.cloudflarestorage.com": false,
                        "https://s3.eu-central-1.wasabisys.com": false, "https://rgw.example.org": false,
                        "https://s3.cn-north-1.amazonaws.com.cn": true, "https://oss-cn-hangzhou.aliyuncs.com": true,
                        "https://cos.ap-guangzhou.myqcloud.com": true, "https://S3.EU-WEST-1.AMAZONAWS.COM": true]
        for (endpoint, inHost) in services {
            let address = try S3Address(bucket: "journal", prefix: "", endpoint: endpoint, region: nil, pathStyle: nil)
            #expect(address.addressesByPath == !inHost, "\(endpoint)")
            #expect(address.text.contains("path-style") == false, "nothing said, nothing kept")
            let said = try S3Address(bucket: "journal", prefix: "", endpoint: endpoint, region: nil, pathStyle: true)
            #expect(said.addressesByPath && said.url(key: "x").hasSuffix("/journal/x"))
        }
        // An address or localhost has no subdomains: the path names the bucket.
        for endpoint in ["http://127.0.0.1:9000", "http://localhost:9000", "http://[::1]:9000"] {
            let local = try S3Address(bucket: "journal", prefix: "", endpoint: endpoint, region: nil, pathStyle: false)
            #expect(local.url(key: "x") == endpoint + "/journal/x")
        }
    }

    /// A repository written on WebDAV (here a folder) and copied into a bucket with any tool
    /// is the same repository: restored from either, byte for byte.
    @Test func aRepositoryCopiedIntoABucketRestores() throws {
        let (backend, keep) = try fresh()
        defer { _ = keep }
        let world = try SyncWorld(devices: 1)
        let a = world.stores[0]
        let entry = try a.add(NewEntry(title: "copied", body: "from a folder to a bucket"))
        try a.attach(to: entry.id, NewAttachment(path: world.file("p.jpg", pseudoRandomBytes(400_000, seed: 21))))
        try world.sync(a)
        let root = world.dir.path + "/repo"
        for relative in FileManager.default.subpaths(atPath: root) ?? [] {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            try backend.putData(relative, try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative)))
        }
        let fresh = try world.makeDevice("from-s3")
        let repository = try Repository.open(backend: backend, passphrase: secret("pw"), expectedID: world.repositoryID)
        _ = try Syncer(store: fresh, repository: repository).restore()
        #expect(try world.dump(fresh) == world.dump(a))
    }
}

/// A value shared between threads.
final class Locked<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T { lock.withLock { stored } }
    @discardableResult
    func update<R>(_ change: (inout T) -> R) -> R { lock.withLock { change(&stored) } }
}
