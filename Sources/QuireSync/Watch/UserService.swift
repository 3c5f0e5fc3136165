import Foundation
import QuireSupport
import QuireStore

/// `quire sync --watch` for one store as a systemd user service: the unit, its place
/// (`$XDG_CONFIG_HOME/systemd/user/quire-sync-<8 hex>.service`, named after the store's
/// folder so each store may have its own), and `systemctl --user` to enable, stop and ask
/// about it. The unit holds no secret: the service unlocks with the key an earlier sync
/// cached in the store, and reads the WebDAV password from the store's password file or
/// `~/.netrc`.
package struct UserService {
    package let storeFolder: String
    /// The `quire` binary the unit runs.
    package let executable: String
    /// `$XDG_CONFIG_HOME`, or `~/.config`.
    package let configHome: String
    /// The `systemctl` to call.
    package var systemctl = "systemctl"
    /// Variables the service gets (`Environment=`): where an S3 remote's keys are, as the
    /// shell that installs it says (`AWS_PROFILE`, the AWS files' paths). Never a secret.
    package var environment: [(name: String, value: String)] = []

    package init(storeFolder: String, executable: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.storeFolder = storeFolder
        self.executable = executable
        let home = environment["HOME"] ?? NSHomeDirectory()
        configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
    }

    package var name: String { "quire-sync-" + SHA256.hex(of: storeFolder.utf8).prefix(8) + ".service" }
    package var unitPath: String { configHome + "/systemd/user/" + name }

    /// A unit is lines: a store folder or binary whose path holds a control character (a
    /// newline would start a line of its own: `ExecStartPre=` anything) is refused.
    /// - Throws: `StoreError.invalid` naming the path.
    package func checkPaths() throws {
        for path in [storeFolder, executable] where path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw StoreError(.invalid, path: path.debugDescription, detail: "a service cannot run from a path with a control character in it (a newline, a tab); move or rename it")
        }
        for (name, value) in environment where value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw StoreError(.invalid, detail: "a service cannot be given \(name) with a control character in it (a newline, a tab)")
        }
    }

    /// The unit's text. Arguments and variables are quoted for systemd (`"…"`, with `%`, `$`,
    /// `\` and `"` escaped), so a store folder with spaces or quotes is passed as one argument.
    package func unit(interval: Int) -> String {
        // Scalar by scalar: a quote or a `%` followed by a combining mark is one `Character`,
        // and would not be escaped by a `String` replacement. `%` starts a systemd specifier
        // everywhere; in a quoted argument `\` and `"` are escaped and `$` doubled too.
        func escaped(_ s: String, argument: Bool) -> String {
            var out = String.UnicodeScalarView()
            for scalar in s.unicodeScalars {
                switch scalar {
                case "%": out.append("%")
                case "\\" where argument, "\"" where argument: out.append("\\")
                case "$" where argument: out.append("$")
                default: break
                }
                out.append(scalar)
            }
            return String(out)
        }
        func quoted(_ s: String) -> String { "\"" + escaped(s, argument: true) + "\"" }
        let command = [executable, "--store", storeFolder, "sync", "--watch", "--interval", String(interval), "--cached-key-only"]
        return """
            # Written by `quire service install`; `quire service uninstall` removes it.
            [Unit]
            Description=Quire journal sync for \(escaped(storeFolder, argument: false))
            Wants=network-online.target
            After=network-online.target

            [Service]
            Type=simple
            \(environment.map { "Environment=" + quoted($0.name + "=" + $0.value) + "\n" }.joined())ExecStart=\(command.map(quoted).joined(separator: " "))
            Restart=on-failure
            RestartSec=60

            [Install]
            WantedBy=default.target

            """
    }

    /// Keeps the WebDAV password for the service, which has no environment of the person's:
    /// in `<store>/webdav-password`, 0600 like the key cached beside it (the store holds the
    /// journal in plaintext already), and names it as the remote's password file, so the unit
    /// and its arguments hold no secret. Returns the file's path.
    package static func keepPassword(_ password: String, for store: Store) throws -> String {
        guard let remote = try store.remoteSettings() else { throw StoreError(.invalid, detail: "this journal has no remote") }
        let file = store.folder + "/webdav-password"
        var bytes = Array(password.utf8)
        defer { for i in bytes.indices { bytes[i] = 0 } }
        try FileIO.writeDurably(to: file, mode: 0o600) { fd in
            try bytes.withUnsafeBytes { try FileIO.writeAll(fd, $0, path: file) }
        }
        try store.setRemote(url: remote.url, user: remote.user, passwordFile: file, insecureHTTP: remote.insecureHTTP, caFile: remote.caFile)
        return file
    }

    /// Undoes `keepPassword` when the service was not installed after all: the file goes and
    /// the remote names the password file it named before (`remote`).
    package static func forgetKeptPassword(_ file: String, for store: Store, remote: RemoteSettings) throws {
        try store.setRemote(url: remote.url, user: remote.user, passwordFile: remote.passwordFile, insecureHTTP: remote.insecureHTTP, caFile: remote.caFile)
        unlink(file)
    }

    /// Why there is no systemd user session to install into, or nil when there is one.
    package func missingSession() -> String? {
        switch run(["--user", "show-environment"]) {
        case nil, 127?: return "systemctl is not installed"
        case let status? where status != 0: return "there is no systemd user session (systemctl --user failed)"
        default: return nil
        }
    }

    /// Writes the unit and enables it now; nil when done, else why not (then nothing is written).
    /// - Throws: `StoreError.io` when the unit cannot be written or systemctl refuses it.
    package func install(interval: Int) throws -> String? {
        try checkPaths()
        if let reason = missingSession() { return reason }
        try FileIO.makeFolder(configHome)
        try FileIO.makeFolder(configHome + "/systemd")
        try FileIO.makeFolder(configHome + "/systemd/user")
        try FileIO.writeText(unit(interval: interval), to: unitPath)
        for arguments in [["--user", "daemon-reload"], ["--user", "enable", "--now", name], ["--user", "restart", name]] {
            guard run(arguments) == 0 else {
                throw StoreError(.io, path: unitPath, detail: "systemctl \(arguments.joined(separator: " ")) failed")
            }
        }
        return nil
    }

    /// Stops and removes the unit; false when it was not installed.
    package func uninstall() throws -> Bool {
        guard FileManager.default.fileExists(atPath: unitPath) else { return false }
        if missingSession() == nil { _ = run(["--user", "disable", "--now", name]) }
        guard unlink(unitPath) == 0 else { throw StoreError(.io, path: unitPath, detail: FileIO.errnoText()) }
        if missingSession() == nil { _ = run(["--user", "daemon-reload"]) }
        return true
    }

    package struct Status: Sendable {
        package var installed: Bool
        /// systemd's word for it (`active`, `inactive`, `failed`), when there is a session.
        package var state: String?
        package var lastSync: String?
        package var lastFailure: (time: String, reason: String)?
    }

    package func status(of store: Store) throws -> Status {
        var state: String?
        if missingSession() == nil {
            state = output(["--user", "is-active", name])?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return Status(installed: FileManager.default.fileExists(atPath: unitPath), state: state,
                      lastSync: try store.lastSync(), lastFailure: try store.lastSyncFailure())
    }

    /// Runs systemctl quietly (`ChildProcess`); its exit status, or nil when it cannot be started.
    private func run(_ arguments: [String]) -> Int32? {
        (try? ChildProcess.run("/usr/bin/env", [systemctl] + arguments))?.status
    }

    private func output(_ arguments: [String]) -> String? {
        (try? ChildProcess.run("/usr/bin/env", [systemctl] + arguments))?.outputText
    }
}
