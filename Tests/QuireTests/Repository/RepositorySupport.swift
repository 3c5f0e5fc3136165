import Foundation
import QuireCrypto
@testable import QuireRemote

/// Cheap Argon2id for tests; stored in the key file like any other cost.
let testCost = KeyCost.minimum

func secret(_ text: String) throws -> SecureBytes { try SecureBytes(copying: Array(text.utf8)) }

func pseudoRandomBytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
    var state = seed &* 0x9E3779B97F4A7C15 | 1
    return (0..<count).map { _ in
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    }
}

/// The backends the conformance suite runs against: the local folder always, and each WebDAV
/// server named in QUIRE_TEST_WEBDAV_URLS ("name=url name=url", started by scripts/test).
enum Backends {
    static let servers: [(name: String, url: String)] = parse("QUIRE_TEST_WEBDAV_URLS")
    /// Servers with a request-body limit (scripts/test: Apache at 1 MiB, nginx's default):
    /// the sync suites run against them too, the backend suite (8 MiB objects) does not.
    static let limitedServers: [(name: String, url: String)] = parse("QUIRE_TEST_LIMITED_WEBDAV_URLS")

    private static func parse(_ variable: String) -> [(name: String, url: String)] {
        let spec = ProcessInfo.processInfo.environment[variable] ?? ""
        return spec.split(separator: " ").compactMap { (item: Substring) -> (name: String, url: String)? in
            guard let eq = item.firstIndex(of: "=") else { return nil }
            return (String(item[..<eq]), String(item[item.index(after: eq)...]))
        }
    }

    /// S3 servers (scripts/test: SeaweedFS; scripts/interop: Ceph RGW too), as
    /// `name=s3://BUCKET?endpoint=…&path-style=1`, with QUIRE_TEST_S3_KEY/QUIRE_TEST_S3_SECRET.
    static let s3Servers: [(name: String, url: String)] = parse("QUIRE_TEST_S3_URLS")

    static var s3Credentials: S3Credentials {
        let env = ProcessInfo.processInfo.environment
        return S3Credentials(accessKey: env["QUIRE_TEST_S3_KEY"] ?? "", secretKey: env["QUIRE_TEST_S3_SECRET"] ?? "")
    }

    /// A bucket of its own on the first S3 server, with versioning on when asked (what
    /// Quire never does itself: a bucket is the person's, made with the service's tools).
    static func s3Bucket(versioned: Bool) throws -> S3Address {
        guard let server = s3Servers.first else { throw RemoteError(.invalid, detail: "scripts/test starts SeaweedFS: QUIRE_TEST_S3_URLS") }
        var address = try S3Address(url: server.url)
        address.bucket = "quire-v-" + UUID().uuidString.prefix(8).lowercased()
        address.prefix = ""
        var settings = settings
        (settings.user, settings.password, settings.sigV4Region) = (s3Credentials.accessKey, s3Credentials.secretKey, address.region)
        let curl = try Curl(settings: settings, basicAllowed: false, origin: address.endpoint)
        let signed = ["x-amz-content-sha256: UNSIGNED-PAYLOAD"]
        var made = try curl.perform(HTTPRequest(method: "PUT", url: address.url(key: ""), headers: signed, body: DataSource(Data())))
        if made.status == 200 && versioned {
            let on = "<VersioningConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Status>Enabled</Status></VersioningConfiguration>"
            made = try curl.perform(HTTPRequest(method: "PUT", url: address.url(key: "", query: [("versioning", "")]), headers: signed, body: DataSource(Data(on.utf8))))
        }
        guard made.status == 200 else { throw RemoteError(.protocolError, status: made.status, detail: "could not make the test bucket \(address.bucket)") }
        return address
    }

    static var names: [String] { ["local"] + servers.map(\.name) + s3Servers.map(\.name) }
    static var syncNames: [String] { names + limitedServers.map(\.name) }

    static var settings: HTTPSettings {
        let env = ProcessInfo.processInfo.environment
        var settings = HTTPSettings(user: env["QUIRE_TEST_WEBDAV_USER"], password: env["QUIRE_TEST_WEBDAV_PASSWORD"])
        settings.backoff = 0.01
        return settings
    }

    /// A fresh, empty folder on backend `name`, and a value that keeps it alive.
    static func make(_ name: String) throws -> (Backend, AnyObject) {
        if name == "local" {
            let dir = TempDir()
            return (LocalBackend(root: dir.path + "/repo"), dir)
        }
        if let server = s3Servers.first(where: { $0.name == name }) {
            // Each test its own prefix in the bucket.
            var address = try S3Address(url: server.url)
            address.prefix = (address.prefix.isEmpty ? "" : address.prefix + "/") + "t-" + UUID().uuidString.lowercased()
            return (try S3Backend(address: address, credentials: s3Credentials, settings: settings), server.url as NSString)
        }
        guard let server = (servers + limitedServers).first(where: { $0.name == name }) else { fatalError("unknown backend \(name)") }
        // Each test gets its own collection on the server, so tests run in parallel.
        let url = server.url + "t-" + UUID().uuidString.lowercased() + "/"
        return (try WebDAVBackend(url: url, settings: settings), server.url as NSString)
    }

    /// Another connection to the same folder as `backend` (for worker threads).
    static func twin(of backend: Backend) throws -> Backend {
        if let local = backend as? LocalBackend { return LocalBackend(root: local.root) }
        if let s3 = backend as? S3Backend { return try S3Backend(address: s3.address, credentials: s3Credentials, settings: settings) }
        guard let webdav = backend as? WebDAVBackend else { fatalError("no twin for \(type(of: backend))") }
        return try WebDAVBackend(url: webdav.base, settings: settings)
    }
}
