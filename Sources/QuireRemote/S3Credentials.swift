import Foundation
import Synchronization

/// S3 credentials: an access key, its secret and, for temporary ones, a session token and
/// when they expire.
package struct S3Credentials: Sendable, Equatable {
    package var accessKey: String
    package var secretKey: String
    package var sessionToken: String?
    /// When temporary keys stop working (a `credential_process` says); nil: never.
    package var expiration: Date?
    /// Whether a `credential_process` printed them (which is not run again unless they expire).
    package var fromProcess = false

    package init(accessKey: String, secretKey: String, sessionToken: String? = nil, expiration: Date? = nil) {
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.sessionToken = sessionToken
        self.expiration = expiration
    }

    /// Where every S3 tool finds them, in the AWS SDKs' order: `file` alone when given (an
    /// AWS credentials file: its profile's keys, or its `credential_process`); else
    /// `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`); else the
    /// profile (`AWS_PROFILE` or `default`) of `AWS_SHARED_CREDENTIALS_FILE` or
    /// `~/.aws/credentials`; else that profile's `credential_process` (in either file), run
    /// as the SDKs run it (`CredentialProcess`); else keys in the profile of `~/.aws/config`.
    /// - Throws: `RemoteError.unauthorized` saying where they were looked for, or what the
    ///   process did wrong.
    package static func find(file: String?, environment: [String: String]) throws -> S3Credentials {
        let profile = AWSSharedConfig.profileName(environment)
        if let file {
            guard let values = AWSSharedConfig.profile(profile, in: file) else {
                throw RemoteError(.unauthorized, detail: "cannot read the S3 credentials file \(file)")
            }
            if let keys = keys(values) { return keys }
            if let command = values["credential_process"] { return try CredentialProcess.run(command, profile: profile, environment: environment) }
            throw RemoteError(.unauthorized, detail: "profile '\(profile)' of \(file) has no aws_access_key_id and aws_secret_access_key")
        }
        if let key = environment["AWS_ACCESS_KEY_ID"], !key.isEmpty, let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty {
            return S3Credentials(accessKey: key, secretKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
        }
        let shared = AWSSharedConfig.path("AWS_SHARED_CREDENTIALS_FILE", default: "credentials", environment)
        let sharedExists = FileManager.default.fileExists(atPath: shared)
        let sharedValues = sharedExists ? AWSSharedConfig.profile(profile, in: shared) : [:]
        if let keys = sharedValues.flatMap(keys) { return keys }
        let config = AWSSharedConfig.profile(profile, in: AWSSharedConfig.path("AWS_CONFIG_FILE", default: "config", environment)) ?? [:]
        if let command = sharedValues?["credential_process"] ?? config["credential_process"] {
            return try CredentialProcess.run(command, profile: profile, environment: environment)
        }
        if let keys = keys(config) { return keys }
        if let fetched = fetched(profile, config) { throw RemoteError(.unauthorized, detail: fetched, advises: true) }
        guard sharedExists else {
            throw RemoteError(.unauthorized, detail: "no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or put them in ~/.aws/credentials, or give --credentials-file",
                              advises: true)
        }
        guard sharedValues != nil else { throw RemoteError(.unauthorized, detail: "cannot read the S3 credentials file \(shared)") }
        throw RemoteError(.unauthorized, detail: "profile '\(profile)' of \(shared) has no aws_access_key_id and aws_secret_access_key")
    }

    /// A profile's own keys, when it has both.
    private static func keys(_ values: [String: String]) -> S3Credentials? {
        guard let key = values["aws_access_key_id"], !key.isEmpty, let secret = values["aws_secret_access_key"], !secret.isEmpty else { return nil }
        return S3Credentials(accessKey: key, secretKey: secret, sessionToken: values["aws_session_token"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// What to do when `profile` of `~/.aws/config` has its keys fetched by aws-cli (SSO, a
    /// role, a web identity), which Quire does not ask; nil for any other profile.
    private static func fetched(_ profile: String, _ config: [String: String]) -> String? {
        // In this order, so a profile with several says the same every time.
        let ways = [("sso_session", "SSO"), ("sso_start_url", "SSO"), ("role_arn", "a role"), ("web_identity_token_file", "a web identity")]
        guard let how = ways.first(where: { config[$0.0] != nil })?.1 else { return nil }
        // A name with anything but letters, digits, `.`, `_` and `-` is quoted for the shell.
        let plain = profile.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || [45, 46, 95].contains($0) }
        let named = profile == "default" ? "" : " --profile " + (plain ? profile : "'" + profile.replacingOccurrences(of: "'", with: "'\\''") + "'")
        return "profile '\(profile)' gets its keys from \(how), which Quire does not ask; "
            + "give them for this run with: eval \"$(aws configure export-credentials\(named) --format env)\""
    }
}

/// Where a journal's S3 connections get their keys: looked up once (`S3Credentials.find`)
/// and shared by every connection the journal makes, as `S3Regions` is, so a sync reads the
/// files, or runs a `credential_process`, once and not once per connection. A watch runs for
/// hours, so keys are looked up again: those that expire when less than five minutes, or
/// half their life, is left (whichever is less); those from the files or the environment
/// after a minute (keys changed there are taken up); a process's keys that never expire,
/// never (as the SDKs do: it may ask the person).
package final class S3KeySource: Sendable {
    private let lookup: @Sendable () throws -> S3Credentials
    private let cached = Mutex<(keys: S3Credentials, at: Date)?>(nil)

    /// The keys `find` finds for the remote's credentials `file` (if any) and `environment`.
    package convenience init(file: String?, environment: [String: String]) {
        self.init { try S3Credentials.find(file: file, environment: environment) }
    }

    /// Always `keys` (tests, and checks that send nothing).
    package convenience init(_ keys: S3Credentials) {
        self.init { keys }
    }

    package init(lookup: @escaping @Sendable () throws -> S3Credentials) {
        self.lookup = lookup
    }

    /// The keys to sign with at `now`.
    package func current(at now: Date = Date()) throws -> S3Credentials {
        try cached.withLock { cached in
            if let (keys, at) = cached {
                if let expiration = keys.expiration {
                    if expiration.timeIntervalSince(now) > min(300, expiration.timeIntervalSince(at) / 2) { return keys }
                } else if keys.fromProcess || now.timeIntervalSince(at) < 60 {
                    return keys
                }
            }
            let keys = try lookup()
            cached = (keys, now)
            return keys
        }
    }
}

/// A journal's `S3KeySource`, kept across its operations (a command may make several: `remote
/// init` checks the bucket, then creates the repository) for as long as the remote's
/// credentials file and the environment stay the same.
package final class S3KeySources: Sendable {
    private let last = Mutex<(file: String?, environment: [String: String], source: S3KeySource)?>(nil)

    package init() {}

    package func source(file: String?, environment: [String: String]) -> S3KeySource {
        last.withLock { last in
            if let last, last.file == file, last.environment == environment { return last.source }
            let source = S3KeySource(file: file, environment: environment)
            last = (file, environment, source)
            return source
        }
    }
}
