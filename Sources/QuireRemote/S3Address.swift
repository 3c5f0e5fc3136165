import Foundation

/// Where a repository lives on S3-compatible object storage, as Quire writes it down:
/// `s3://BUCKET[/PREFIX][?endpoint=URL&region=R&path-style=1]`. The query holds what
/// `remote set --endpoint --region --path-style` said, so every place that passes a remote's
/// URL along (restore, the service) passes all of it; no credential is ever part of it.
package struct S3Address: Equatable, Sendable {
    package var bucket: String
    /// Keys begin with it and a slash; "" for the bucket's root.
    package var prefix: String
    /// The service's base URL (`https://s3.eu-central-1.amazonaws.com`, `http://127.0.0.1:8333`).
    package var endpoint: String
    package var region: String
    /// `endpoint/bucket/key` (true) or `bucket.endpoint/key` (false) as the person said
    /// (`--path-style`, `addressing_style` in ~/.aws/config); nil: as the service wants
    /// (`addressesByPath`).
    package var pathStyle: Bool?
    /// The AWS profile whose keys sign (`--profile`): it wins over `AWS_PROFILE` and over keys
    /// in the environment, as aws-cli's `--profile` does; nil: the environment says.
    package var profile: String?

    package static let defaultRegion = "us-east-1"

    /// - Throws: `RemoteError.invalid` naming what is wrong.
    package init(url: String) throws {
        guard url.hasPrefix("s3://"), let parts = URLComponents(string: url), let bucket = parts.host, !bucket.isEmpty else {
            throw RemoteError(.invalid, detail: "an S3 remote is s3://BUCKET or s3://BUCKET/PREFIX")
        }
        guard Self.isValidBucket(bucket) else {
            throw RemoteError(.invalid, detail: "'\(bucket)' is not a bucket name (3–63 lower-case letters, digits, dots and hyphens)")
        }
        guard parts.user == nil && parts.password == nil else {
            throw RemoteError(.invalid, detail: "credentials never go in the URL: use AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, ~/.aws/credentials or --credentials-file")
        }
        self.bucket = bucket
        let path = parts.path.split(separator: "/").joined(separator: "/")
        guard !path.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else {
            throw RemoteError(.invalid, detail: "an S3 prefix has no '.' or '..' parts")
        }
        prefix = path
        let query = Dictionary((parts.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { _, last in last }
        region = query["region"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultRegion
        guard Self.isRegionName(region) else {
            throw RemoteError(.invalid, detail: "'\(region)' is not a region name")
        }
        pathStyle = query["path-style"] == "1" ? true : query["path-style"] == "0" ? false : nil
        profile = query["profile"].flatMap { $0.isEmpty ? nil : $0 }
        if let profile, !Self.isProfileName(profile) {
            throw RemoteError(.invalid, detail: "'\(profile)' is not a profile name (letters, digits, '.', '_', '-' and '@')")
        }
        endpoint = query["endpoint"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.awsEndpoint(region)
        guard let base = URL(string: endpoint), let scheme = base.scheme, scheme == "https" || scheme == "http", base.host != nil,
              base.query == nil, base.user == nil else {
            throw RemoteError(.invalid, detail: "--endpoint takes the service's URL, like https://s3.eu-central-1.wasabisys.com")
        }
        while endpoint.hasSuffix("/") { endpoint.removeLast() }
    }

    package init(bucket: String, prefix: String, endpoint: String?, region: String?, pathStyle: Bool?, profile: String? = nil) throws {
        var parts = URLComponents()
        parts.scheme = "s3"
        parts.host = bucket
        parts.path = prefix.isEmpty ? "" : "/" + prefix.split(separator: "/").joined(separator: "/")
        var items: [URLQueryItem] = []
        if let endpoint { items.append(URLQueryItem(name: "endpoint", value: endpoint)) }
        if let region { items.append(URLQueryItem(name: "region", value: region)) }
        if let pathStyle { items.append(URLQueryItem(name: "path-style", value: pathStyle ? "1" : "0")) }
        if let profile { items.append(URLQueryItem(name: "profile", value: profile)) }
        parts.queryItems = items.isEmpty ? nil : items
        try self.init(url: parts.string ?? "s3://" + bucket)
    }

    /// The URL as stored and shown: bucket and prefix, then what is not the default.
    package var text: String {
        var items: [String] = []
        if endpoint != Self.awsEndpoint(region) { items.append("endpoint=" + Self.encoded(endpoint)) }
        if region != Self.defaultRegion { items.append("region=" + region) }
        if let pathStyle { items.append("path-style=" + (pathStyle ? "1" : "0")) }
        if let profile { items.append("profile=" + Self.encoded(profile)) }
        return "s3://" + bucket + (prefix.isEmpty ? "" : "/" + prefix) + (items.isEmpty ? "" : "?" + items.joined(separator: "&"))
    }

    /// The URL of object `key` (or of the bucket, for an empty key), with `query` already
    /// in SigV4's canonical form: keys sorted, RFC 3986, bare keys as `k=`.
    package func url(key: String, query: [(String, String)] = []) -> String {
        let path = key.split(separator: "/", omittingEmptySubsequences: false).map { Self.encoded(String($0)) }.joined(separator: "/")
        let base: String
        if addressesByPath {
            base = endpoint + "/" + bucket + "/" + path
        } else {
            let parts = endpoint.components(separatedBy: "://")
            base = parts[0] + "://" + bucket + "." + (parts.last ?? "") + "/" + path
        }
        guard !query.isEmpty else { return base }
        return base + "?" + query.sorted { $0.0 < $1.0 }.map { Self.encoded($0.0) + "=" + Self.encoded($0.1) }.joined(separator: "&")
    }

    /// Whether requests name the bucket in the path. Always where a host cannot name it: an
    /// endpoint that is an IP address or `localhost`, and a bucket with a dot over TLS, whose
    /// host (`my.journal.s3.….amazonaws.com`) no wildcard certificate covers (AWS's advice).
    /// Else as the person said; else in the host only at services that want it there (AWS,
    /// Alibaba Cloud, Tencent Cloud) and in the path everywhere else, which every other
    /// service and self-hosted server takes (Backblaze B2, Cloudflare R2, Wasabi, Ceph,
    /// SeaweedFS, MinIO), where a host of its own for each bucket needs wildcard DNS. This is
    /// minio-go's rule, under restic; rclone names the bucket in the path too.
    package var addressesByPath: Bool {
        let host = self.host
        let address = host == "localhost" || host.hasPrefix("[") || host.contains(":")
            || (host.split(separator: ".").count == 4 && host.utf8.allSatisfy { (48...57).contains($0) || $0 == 46 })
        if address || (overTLS && bucket.contains(".")) { return true }
        return pathStyle ?? !Self.wantsBucketInHost(host)
    }

    /// Services that want the bucket in the host (path-style is deprecated or refused there).
    static func wantsBucketInHost(_ host: String) -> Bool {
        let host = host.lowercased()
        return [".amazonaws.com", ".amazonaws.com.cn", ".aliyuncs.com", ".myqcloud.com"].contains { host.hasSuffix($0) }
    }

    /// The host the requests go to (for the loopback rule and messages).
    package var host: String { URL(string: endpoint)?.host ?? endpoint }
    package var overTLS: Bool { endpoint.hasPrefix("https://") }

    /// AWS's endpoint for `region`: where a remote given no --endpoint goes.
    static func awsEndpoint(_ region: String) -> String { "https://s3.\(region).amazonaws.com" }

    /// The environment the keys are looked up in: with a profile of its own, that profile,
    /// and none of the environment's keys (which would otherwise come first).
    package func keyEnvironment(_ environment: [String: String]) -> [String: String] {
        guard let profile else { return environment }
        var environment = environment
        for key in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"] { environment[key] = nil }
        environment["AWS_PROFILE"] = profile
        return environment
    }

    /// Profile names as the AWS tools' files hold them (`[profile journal]`).
    static func isProfileName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { (97...122).contains($0) || (65...90).contains($0) || (48...57).contains($0) || [45, 46, 95, 64].contains($0) }
    }

    /// Region names as S3 services spell them (`eu-central-1`, `auto`, `eu-nl-1`).
    static func isRegionName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 }
    }

    /// Bucket names as S3 allows them (and DNS, for virtual-hosted addressing).
    static func isValidBucket(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count), let first = bytes.first, let last = bytes.last else { return false }
        func plain(_ c: UInt8) -> Bool { (97...122).contains(c) || (48...57).contains(c) }
        return plain(first) && plain(last) && bytes.allSatisfy { plain($0) || $0 == 45 || $0 == 46 }
    }

    /// RFC 3986 percent-encoding of everything but the unreserved characters (SigV4's rule:
    /// `/` as %2F in a query value).
    static func encoded(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
