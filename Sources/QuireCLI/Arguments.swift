/// A small command-line parser: `--name value`, `--name=value`, repeatable options, flags,
/// and positionals; `--` ends options. Unknown options are usage errors.
struct Arguments {
    struct Spec {
        /// Options that take a value.
        var options: Set<String> = []
        /// Options that may be given more than once.
        var repeatable: Set<String> = []
        /// Options without a value.
        var flags: Set<String> = []
        /// One-letter names (`-n`) of options and flags, by letter.
        var short: [Character: String] = [:]
        /// A word after one dash that names no option is a positional (search's `-word`).
        var dashWords = false
    }

    private(set) var values: [String: [String]] = [:]
    private(set) var setFlags: Set<String> = []
    private(set) var positionals: [String] = []

    init(_ args: [String], spec: Spec) throws(CLIError) {
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let arg = args[i]
            i += 1
            var long = arg
            if !onlyPositionals, arg.count == 2, arg.hasPrefix("-"), let letter = arg.last, let name = spec.short[letter] {
                long = "--" + name
            }
            if onlyPositionals || !long.hasPrefix("--") || long == "-" {
                // A negative number is a positional (`--interval -5` is checked by its command).
                if !onlyPositionals && arg.hasPrefix("-") && arg.count > 1 && arg != "-h" && Double(arg) == nil
                    && !(spec.dashWords && !arg.hasPrefix("--")) {
                    throw Self.unknown(arg, spec: spec)
                }
                if arg == "-h" { setFlags.insert("help"); continue }
                positionals.append(arg)
                continue
            }
            if long == "--" { onlyPositionals = true; continue }
            var name = String(long.dropFirst(2))
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if spec.flags.contains(name) {
                guard inline == nil else { throw .usage("option --\(name) takes no value") }
                setFlags.insert(name)
            } else if spec.options.contains(name) {
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard i < args.count else { throw .usage("option --\(name) needs a value") }
                    // `add --title --store x` forgot the title: the next option is not it.
                    // (`--title=--store` says it is meant.)
                    if Self.namesOption(args[i], spec: spec) {
                        throw .usage("option --\(name) needs a value, not the option '\(args[i])' (write --\(name)=\(args[i]) if you mean it)")
                    }
                    value = args[i]
                    i += 1
                }
                if values[name] != nil && !spec.repeatable.contains(name) {
                    throw .usage("option --\(name) is given more than once")
                }
                values[name, default: []].append(value)
            } else {
                throw Self.unknown("--" + name, spec: spec)
            }
        }
    }

    /// Whether `arg` is one of the options or flags `spec` knows (`--store`, `--json=x`, `-n`).
    static func namesOption(_ arg: String, spec: Spec) -> Bool {
        if arg.count == 2, arg.hasPrefix("-"), let letter = arg.last, spec.short[letter] != nil { return true }
        guard arg.hasPrefix("--"), arg.count > 2 else { return false }
        let name = String(arg.dropFirst(2).prefix { $0 != "=" })
        return spec.options.contains(name) || spec.flags.contains(name)
    }

    /// An unknown option, with the known one it most likely meant (`--titel` → `--title`).
    static func unknown(_ arg: String, spec: Spec) -> CLIError {
        let typed = String(arg.drop { $0 == "-" }.prefix { $0 != "=" }).lowercased()
        let names = spec.options.union(spec.flags).sorted()
        let scored = names.map { ($0, QuireMain.editDistance(typed, $0)) }.filter { $0.1 <= 2 && $0.1 < $0.0.count }
        let near = scored.min { $0.1 < $1.1 }?.0 ?? (typed.count >= 3 ? names.first { $0.hasPrefix(typed) } : nil)
        guard let near else { return .usage("unknown option '\(arg)'") }
        return .usage("unknown option '\(arg)'; did you mean --\(near)?")
    }

    /// Drops an option the dispatcher handled itself (`--store`), so a command never sees it.
    mutating func forget(_ name: String) { values[name] = nil }

    /// Every option and flag given, by name.
    var given: Set<String> { Set(values.keys).union(setFlags) }

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func flag(_ name: String) -> Bool { setFlags.contains(name) }
    func has(_ name: String) -> Bool { values[name] != nil }

    /// Exactly `count` positionals, or a usage error naming what is expected.
    func positionals(_ names: String...) throws(CLIError) -> [String] {
        guard positionals.count == names.count else {
            if positionals.count < names.count {
                throw .usage("missing \(names[positionals.count])")
            }
            throw .usage("unexpected argument '\(positionals[names.count])'")
        }
        return positionals
    }

    /// At most one of `names` may be given.
    func exclusive(_ names: String...) throws(CLIError) {
        let given = names.filter { has($0) || flag($0) }
        if given.count > 1 { throw .usage("use only one of " + given.map { "--" + $0 }.joined(separator: ", ")) }
    }
}

/// One option of a command, declared once: the parser's spec, `--help`'s option list and the
/// reference in docs/CLI.md all come from it.
struct OptionSpec: Sendable {
    enum Kind: Sendable, Equatable {
        case flag
        /// Takes a value, named `placeholder` in help.
        case value(String)
        /// Takes a value and may be given more than once.
        case repeated(String)
    }

    let name: String
    let kind: Kind
    /// One or more lines.
    let help: String
    /// The subcommands it belongs to ("" for none given); nil: the whole command.
    var subcommands: Set<String>?
    /// A one-letter name too (`-n`).
    var short: Character?

    /// The option, also as `-letter`.
    func short(_ letter: Character) -> OptionSpec {
        var copy = self
        copy.short = letter
        return copy
    }

    /// The option, taken only by `subcommands` (`quire remote set --user`).
    func only(_ subcommands: String...) -> OptionSpec {
        var copy = self
        copy.subcommands = Set(subcommands)
        return copy
    }

    /// The names of `options` that subcommand `subcommand` takes.
    static func names(_ options: [OptionSpec], of subcommand: String) -> Set<String> {
        Set(options.filter { $0.subcommands?.contains(subcommand) ?? true }.map(\.name))
    }

    static func flag(_ name: String, _ help: String) -> OptionSpec { OptionSpec(name: name, kind: .flag, help: help, subcommands: nil) }
    static func value(_ name: String, _ placeholder: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .value(placeholder), help: help, subcommands: nil)
    }
    static func repeated(_ name: String, _ placeholder: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .repeated(placeholder), help: help, subcommands: nil)
    }

    /// `--name VALUE`, or `-n, --name VALUE`.
    var label: String {
        let names = (short.map { "-\($0), " } ?? "") + "--" + name
        switch kind {
        case .flag: return names
        case .value(let p), .repeated(let p): return names + " " + p
        }
    }

    /// The parser's view of `options`.
    static func spec(_ options: [OptionSpec]) -> Arguments.Spec {
        var spec = Arguments.Spec()
        for option in options {
            if let letter = option.short { spec.short[letter] = option.name }
            switch option.kind {
            case .flag: spec.flags.insert(option.name)
            case .value: spec.options.insert(option.name)
            case .repeated:
                spec.options.insert(option.name)
                spec.repeatable.insert(option.name)
            }
        }
        return spec
    }

    /// The option list of `--help`: labels in a column, each help line after them.
    static func render(_ options: [OptionSpec]) -> String {
        let width = (options.map(\.label.count).max() ?? 0) + 3
        return options.map { option in
            let lines = option.help.split(separator: "\n", omittingEmptySubsequences: false)
            let first = "  " + option.label.padding(toLength: width, withPad: " ", startingAt: 0) + (lines.first ?? "")
            let rest = lines.dropFirst().map { String(repeating: " ", count: width + 2) + $0 }
            return ([first] + rest).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}

extension OptionSpec {
    static let passphraseFile = value("passphrase-file", "F", "read the repository passphrase from F (else QUIRE_PASSPHRASE, else a prompt)")
    static let passwordFile = value("password-file", "F", "read the WebDAV password from F, remembered as a path\n(else QUIRE_WEBDAV_PASSWORD, else ~/.netrc)")
    static let user = value("user", "USER", "the WebDAV user name")
    static let insecureHTTP = flag("insecure-http", "allow http:// beyond this machine (only Digest authentication is sent)")
    static let caFile = value("ca-file", "F", "trust the server's certificate when the CA certificate(s) in PEM file F\nvouch for it (a private CA, or the server's self-signed certificate), remembered as a path\n(s3://: else AWS_CA_BUNDLE or ~/.aws/config's ca_bundle, as aws-cli)")
    /// An S3 remote's place and credentials (`s3://BUCKET/PREFIX`).
    static let s3: [OptionSpec] = [
        value("endpoint", "URL", "s3://: the service's URL (else AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or ~/.aws/config's\nendpoint_url, else AWS: https://s3.REGION.amazonaws.com)"),
        value("region", "R", "s3://: the bucket's region (else AWS_REGION, AWS_DEFAULT_REGION or ~/.aws/config's\nregion, else us-east-1)"),
        flag("path-style", "s3://: ENDPOINT/BUCKET/KEY addressing even at AWS (every other service and server\ngets it without asking), not BUCKET.ENDPOINT"),
        value("credentials-file", "F", "s3://: an AWS credentials file, remembered as a path (else AWS_ACCESS_KEY_ID\nand AWS_SECRET_ACCESS_KEY, else ~/.aws/credentials; profile AWS_PROFILE)"),
        value("profile", "NAME", "s3://: the AWS profile whose keys and settings to use, remembered; it wins over\nAWS_PROFILE and over keys in the environment, as aws-cli's --profile does"),
    ]
    static let filters: [OptionSpec] = [
        repeated("journal", "J", "only entries of journal J, case ignored (repeat for several)"),
        repeated("tag", "T", "only entries with tag T or a tag nested in it (T/…), case ignored (repeat: all of them)"),
        value("from", "DATE", "created at or after DATE (RFC 3339, YYYY-MM-DD, or words: yesterday, last monday)"),
        value("to", "DATE", "created at or before DATE (a bare date or a day's name includes that whole day)"),
    ]
}
