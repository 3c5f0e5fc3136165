import Foundation

/// The files every AWS tool shares: `~/.aws/credentials` and `~/.aws/config`, INI text whose
/// sections are profiles (`[name]`, or `[profile name]` in the config file).
enum AWSSharedConfig {
    /// The `key = value` pairs of `profile` in the file at `path`, keys lower-cased; a pair of
    /// a nested block (`s3 =` followed by indented pairs) as `s3.key`. Nil when the file
    /// cannot be read or is over 1 MiB.
    static func profile(_ profile: String, in path: String) -> [String: String]? {
        guard let data = FileManager.default.contents(atPath: path), data.count < 1 << 20 else { return nil }
        var section = "", block: String?, values: [String: String] = [:]
        for raw in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            let indented = raw.first.map { $0 == " " || $0 == "\t" } ?? false
            if !indented { block = nil }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                if section.hasPrefix("profile ") { section = String(section.dropFirst(8)).trimmingCharacters(in: .whitespaces) }
                continue
            }
            guard section == profile, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.isEmpty {
                if !indented { block = key }  // `s3 =`: the block's pairs follow, indented
                continue
            }
            values[(indented ? block.map { $0 + "." } ?? "" : "") + key] = value
        }
        return values
    }

    /// The profile the environment names: `AWS_PROFILE`, else `default`.
    static func profileName(_ environment: [String: String]) -> String {
        environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
    }

    /// `variable`'s file when set, else `~/.aws/NAME`.
    static func path(_ variable: String, default name: String, _ environment: [String: String]) -> String {
        environment[variable].flatMap { $0.isEmpty ? nil : $0 } ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.aws/" + name
    }
}

/// Where the AWS tools' shared settings say S3 is, for a remote given no `--region` or
/// `--endpoint`, read as aws-cli and the SDKs read them: `AWS_REGION` or `AWS_DEFAULT_REGION`,
/// `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`, else the profile's `region`, `endpoint_url`
/// and `addressing_style = path` in `~/.aws/config` (`AWS_CONFIG_FILE`; profile `AWS_PROFILE`
/// or `default`). Read once, when the remote is set: the URL keeps what they said, so a
/// service without the shell's variables syncs with the same place. The CA bundle too:
/// `AWS_CA_BUNDLE`, else the profile's `ca_bundle` (a self-hosted server's private CA),
/// kept as the remote's CA file.
package struct S3Defaults: Sendable {
    /// Each value with where it came from (a variable's name, or the file and profile), for
    /// an error that names it.
    package var region: (value: String, source: String)?
    package var endpoint: (value: String, source: String)?
    /// `addressing_style`: `path` true, `virtual` false, else nil (as the service wants).
    package var pathStyle: Bool?
    /// A PEM file of certificates to trust, `~/` expanded.
    package var caBundle: (value: String, source: String)?

    package init(environment: [String: String]) {
        func variable(_ names: String...) -> (value: String, source: String)? {
            for name in names { if let value = environment[name], !value.isEmpty { return (value, name) } }
            return nil
        }
        let file = AWSSharedConfig.path("AWS_CONFIG_FILE", default: "config", environment)
        let name = AWSSharedConfig.profileName(environment)
        let profile = AWSSharedConfig.profile(name, in: file) ?? [:]
        let source = "profile \(name) of \(file)"
        region = variable("AWS_REGION", "AWS_DEFAULT_REGION") ?? profile["region"].map { ($0, source) }
        endpoint = variable("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL") ?? (profile["s3.endpoint_url"] ?? profile["endpoint_url"]).map { ($0, source) }
        pathStyle = ["path": true, "virtual": false][profile["s3.addressing_style"] ?? ""]
        caBundle = (variable("AWS_CA_BUNDLE") ?? profile["ca_bundle"].map { ($0, source) }).map { said in
            guard said.value.hasPrefix("~/") else { return said }
            return ((environment["HOME"] ?? NSHomeDirectory()) + said.value.dropFirst(1), said.source)
        }
    }
}
