import Foundation
import QuireRemote
import QuireStore

/// Turns a remote URL into a backend: `file:///path` a local folder, `http(s)://` WebDAV,
/// `s3://BUCKET[/PREFIX]` S3-compatible object storage.
package enum Remotes {
    /// A remote's URL as errors show it: without a password, if one was written into it.
    package static func shown(_ url: String) -> String { WebDAVBackend.redacted(url) }

    /// Checks a URL a person typed. `file://` needs an absolute path. `caFile`, when given, must
    /// be a readable PEM file holding a certificate, and goes with an https:// server.
    /// - Throws: `RemoteError.invalid` saying what is wrong.
    package static func validate(_ url: String, insecureHTTP: Bool = false, caFile: String? = nil) throws {
        if let caFile {
            guard !url.hasPrefix("file://") else { throw RemoteError(.invalid, detail: "--ca-file goes with an https:// or s3:// remote") }
            try validate(caFile: caFile)
        }
        if url.hasPrefix("file://") {
            guard String(url.dropFirst(7)).hasPrefix("/") else {
                throw RemoteError(.invalid, detail: "a file:// URL needs an absolute path, like file:///home/me/journal-backup")
            }
            return
        }
        if url.hasPrefix("s3://") {
            let address = try S3Address(url: url)
            var settings = HTTPSettings()
            settings.insecureHTTP = insecureHTTP
            _ = try S3Backend(address: address, credentials: S3Credentials(accessKey: "", secretKey: ""), settings: settings)
            return
        }
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
            throw RemoteError(.invalid, detail: "'\(url)' is not a remote URL: use https://…, http://…, s3://BUCKET/PREFIX or file:///path")
        }
        var settings = HTTPSettings()
        settings.insecureHTTP = insecureHTTP
        _ = try WebDAVBackend(url: url, settings: settings)
    }

    /// Checks that `caFile` is a readable PEM file holding a certificate.
    /// - Throws: `RemoteError.invalid` saying what is wrong.
    package static func validate(caFile: String) throws {
        guard let data = FileManager.default.contents(atPath: caFile), data.count < 4 << 20 else {
            throw RemoteError(.invalid, detail: "cannot read the CA file \(caFile)")
        }
        guard data.range(of: Data("-----BEGIN CERTIFICATE-----".utf8)) != nil else {
            throw RemoteError(.invalid, detail: "the CA file \(caFile) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
    }

    /// For an S3 remote, `keys` says where its credentials come from (by default, the
    /// environment's and `~/.aws/credentials`: `S3Credentials.find`).
    package static func backend(url: String, settings: HTTPSettings, keys: S3KeySource? = nil) throws -> Backend {
        if url.hasPrefix("s3://") {
            let address = try S3Address(url: url)
            return try S3Backend(address: address, keys: keys ?? S3KeySource(file: nil, environment: address.keyEnvironment(ProcessInfo.processInfo.environment)),
                                 settings: settings)
        }
        if url.hasPrefix("file://") {
            try validate(url)
            let path = String(url.dropFirst(7))
            return LocalBackend(root: path.removingPercentEncoding ?? path)
        }
        return try WebDAVBackend(url: url, settings: settings)
    }

    package static func backend(url: String, user: String?, password: String?) throws -> Backend {
        try backend(url: url, settings: HTTPSettings(user: user, password: password))
    }
}
