import Foundation
import QuireKit
import QuireSupport

struct ServiceCommand: Command {
    static let name = "service"
    static let abstract = "Run `sync --watch` for this store as a systemd user service."
    static let usage = """
        Usage: quire service install [--interval SECONDS]
               quire service status [--json]
               quire service uninstall

        install: writes a systemd user unit that runs `quire sync --watch` for this store
        (every --interval seconds, default 300, and soon after a change made here), enables it
        and starts it; it also starts at every login. It unlocks with the key an earlier
        `quire sync` cached in the store, never a passphrase, so sync once on a terminal first.
        The unit holds no secret: a WebDAV password given only in QUIRE_WEBDAV_PASSWORD is
        kept in the store's webdav-password file (0600), which the remote then names; for
        S3, the unit keeps AWS_PROFILE, AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE as
        this shell has them (where the keys are), never a key. Before
        installing, the repository is opened as the service will open it; if that fails
        (HTTP 401, say), nothing is installed. Where there is no systemd user session, it
        says so, prints the unit to place in ~/.config/systemd/user/ yourself, and exits 1.
        status: whether it is installed and running, when it last synced, and why the last
        try failed if it did.
        uninstall: stops it and removes the unit.
        """
    static let options: [OptionSpec] = [
        .value("interval", "SECONDS", "install: sync every SECONDS (default 300) and after each change"),
        .flag("json", "status as {\"installed\", \"state\", \"last_sync\", \"failure\", \"failed_at\", \"unit\"}"),
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        let action = try arguments.positionals("ACTION")[0]
        if action != "install", arguments.value("interval") != nil { throw CLIError.usage("--interval goes with `service install`") }
        if action != "status", arguments.flag("json") { throw CLIError.usage("--json goes with `service status`") }
        let store = try context.openStore()
        var service = UserService(storeFolder: store.folder, executable: executable(environment: context.environment), environment: context.environment)
        switch action {
        case "install":
            if try store.remoteSettings()?.url.hasPrefix("s3://") == true {
                // Where the keys are, as this shell says: the service looks there too.
                service.environment = carriedAWSVariables.compactMap { name in context.environment[name].flatMap { $0.isEmpty ? nil : (name, $0) } }
            }
            try service.checkPaths()
            var interval = 300
            if let text = arguments.value("interval") {
                guard let seconds = Int(text), seconds >= 1 else { throw CLIError.usage("--interval must be a whole number of seconds ≥ 1") }
                interval = seconds
            }
            guard let remote = try store.remoteSettings() else {
                throw CLIError.failure("this journal has no remote", hint: "quire remote set URL, then quire sync once")
            }
            guard let id = remote.repositoryID, KeyCache.load(storeFolder: store.folder, repositoryID: id) != nil else {
                throw CLIError.failure("no key is cached for this journal's repository",
                                       hint: "run `quire sync` once on a terminal: the service unlocks with the key it caches")
            }
            func notInstalled(_ reason: String) -> CLIError {
                context.printError("Not installed: \(reason). Place this unit in \(service.unitPath), then run "
                                   + "`systemctl --user enable --now \(service.name)`:")
                context.print(String(service.unit(interval: interval).dropLast()))
                return CLIError.failure("the service is not installed: \(reason)",
                                        hint: "install the unit printed above by hand, or run `quire sync --watch` yourself")
            }
            // Nothing is written (no password file, no unit) unless the service is installed.
            if let reason = service.missingSession() { throw notInstalled(reason) }
            let kept = try keepPasswordForTheService(store, remote, context: context)
            do {
                try checkAsTheServiceWould(store, context: context)
                if let reason = try service.install(interval: interval) { throw notInstalled(reason) }
            } catch {
                if let kept { try? UserService.forgetKeptPassword(kept, for: store, remote: remote) }
                throw error
            }
            if let kept { context.printError("The WebDAV password from QUIRE_WEBDAV_PASSWORD is kept for the service in \(kept) (readable by you alone).") }
            context.printError("Installed and started \(service.name): syncing every \(interval) s and after each change.")
        case "status":
            let status = try service.status(of: store)
            if arguments.flag("json") {
                var json = JSONOutput()
                json.object([("installed", .bool(status.installed)), ("state", .string(status.state ?? "")),
                             ("last_sync", .string(status.lastSync ?? "")), ("failure", .string(status.lastFailure?.reason ?? "")),
                             ("failed_at", .string(status.lastFailure?.time ?? "")), ("unit", .string(service.unitPath))])
                context.print(json.text)
                return
            }
            context.print("service:    " + (status.installed ? "installed (\(service.unitPath))" : "not installed (quire service install)"))
            if status.installed { context.print("state:      " + (status.state ?? "unknown: no systemd user session")) }
            context.print("last sync:  " + (status.lastSync.map { Format.happened($0) } ?? "never"))
            if let failure = status.lastFailure { context.print("last error: \(Format.happened(failure.time)): \(failure.reason)") }
        case "uninstall":
            let removed = try service.uninstall()
            context.printError(removed ? "Stopped and removed \(service.name)." : "No service was installed for this store.")
        default:
            throw CLIError.usage("unknown action '\(action)' (actions: install, status, uninstall)")
        }
    }

    /// Where an S3 remote's keys are, kept for the service (`UserService.environment`).
    static let carriedAWSVariables = ["AWS_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"]

    /// The service has no environment of ours: a WebDAV password this command has only
    /// from QUIRE_WEBDAV_PASSWORD is kept for it (`UserService.keepPassword`).
    /// Returns the file it wrote, or nil when there was nothing to keep.
    static func keepPasswordForTheService(_ store: Store, _ remote: RemoteSettings, context: Context) throws -> String? {
        guard remote.passwordFile == nil, let password = context.environment["QUIRE_WEBDAV_PASSWORD"], !password.isEmpty else { return nil }
        return try UserService.keepPassword(password, for: store)
    }

    /// Opens the repository the way the service will (the cached key, the password from the
    /// remote's file or ~/.netrc, nothing from this environment), so a service that could
    /// never sync is not installed.
    static func checkAsTheServiceWould(_ store: Store, context: Context) throws {
        var serviceEnvironment = context.environment
        // The unit carries no secret of this shell's, only where the AWS keys are.
        for secret in ["QUIRE_WEBDAV_PASSWORD", "QUIRE_PASSPHRASE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"] {
            serviceEnvironment[secret] = nil
        }
        let asService = Context(storeOption: store.folder, environment: serviceEnvironment)
        let (journal, _, _) = try SyncSession.journal(store, try Arguments([], spec: Arguments.Spec()), context: asService)
        journal.connection.workers = 0
        do {
            try journal.syncer(.cachedKeyOnly).confirmRepository()
        } catch {
            let unauthorized = (error as? RemoteError)?.kind == .unauthorized
            let s3 = (try? store.remoteSettings()?.url.hasPrefix("s3://")) == true
            throw CLIError.failure("the service could not sync, so it is not installed: " + Messages.text(of: error),
                                   hint: !unauthorized ? Messages.hint(of: error)
                                       : s3 ? "a service has none of this shell's AWS keys: put them in ~/.aws/credentials (the unit keeps "
                                           + "AWS_PROFILE), or a credential_process in ~/.aws/config, or give a file: "
                                           + "quire remote set s3://… --credentials-file F (keep F 0600)"
                                       : "give the password in a file the service can read: quire remote set URL --user USER "
                                           + "--password-file F (keep F 0600), or in ~/.netrc")
        }
    }

    /// The quire the person ran, as they ran it: `/usr/local/bin/quire` stays that path even
    /// when it is a link into a versioned folder, so an upgrade that moves the link moves the
    /// service along. A bare `quire` is found on PATH; only without either, this very binary.
    static func executable(arguments: [String] = CommandLine.arguments,
                           environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let typed = arguments.first ?? ""
        if typed.contains("/") {
            let absolute = typed.hasPrefix("/") ? typed : FileManager.default.currentDirectoryPath + "/" + typed
            let standard = URL(fileURLWithPath: absolute).standardized.path  // `./` and `../` out, links kept
            if FileManager.default.isExecutableFile(atPath: standard) { return standard }
        } else if !typed.isEmpty, let found = Executables.find(typed, in: environment) {
            return found
        }
        return (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "quire"
    }
}
