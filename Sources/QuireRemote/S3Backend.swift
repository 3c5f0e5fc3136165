import Foundation

/// A repository in an S3 bucket (AWS, Backblaze B2, Cloudflare R2, Wasabi, Ceph RGW,
/// SeaweedFS…), through libcurl, signed with AWS Signature V4 by libcurl itself. The same
/// repository format as on WebDAV, byte for byte, under `PREFIX/`: a repository copied
/// between a WebDAV folder and a bucket with any tool works from either.
///
/// S3's semantics, not WebDAV's: no folders (a "folder" is a key prefix, listed with a
/// delimiter; making one is nothing) and no rename. Quire's objects are written once under
/// names only their writer uses, so publishing needs no MOVE: a create-only write is a PUT
/// with `If-None-Match: *` where the server honours it (probed once per remote: two PUTs of
/// a probe key), else a HEAD and a PUT (S3's PUT is atomic: a reader sees the old object or
/// the new, never half). Listings are ListObjectsV2 pages followed by continuation tokens.
/// An ETag is never trusted as a hash; every object is authenticated by its contents.
package final class S3Backend: CountsRequests {
    package private(set) var address: S3Address
    private var settings: HTTPSettings
    private var curl: Curl
    /// Whether the server refuses a PUT with `If-None-Match: *` of a key that exists; nil
    /// until probed (or told what an earlier probe found).
    package var conditionalPut: Bool?
    /// Hears what a probe found, to remember it for the remote.
    package var onProbe: ((Bool) -> Void)?
    /// Keys per listing page asked for (S3 gives at most 1,000; tests ask for fewer).
    package var pageSize = 1000
    package private(set) var requestCount = 0
    package var requestsSent: Int { requestCount }
    package var onRetry: ((Int, Double) -> Void)?
    /// Where the region a service names for the bucket is kept for every connection (and
    /// the next run); nil: followed for this connection alone.
    package var regions: S3Regions? {
        didSet { if let region = regions?.current, region != address.region { try? move(to: region) } }
    }
    /// Whether this connection already followed a region an answer named: it follows one
    /// at most, so two answers that disagree end in an error, not a loop.
    private var followedRegion = false

    package var location: String { address.text }

    /// - Throws: `RemoteError.invalid` for plain `http://` to a server beyond this machine
    ///   without `insecureHTTP` (the signature would not hide what is sent).
    /// - Throws: also what `keys` throws when they cannot be found.
    package init(address: S3Address, keys: S3KeySource, settings: HTTPSettings) throws {
        guard address.overTLS || WebDAVBackend.isLoopback(address.host) || settings.insecureHTTP else {
            throw RemoteError(.invalid, detail: "http:// would send every request in clear across the network: use an https:// endpoint, or give --insecure-http if that network is yours")
        }
        self.address = address
        self.keys = keys
        signedWith = try keys.current()
        var settings = settings
        settings.user = signedWith.accessKey
        settings.password = signedWith.secretKey
        settings.sigV4Region = address.region
        self.settings = settings
        curl = try Self.connection(to: address, settings: settings)
    }

    package convenience init(address: S3Address, credentials: S3Credentials, settings: HTTPSettings) throws {
        try self.init(address: address, keys: S3KeySource(credentials), settings: settings)
    }

    private static func connection(to address: S3Address, settings: HTTPSettings) throws -> Curl {
        let host = URL(string: address.endpoint)?.host ?? address.host
        let port = URL(string: address.endpoint)?.port ?? (address.overTLS ? 443 : 80)
        return try Curl(settings: settings, basicAllowed: false, origin: "\(address.overTLS ? "https" : "http")://\(host):\(port)")
    }

    /// Signs for `region` from now on; an endpoint that was AWS's for the old region becomes
    /// AWS's for the new one (any other endpoint is the person's choice, and stays).
    private func move(to region: String) throws {
        var moved = address
        if moved.endpoint == S3Address.awsEndpoint(moved.region) { moved.endpoint = S3Address.awsEndpoint(region) }
        moved.region = region
        var settings = settings
        settings.sigV4Region = region
        curl = try Self.connection(to: moved, settings: settings)
        (address, self.settings) = (moved, settings)
    }

    private let keys: S3KeySource
    /// The keys this connection signs with, until `keys` hands out others (`headers`).
    private var signedWith: S3Credentials

    // MARK: - Addresses

    private func key(_ path: String) -> String { address.prefix.isEmpty ? path : address.prefix + (path.isEmpty ? "" : "/" + path) }

    private func url(key: String, query: [(String, String)] = []) -> String { address.url(key: key, query: query) }

    /// A request's S3 headers, with the keys of now: temporary keys that were renewed since
    /// the last request are taken up first (a new connection, signing with them).
    private func headers(_ extra: [String] = []) throws -> [String] {
        let current = try keys.current()
        if current != signedWith {
            settings.user = current.accessKey
            settings.password = current.secretKey
            curl = try Self.connection(to: address, settings: settings)
            signedWith = current
        }
        // libcurl 7.88 signs what it is given: the payload's hash is said, not computed (every
        // object is authenticated by its contents, so the body needs no second hash).
        return ["x-amz-content-sha256: UNSIGNED-PAYLOAD"] + (current.sessionToken.map { ["x-amz-security-token: " + $0] } ?? []) + extra
    }

    // MARK: - Requests

    private func withRetries<T>(_ path: String, _ attempt: (_ retry: Bool) throws -> T) throws -> T {
        do {
            return try settings.withRetries(path, onRetry: onRetry, attempt)
        } catch is RegionFollowed {
            // Asked again at once, signed for the region the service named.
            return try settings.withRetries(path, onRetry: onRetry, attempt)
        }
    }

    /// Thrown by `check` once this connection has moved to the region an answer named.
    private struct RegionFollowed: Error {}

    private func send(_ request: HTTPRequest) throws -> HTTPResponse {
        requestCount += 1
        do {
            return try curl.perform(request)
        } catch let error as RemoteError {
            throw Self.unresolvedBucketHost(error, address: address) ?? error
        }
    }

    /// The error to give when the bucket's own host name does not resolve: requests name the
    /// bucket in the host (`journal.s3.example.org`), which a self-hosted server without a
    /// name for each bucket (Ceph, SeaweedFS, MinIO) does not have. Nil for any other error.
    static func unresolvedBucketHost(_ error: RemoteError, address: S3Address) -> RemoteError? {
        guard error.kind == .unreachable, !address.addressesByPath, error.detail.contains("resolve host") else { return nil }
        return RemoteError(.unreachable, detail: "\(address.bucket).\(address.host) does not resolve: requests name the bucket in the host. "
                               + "If \(address.host) is right, the server wants the bucket in the path: quire remote set with --path-style",
                           advises: true)
    }

    /// Maps an answer outside `accepted` to an error, by its S3 code where the body has one.
    private func check(_ response: HTTPResponse, path: String, accepted: Set<Int>) throws {
        let status = response.status
        if accepted.contains(status) { return }
        let s3 = S3ErrorParser.read(response.errorBody)
        let code = s3?.code ?? ""
        if !followedRegion, let region = bucketRegion(response, s3) {
            followedRegion = true
            try move(to: region)
            regions?.learn(region)
            throw RegionFollowed()
        }
        if let elsewhere = bucketElsewhere(response, s3) {
            throw RemoteError(.invalid, path: path, status: status, detail: elsewhere, advises: true)
        }
        switch (status, code) {
        case (_, "RequestTimeTooSkewed"):
            throw RemoteError(.forbidden, path: path, status: status,
                              detail: "this machine's clock is too far from the server's (S3 refuses requests more than 15 minutes off): set the clock right (timedatectl set-ntp true)", advises: true)
        case (_, "InvalidObjectState"):
            // A lifecycle rule moved the object to an archive class (Glacier, Deep Archive):
            // it reads only after a restore of its own, hours later, which no retry replaces.
            throw RemoteError(.forbidden, path: path, status: status,
                              detail: "the object is archived (a Glacier-like storage class) and cannot be read until it is restored: keep this prefix in a class that reads at once, and restore its archived objects with the service's tools", advises: true)
        case (_, "NoSuchBucket"):
            // Not "not found": a missing object is an answer, a missing bucket a wrong address.
            throw RemoteError(.unreachable, path: path, status: status,
                              detail: "the bucket \(address.bucket) does not exist at \(address.endpoint): check the name and --endpoint (`quire remote init` makes a new one)",
                              advises: true)
        case (_, "SlowDown"), (500, _), (502, _), (503, _), (504, _), (429, _):
            throw RemoteError(.transient, path: path, status: status, detail: "the server is busy or failing" + (code.isEmpty ? "" : " (\(code))"))
        case (_, "InvalidAccessKeyId"), (_, "SignatureDoesNotMatch"):
            throw RemoteError(.unauthorized, path: path, status: status, detail: "the server refuses these credentials (\(code)): check the access key and its secret")
        case (401, _), (403, _):
            throw RemoteError(.forbidden, path: path, status: status, detail: "the server refuses access" + (code.isEmpty ? "" : " (\(code))"))
        case (404, _), (410, _):
            throw RemoteError(.notFound, path: path, status: status, detail: "not found")
        case (412, _):
            throw RemoteError(.exists, path: path, status: status, detail: "already exists")
        case (413, _), (_, "EntityTooLarge"):
            throw RemoteError(.tooLarge, path: path, status: status, detail: "the server refuses a request body this large")
        default:
            throw RemoteError(.protocolError, path: path, status: status, detail: "unexpected answer" + (code.isEmpty ? "" : " (\(code))"))
        }
    }

    /// What to tell a person whose requests go to the wrong place for the bucket: AWS (and
    /// services like it) answers a request signed for another region with the bucket's in
    /// `<Region>` (`AuthorizationHeaderMalformed`, 400) or in the `x-amz-bucket-region`
    /// header (301), and one sent to another region's endpoint with `PermanentRedirect`.
    /// Only plain names are repeated: they come from the server, and go to a terminal.
    private func bucketElsewhere(_ response: HTTPResponse, _ failure: S3ErrorParser.Failure?) -> String? {
        if let region = bucketRegion(response, failure) {
            return "the bucket \(address.bucket) is in region \(region), not \(address.region): run `quire remote set` with --region \(region)"
                + (address.endpoint == S3Address.awsEndpoint(address.region) ? "" : " (and that region's --endpoint)")
        }
        guard response.status == 301 || (failure?.code == "PermanentRedirect" && [307, 400].contains(response.status)) else { return nil }
        let endpoint = failure?.endpoint ?? ""
        let plain = (1...253).contains(endpoint.utf8.count)
            && endpoint.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 || $0 == 46 }
        return "the service keeps the bucket \(address.bucket) at another endpoint" + (plain ? " (\(endpoint))" : "")
            + ": check --endpoint and --region in `quire remote set`"
    }

    /// The region an answer says the bucket is in, when it is another than this
    /// connection's and a plain region name.
    private func bucketRegion(_ response: HTTPResponse, _ failure: S3ErrorParser.Failure?) -> String? {
        guard [301, 307, 400].contains(response.status) else { return nil }
        let said = [failure?.region ?? "", response.headers["x-amz-bucket-region"] ?? ""]
        return said.first { S3Address.isRegionName($0) && $0 != address.region }
    }

    // MARK: - Backend

    package func put(_ path: String, from source: ByteSource) throws {
        try validatePath(path)
        try put(path, from: source, extra: [])
    }

    private func put(_ path: String, from source: ByteSource, extra: [String]) throws {
        try withRetries(path) { _ in
            guard try source.rewind() else { throw RemoteError(.localIO, path: path, detail: "upload cannot restart") }
            let response = try send(HTTPRequest(method: "PUT", url: url(key: key(path)), headers: try headers(extra), body: source))
            try check(response, path: path, accepted: [200, 201, 204])
        }
    }

    package func publish(_ path: String, from source: ByteSource) throws {
        try validatePath(path)
        if try honoursConditionalPut() {
            do {
                try put(path, from: source, extra: ["If-None-Match: *"])
            } catch let error as RemoteError where error.kind == .exists {
                throw error
            } catch let error as RemoteError where error.kind == .transient {
                // A lost answer retried: our own first PUT may be what is there now.
                throw error
            }
            return
        }
        // Names only their writer uses: what is there is its writer's (an earlier run).
        if try exists(path) { throw RemoteError(.exists, path: path, detail: "already exists") }
        try put(path, from: source, extra: [])
    }

    /// Whether a PUT with `If-None-Match: *` of a key that exists is refused here: asked once
    /// (two PUTs of a probe key and its DELETE), then remembered.
    private func honoursConditionalPut() throws -> Bool {
        if let conditionalPut { return conditionalPut }
        let probe = temporaryPrefix + "probe-" + UUID().uuidString.lowercased()
        defer { try? delete(probe) }
        do {
            try put(probe, from: DataSource(Data()), extra: ["If-None-Match: *"])
        } catch let error as RemoteError where error.status == 501 || (error.status == 400 && error.detail.contains("NotImplemented")) {
            // Refused outright, as AWS did before 2024 ("a header you provided implies
            // functionality that is not implemented"): publish with a HEAD first there.
            conditionalPut = false
            onProbe?(false)
            return false
        }
        var honoured = false
        do {
            try put(probe, from: DataSource(Data()), extra: ["If-None-Match: *"])
        } catch let error as RemoteError where error.kind == .exists {
            honoured = true
        }
        conditionalPut = honoured
        onProbe?(honoured)
        return honoured
    }

    private func exists(_ path: String) throws -> Bool {
        try withRetries(path) { _ in
            let response = try send(HTTPRequest(method: "HEAD", url: url(key: key(path)), headers: try headers()))
            if response.status == 404 { return false }
            try check(response, path: path, accepted: [200])
            return true
        }
    }

    package func get(_ path: String, range: Range<Int64>?, into sink: ByteSink) throws {
        try validatePath(path)
        try withRetries(path) { retry in
            if retry { try sink.reset() }
            var request = HTTPRequest(method: "GET", url: url(key: key(path)), headers: try headers(), sink: sink)
            if let range {
                guard !range.isEmpty else { return }
                request.headers.append("Range: bytes=\(range.lowerBound)-\(range.upperBound - 1)")
                request.range = range
            }
            try check(try send(request), path: path, accepted: [200, 206])
        }
    }

    /// One folder's names: ListObjectsV2 with `/` as delimiter, every page. S3 has no
    /// folders: one with nothing under it lists empty (never "not found": the two are the
    /// same there).
    package func list(_ folder: String) throws -> [RemoteEntry] {
        try validatePath(folder, allowRoot: true)
        let prefix = key(folder).isEmpty ? "" : key(folder) + "/"
        var entries: [RemoteEntry] = []
        var token: String?
        var pages = 0
        repeat {
            var query = [("delimiter", "/"), ("list-type", "2"), ("max-keys", String(pageSize)), ("prefix", prefix)]
            if let token { query.append(("continuation-token", token)) }
            let page: S3ListParser = try withRetries(folder) { _ in
                let sink = S3ListSink()
                let response = try send(HTTPRequest(method: "GET", url: url(key: "", query: query), headers: try headers(), sink: sink,
                                                    timeout: settings.listingTimeout))
                try check(response, path: folder, accepted: [200])
                guard sink.succeeded else {
                    if let refusal = sink.parser.refusal {
                        throw RemoteError(.protocolError, path: folder, status: 200, detail: "the server's listing has \(refusal)")
                    }
                    throw RemoteError(.transient, path: folder, status: 200, detail: "the server's listing was cut short (not one well-formed XML document)")
                }
                return sink.parser
            }
            for object in page.objects where object.key.hasPrefix(prefix) {
                let name = String(object.key.dropFirst(prefix.count))
                guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(temporaryPrefix) else { continue }
                entries.append(RemoteEntry(name: name, isFolder: false, size: object.size))
            }
            for common in page.prefixes where common.hasPrefix(prefix) && common.hasSuffix("/") {
                let name = String(common.dropFirst(prefix.count).dropLast())
                guard !name.isEmpty, !name.contains("/") else { continue }
                entries.append(RemoteEntry(name: name, isFolder: true, size: nil))
            }
            pages += 1
            guard entries.count <= PropfindParser.maxItems, pages <= PropfindParser.maxItems / max(1, pageSize) + 2 else {
                throw RemoteError(.protocolError, path: folder, detail: "the server's listing goes on past \(PropfindParser.maxItems) entries")
            }
            token = page.isTruncated ? page.nextToken : nil
            if page.isTruncated && (token ?? "").isEmpty {
                throw RemoteError(.protocolError, path: folder, detail: "the server's listing is cut with no continuation token")
            }
        } while token != nil
        return entries.sorted { $0.name < $1.name }
    }

    package func delete(_ path: String) throws {
        try validatePath(path)
        try withRetries(path) { _ in
            let response = try send(HTTPRequest(method: "DELETE", url: url(key: key(path)), headers: try headers()))
            // S3 answers 204 whether or not the key was there.
            try check(response, path: path, accepted: [200, 202, 204, 404])
        }
    }

    /// S3 has no rename: a server-side copy, then the source deleted. Quire's own publishing
    /// never moves (see the type's comment); this serves a caller that asks.
    package func move(_ from: String, to: String, overwrite: Bool) throws {
        try validatePath(from)
        try validatePath(to)
        if !overwrite, try exists(to) { throw RemoteError(.exists, path: to, detail: "already exists") }
        let source = "/" + address.bucket + "/" + key(from).split(separator: "/").map { S3Address.encoded(String($0)) }.joined(separator: "/")
        try withRetries(from) { _ in
            let sink = DataSink(limit: 64 << 10)
            let response = try send(HTTPRequest(method: "PUT", url: url(key: key(to)), headers: try headers(["x-amz-copy-source: " + source]), sink: sink))
            try check(response, path: from, accepted: [200])
            // A copy can fail after its 200 began: the body then says so.
            if let failure = S3ErrorParser.read(sink.data) {
                throw RemoteError(failure.code == "InternalError" || failure.code == "SlowDown" ? .transient : .protocolError,
                                  path: from, status: 200, detail: "the copy failed (\(failure.code))")
            }
        }
        try delete(from)
    }

    /// Nothing to make: a prefix exists once a key has it.
    package func makeFolder(_ path: String) throws { try validatePath(path, allowRoot: true) }
}

/// With versioning on (always, at Backblaze B2; by choice at AWS, Ceph or SeaweedFS), a
/// DELETE only hides an object: its bytes stay as a noncurrent version, kept and billed
/// until a lifecycle rule expires them. Quire works the same there; only what prune frees
/// differs, and a person should know that.
extension S3Backend: KeepsOldVersions {
    /// Asks the bucket (`GET ?versioning`, one request). True when versioning is `Enabled`,
    /// or `Suspended` (what was written while it was on keeps its versions); false when it
    /// was never on; nil when the server does not say: no permission to ask, no such API
    /// (Cloudflare R2), an answer that is no versioning configuration, or none at all.
    /// Never an error: the answer only informs.
    package func keepsOldVersions() -> Bool? {
        let status: String? = try? withRetries("") { _ in
            let sink = DataSink(limit: 64 << 10)
            let response = try send(HTTPRequest(method: "GET", url: url(key: "", query: [("versioning", "")]), headers: try headers(), sink: sink))
            try check(response, path: "", accepted: [200])
            return S3VersioningParser.read(sink.data)
        }
        return status.map { $0 == "Enabled" || $0 == "Suspended" }
    }

    /// Every version and delete marker of the keys in `folder` (ListObjectVersions, every
    /// page), keys with their prefix.
    package func versions(in folder: String) throws -> [S3ObjectVersion] {
        try validatePath(folder, allowRoot: true)
        let prefix = key(folder).isEmpty ? "" : key(folder) + "/"
        var versions: [S3ObjectVersion] = []
        var marker: (key: String, version: String)?
        var pages = 0
        repeat {
            var query = [("prefix", prefix), ("versions", "")]
            if let marker { query += [("key-marker", marker.key), ("version-id-marker", marker.version)] }
            let page: S3VersionsParser = try withRetries(folder) { _ in
                let sink = DataSink(limit: 8 << 20)
                let response = try send(HTTPRequest(method: "GET", url: url(key: "", query: query), headers: try headers(), sink: sink,
                                                    timeout: settings.listingTimeout))
                try check(response, path: folder, accepted: [200])
                guard let page = S3VersionsParser.read(sink.data) else {
                    throw RemoteError(.protocolError, path: folder, status: 200, detail: "the server's list of versions is not one")
                }
                return page
            }
            versions += page.versions.filter { $0.key.hasPrefix(prefix) }
            let next = page.isTruncated ? (key: page.nextKey, version: page.nextVersion) : nil
            pages += 1
            // A page must lead somewhere new: a server that names the same place again, or
            // none, or pages past any repository's size, would keep this asking for ever.
            let again = next.flatMap { next in marker.map { $0.key == next.key && $0.version == next.version } } ?? false
            guard versions.count <= PropfindParser.maxItems, pages <= PropfindParser.maxItems / 1000 + 2, next?.key.isEmpty != true, !again else {
                throw RemoteError(.protocolError, path: folder, detail: "the server's list of versions goes on without end")
            }
            marker = next
        } while marker != nil
        return versions
    }

    /// Deletes what `folder` keeps besides its current objects: every old version, then every
    /// delete marker (a marker deleted first would bring back the version it hides). One
    /// DELETE by version id each.
    /// - Throws: `RemoteError` when the server refuses to list or delete them (no
    ///   permission, Object Lock); what was deleted before stays deleted.
    package func deleteOldVersions(in folder: String) throws {
        let versions = try versions(in: folder)
        // Every old version first: then no delete marker hides anything any more.
        for version in versions.filter({ !$0.isLatest && !$0.isDeleteMarker }) + versions.filter(\.isDeleteMarker) {
            try withRetries(folder) { _ in
                let response = try send(HTTPRequest(method: "DELETE", url: url(key: version.key, query: [("versionId", version.id)]), headers: try headers()))
                try check(response, path: folder, accepted: [200, 204, 404])
            }
        }
    }
}

/// `remote init` on a bucket that is not there yet makes it, as restic's `init` does: a new
/// person should not need the service's console, or another tool, first.
extension S3Backend: MakesBuckets {
    package var bucketName: String { "\(address.bucket) (region \(address.region))" }

    /// False only when the server says `NoSuchBucket` to a one-key listing. Any other answer
    /// counts as there: the listing that follows explains a refusal by its code (a wrong
    /// secret, another account's bucket, another region, which it follows), and a server
    /// that is no S3 service is never asked to make anything. A busy server is asked again.
    package func bucketExists() throws -> Bool {
        let query = [("list-type", "2"), ("max-keys", "1"), ("prefix", address.prefix.isEmpty ? "" : address.prefix + "/")]
        return try withRetries("") { _ in
            let response = try send(HTTPRequest(method: "GET", url: url(key: "", query: query), headers: try headers(), sink: DataSink(limit: 64 << 10)))
            if response.status == 404, S3ErrorParser.read(response.errorBody)?.code == "NoSuchBucket" { return false }
            if response.status >= 500 || response.status == 429 { try check(response, path: "", accepted: []) }
            return true
        }
    }

    /// PUT of the bucket, with the region as its location constraint wherever it is not
    /// `us-east-1` (S3's default, which refuses to be named; minio-go, under restic, does
    /// the same).
    package func makeBucket() throws {
        let region = address.region
        let body = region == S3Address.defaultRegion ? Data() : Data(
            ("<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                + "<LocationConstraint>\(region)</LocationConstraint></CreateBucketConfiguration>").utf8)
        try withRetries("") { _ in
            let response = try send(HTTPRequest(method: "PUT", url: url(key: ""), headers: try headers(), body: DataSource(body)))
            if response.status == 200 { return }
            let code = S3ErrorParser.read(response.errorBody)?.code ?? ""
            let name = address.bucket
            switch code {
            case "BucketAlreadyOwnedByYou":
                return
            case "BucketAlreadyExists":
                throw RemoteError(.exists, status: response.status, detail: "the bucket name \(name) is another account's (a bucket's name is shared by every account of the service): choose another name", advises: true)
            case "AccessDenied":
                throw RemoteError(.forbidden, status: response.status, detail: "these credentials may not make the bucket \(name): make it with the service's console or tools, or use a key allowed to (s3:CreateBucket)", advises: true)
            case "InvalidLocationConstraint", "IllegalLocationConstraintException":
                throw RemoteError(.invalid, status: response.status, detail: "the service will not make a bucket in region \(region) at \(address.endpoint): check --region and --endpoint in `quire remote set`", advises: true)
            case "TooManyBuckets":
                throw RemoteError(.forbidden, status: response.status, detail: "the account has as many buckets as the service allows: give a bucket it has, with a prefix of its own (s3://BUCKET/PREFIX)", advises: true)
            case "InvalidBucketName":
                throw RemoteError(.invalid, status: response.status, detail: "the service refuses \(name) as a bucket name", advises: true)
            default:
                try check(response, path: "", accepted: [200])
            }
        }
    }
}
