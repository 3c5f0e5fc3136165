import Foundation
import QuireKit

struct RemoteCommand: Command {
    static let name = "remote"
    static let abstract = "Show, set or create the encrypted repository this journal syncs with."
    static let usage = """
        Usage: quire remote [--json]                          show the remote
               quire remote set URL [--user USER] [--password-file F] [--max-object-size SIZE] [--insecure-http] [--ca-file F]
               quire remote set s3://BUCKET[/PREFIX] [--endpoint URL] [--region R] [--path-style] [--profile NAME] [--credentials-file F] [--ca-file F]
               quire remote init [--passphrase-file F]        create the encrypted repository there
               quire remote check [--passphrase-file F]       unlock it and check it is this journal's
               quire remote forget-key                        remove the key kept on this machine

        URL is https://… (WebDAV: Nextcloud, Apache, nginx, rclone), http://… on this machine
        (or beyond it with --insecure-http, where only Digest authentication is sent, never
        Basic), file:///path (a folder, e.g. a mounted disk), or s3://BUCKET/PREFIX (S3:
        AWS, Backblaze B2, Cloudflare R2, Wasabi, Ceph, SeaweedFS; --endpoint for any but
        AWS). The WebDAV password comes from --password-file (remembered as a path),
        QUIRE_WEBDAV_PASSWORD, or ~/.netrc. S3 credentials come from --credentials-file (an
        AWS credentials file, remembered as a path), AWS_ACCESS_KEY_ID and
        AWS_SECRET_ACCESS_KEY (AWS_SESSION_TOKEN), or ~/.aws/credentials (profile
        AWS_PROFILE, else default), or the profile's credential_process (a program that
        prints them: aws-vault, a password manager), run once a command; they are never
        stored. --profile NAME is remembered, and its keys then win over the environment's.
        Without --region or --endpoint, the region and endpoint are read where aws-cli reads them (AWS_REGION,
        AWS_ENDPOINT_URL_S3, the profile in ~/.aws/config) and kept in the URL; without
        --ca-file, an S3 remote over https takes the CA bundle aws-cli trusts (AWS_CA_BUNDLE,
        else the profile's ca_bundle), remembered as its path.
        A server whose certificate no public CA signed (a private CA, a self-signed
        certificate) is trusted with --ca-file F: the PEM certificate of that CA, or the
        server's own; its path is remembered. Without it, the system's CAs decide.
        Attachments travel in packs of up to 16 MiB. A server that refuses large request
        bodies (HTTP 413: nginx's client_max_body_size is 1 MiB unless raised) teaches Quire
        its limit, which is remembered; --max-object-size SIZE (like 1M or 512K) says it
        up front. Busy servers (423, 429, 5xx) and dropped connections are retried with back-off,
        5 attempts in all (QUIRE_HTTP_ATTEMPTS=N changes that).
        The passphrase comes from --passphrase-file, QUIRE_PASSPHRASE, or a prompt; it is
        never an argument. New key files use Argon2id at libsodium's MODERATE cost
        (QUIRE_KDF_COST=OPS,BYTES overrides it, for tests).
        `init` refuses when a repository already exists at the URL; every later use refuses a
        different or missing repository there and changes nothing in the journal. `init` makes
        an S3 bucket that does not exist yet, in the remote's region; nothing else makes one.
        """
    /// Each option names the subcommands that take it; any other is a usage error, not ignored.
    static let options: [OptionSpec] = [
        OptionSpec.user.only("set"), OptionSpec.passwordFile.only("set"),
        OptionSpec.value("max-object-size", "SIZE", "set: the largest request body the server takes (like 1M or 512K)").only("set"),
        OptionSpec.insecureHTTP.only("set"), OptionSpec.caFile.only("set"), OptionSpec.passphraseFile.only("init", "check"),
    ] + OptionSpec.s3.map { $0.only("set") } + [
        OptionSpec.flag("json", "show the remote as {\"url\", \"user\", \"repository\", \"max_object_size\", \"ca_file\"}, and for S3 \"endpoint\", \"region\", \"path_style\", \"profile\"").only(""),
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        let action = arguments.positionals.first ?? ""
        let allowed = OptionSpec.names(options, of: action)
        if ["", "set", "init", "check", "forget-key"].contains(action), let stray = arguments.given.subtracting(allowed).sorted().first {
            throw CLIError.usage("--\(stray) does not go with `quire remote\(action.isEmpty ? "" : " " + action)`")
        }
        switch arguments.positionals.first {
        case nil: try show(arguments, context: context)
        case "set": try set(arguments, context: context)
        case "init": try initialize(arguments, context: context)
        case "check": try check(arguments, context: context)
        case "forget-key":
            _ = try arguments.positionals("forget-key")
            let had = KeyCache.forget(storeFolder: try context.openStore().folder)
            context.printError(had ? "Removed the repository key kept on this machine: the next sync asks for the passphrase."
                               : "No repository key was kept on this machine.")
        case let other?: throw CLIError.usage("unknown remote command '\(other)' (set, init, check, forget-key)")
        }
    }

    private static func show(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        let store = try context.openStore(reading: true)
        guard let remote = try store.remoteSettings() else {
            context.print("No remote. Set one with: quire remote set URL")
            return
        }
        // An S3 remote's URL carries its endpoint and region percent-encoded: shown apart, with
        // the region the service said the bucket is in when that is not the one given.
        let s3 = try? S3Address(url: remote.url)
        let region = s3.map { remote.learnedRegion ?? $0.region }
        if arguments.flag("json") {
            var json = JSONOutput()
            var fields: [(String, JSONOutput.Value)] = [
                ("url", .string(remote.url)), ("user", .string(remote.user ?? "")),
                ("repository", .string(remote.repositoryID ?? "")), ("max_object_size", .int(Int(remote.maxObjectSize ?? 0))),
                ("ca_file", .string(remote.caFile ?? ""))]
            if let s3, let region {
                fields += [("endpoint", .string(s3.endpoint)), ("region", .string(region)), ("path_style", .bool(s3.addressesByPath)), ("profile", .string(s3.profile ?? ""))]
            }
            json.object(fields)
            context.print(json.text)
        } else {
            context.print("url:        \(remote.url)")
            if let s3, let region {
                context.print("endpoint:   \(s3.endpoint)\(s3.addressesByPath ? " (path-style)" : "")")
                context.print("region:     \(region)\(region != s3.region ? " (where the service said the bucket is; the URL says \(s3.region))" : "")")
                if let profile = s3.profile { context.print("profile:    \(profile)") }
            }
            if let user = remote.user { context.print("user:       \(user)") }
            if let file = remote.passwordFile { context.print("\(s3 == nil ? "password:   " : "credentials:") \(file)") }
            if let file = remote.caFile { context.print("ca file:    \(file)") }
            context.print("repository: \(remote.repositoryID ?? "(none yet: run quire remote init)")")
            if let limit = remote.maxObjectSize { context.print("max object: \(ByteCount.text(limit))") }
        }
    }

    private static func set(_ arguments: Arguments, context: Context) throws {
        let url = try arguments.positionals("set", "URL")[1]
        let limit = try arguments.value("max-object-size").map { text throws(CLIError) -> Int64 in
            guard let size = ByteCount.parse(text), size >= 128 << 10 else {
                throw CLIError.usage("--max-object-size must be a size of at least 128K, like 1M or 512K")
            }
            return size
        }
        let address = try Options.remoteAddress(url, arguments, environment: context.environment)
        let store = try context.openStore(create: true)
        try Journal(store: store).setRemote(address, maxObjectSize: limit)
    }

    private static func initialize(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals("init")
        let store = try context.openStore()
        let (journal, _, _) = try SyncSession.journal(store, arguments, context: context)
        // The server first: reachable, the password right, no repository there yet; only then
        // the passphrase (Journal.createRepository checks again).
        try journal.checkRemoteIsFree()
        let passphrase = try Secrets.passphrase(arguments, context: context, confirm: true, prompt: "New repository passphrase")
        let repository = try journal.makeRepository(passphrase: passphrase, cost: try Secrets.kdfCost(context))
        Secrets.warnIfShort(passphrase, context: context)
        if let bucket = repository.madeBucket { context.printError("Made the bucket \(bucket).") }
        if context.stderrIsTerminal {
            context.printError("Created encrypted repository \(repository.id.prefix(8)) at \(repository.backend.location). Keep the passphrase safe: without it nothing can be restored.")
        }
        if repository.backend.oldVersionsKept == true { context.printError("note: " + PruneCommand.oldVersionsNote) }
    }

    private static func check(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals("check")
        let store = try context.openStore()
        let (journal, _, _) = try SyncSession.journal(store, arguments, context: context)
        guard try store.remoteSettings() != nil else { throw SyncError.noRemoteSet }
        let repository = try SyncSession.askingAgain(arguments, context: context) {
            try journal.openRepository(passphrase: try Secrets.passphrase(arguments, context: context))
        }
        context.print("ok: repository \(repository.id.prefix(8)) at \(repository.backend.location) opens with this passphrase")
        if repository.backend.oldVersionsKept == true { context.printError("note: " + PruneCommand.oldVersionsNote) }
    }
}
