import Foundation
import QuireRemote
import QuireStore

/// Where a journal syncs to, as a person gives it.
public struct RemoteAddress: Sendable {
    /// `https://…` (WebDAV), `http://…` (loopback, or with `insecureHTTP`), `file:///path`,
    /// or `s3://BUCKET[/PREFIX][?endpoint=URL&region=R&path-style=1]`.
    public var url: String
    public var user: String?
    /// A file holding the WebDAV password, or for S3 an AWS credentials file (its path is
    /// stored, never what it holds).
    public var passwordFile: String?
    /// Accept plain `http://` beyond loopback (Digest authentication only).
    public var insecureHTTP: Bool
    /// A PEM file of the certificates that vouch for the server (its private CA, or its
    /// self-signed certificate), trusted instead of the system's; its path is stored.
    public var caFile: String?

    public init(url: String, user: String? = nil, passwordFile: String? = nil, insecureHTTP: Bool = false, caFile: String? = nil) {
        self.url = url
        self.user = user
        self.passwordFile = passwordFile
        self.insecureHTTP = insecureHTTP
        self.caFile = caFile
    }

    /// The address as the store keeps it.
    package init(_ remote: RemoteSettings) {
        self.init(url: remote.url, user: remote.user, passwordFile: remote.passwordFile, insecureHTTP: remote.insecureHTTP, caFile: remote.caFile)
    }
}

/// How a journal connects to its repository. The app supplies the WebDAV password (read
/// from the remote's password file, a keychain, …); Quire never stores it.
public struct Connection {
    /// The WebDAV password for a remote (from its `passwordFile`, a keychain, …), asked for
    /// once per opening.
    public var password: (RemoteAddress) throws -> String? = { _ in nil }
    /// Adjusts HTTP settings (attempts, timeouts) before each connection is made.
    package var tune: (inout HTTPSettings) -> Void = { _ in }
    /// Wraps each backend (to count traffic, say).
    package var wrap: (Backend) -> Backend = { $0 }
    /// Connections besides the main one, to read ahead and download while merging.
    package var workers = Syncer.defaultWorkers
    /// The authentication schemes the server asked for, shared by every connection this
    /// journal makes; seeded with the one an earlier run learned (`RemoteSettings.authScheme`).
    package let auth = AuthSchemes()
    /// The region an S3 service said the bucket is in, shared by every connection this
    /// journal makes; seeded with the one an earlier run learned (`RemoteSettings.learnedRegion`).
    package let regions = S3Regions()
    /// Where an S3 remote's credentials are looked for (`AWS_*`, `AWS_PROFILE`, `HOME`).
    public var environment: [String: String] = ProcessInfo.processInfo.environment
    /// The S3 keys found there, looked up once for every connection this journal makes
    /// (and again before they expire).
    package let keys = S3KeySources()
    /// Hears what an S3 server was found to do with `If-None-Match: *`, to remember it.
    package var rememberConditionalPut: ((Bool) -> Void)?

    public init() {}

    /// A maker of connections to `remote`; the password is read once, now.
    package func connector(for remote: RemoteSettings) throws -> () throws -> Backend {
        let isS3 = remote.url.hasPrefix("s3://")
        // An S3 remote's file is its AWS credentials file, read by the backend; not a password.
        var settings = HTTPSettings(user: remote.user, password: isS3 ? nil : try password(RemoteAddress(remote)))
        settings.insecureHTTP = remote.insecureHTTP
        settings.caFile = remote.caFile
        auth.remember(remote.authScheme)
        regions.remember(remote.learnedRegion)
        settings.schemes = auth
        tune(&settings)
        let wrap = self.wrap
        // A remote with a profile of its own looks its keys up there, whatever the shell says.
        let keyEnvironment = isS3 ? (try? S3Address(url: remote.url))?.keyEnvironment(environment) ?? environment : environment
        let keys = isS3 ? self.keys.source(file: remote.passwordFile, environment: keyEnvironment) : nil
        let (remember, regions) = (rememberConditionalPut, self.regions)
        return { [settings] in
            let backend = try Remotes.backend(url: remote.url, settings: settings, keys: keys)
            if let s3 = backend as? S3Backend {
                // Probed once per remote and remembered: no probe on later runs.
                s3.conditionalPut = remote.conditionalPut
                s3.onProbe = remember
                s3.regions = regions
            }
            return wrap(backend)
        }
    }
}
