import Foundation
import QuireKit

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
        Where there is no systemd user session, it says so and prints the unit to place in
        ~/.config/systemd/user/ yourself.
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
        let service = UserService(storeFolder: store.folder, executable: executable(), environment: context.environment)
        switch action {
        case "install":
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
            if let reason = try service.install(interval: interval) {
                context.printError("Not installed: \(reason). Place this unit in \(service.unitPath), then run "
                                   + "`systemctl --user enable --now \(service.name)`:")
                context.print(String(service.unit(interval: interval).dropLast()))
                return
            }
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
            context.print("last sync:  " + (status.lastSync ?? "never"))
            if let failure = status.lastFailure { context.print("last error: \(failure.time): \(failure.reason)") }
        case "uninstall":
            let removed = try service.uninstall()
            context.printError(removed ? "Stopped and removed \(service.name)." : "No service was installed for this store.")
        default:
            throw CLIError.usage("unknown action '\(action)' (actions: install, status, uninstall)")
        }
    }

    /// This very binary, so the unit runs the quire that installed it.
    static func executable() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first ?? "quire"
    }
}
