import Foundation
import Testing
@testable import QuireCLI
@testable import QuireStore
@testable import QuireSync

/// `sync --watch` as the service runs it, and `quire service` against a stand-in systemctl
/// (a test machine has no systemd user session).
@Suite struct ServiceTests {
    static let env = SyncCLITests.env

    /// A store synced once (so its key is cached) with a file:// repository.
    func syncedStore(_ dir: TempDir) throws -> String {
        let (a, _, _) = try SyncCLITests().setUp(dir)
        #expect(try QuireBinary.run(["sync"], store: a, environment: Self.env).status == 0)
        return a
    }

    /// A `systemctl` that logs its arguments and answers as a user session would (or, with
    /// `session: false`, as a machine without one).
    func fakeSystemctl(_ dir: TempDir, session: Bool) throws -> [String: String] {
        let bin = dir.path + "/bin"
        let script = """
            #!/bin/sh
            echo "$*" >> "\(dir.path)/systemctl.log"
            \(session ? "" : "exit 1")
            case "$2" in is-active) echo active ;; esac
            exit 0
            """
        _ = dir.file("bin/systemctl", script)
        chmod(bin + "/systemctl", 0o755)
        return ["PATH": bin + ":/usr/bin:/bin", "XDG_CONFIG_HOME": dir.path + "/config"]
    }

    /// A folder's quotes, backslashes, `%` and `$` are escaped for systemd, each of them,
    /// also a quote that a combining accent follows (one `Character` with it).
    @Test func theUnitQuotesEveryQuoteOfAPath() {
        let folder = "/home/a \"b\"\u{301} \\ $HOME %h %\u{301}"
        let unit = UserService(storeFolder: folder, executable: "/usr/bin/quire", environment: ["HOME": "/home/a"]).unit(interval: 60)
        let line = unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") } ?? ""
        #expect(line.contains(#""--store" "/home/a \"b\"\#u{301} \\ $$HOME %%h %%\#u{301}" "sync""#), "\(line)")
        let description = unit.split(separator: "\n").first { $0.hasPrefix("Description=") } ?? ""
        #expect(description == "Description=Quire journal sync for /home/a \"b\"\u{301} \\ $HOME %%h %%\u{301}", "\(description)")
    }

    @Test func installWritesAUnitWithoutSecretsAndEnablesIt() throws {
        let dir = TempDir()
        let a = try syncedStore(dir)
        let env = try fakeSystemctl(dir, session: true)
        let install = try QuireBinary.run(["service", "install", "--interval", "120"], store: a, environment: env)
        #expect(install.status == 0, "\(install.stderr)")
        let units = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/config/systemd/user")
        #expect(units.count == 1 && units[0].hasPrefix("quire-sync-") && units[0].hasSuffix(".service"))
        let unit = dir.read("config/systemd/user/" + units[0])
        #expect(unit.contains("ExecStart=\"\(QuireBinary.path)\" \"--store\" \"\(a)\" \"sync\" \"--watch\" \"--interval\" \"120\" \"--cached-key-only\""))
        #expect(unit.contains("WantedBy=default.target") && !unit.contains("pw") && !unit.contains("PASSPHRASE"))
        let log = dir.read("systemctl.log")
        #expect(log.contains("--user daemon-reload") && log.contains("--user enable --now " + units[0]))

        let status = try QuireBinary.run(["service", "status", "--json"], store: a, environment: env)
        let s = try #require(try JSONValue.parse(status.stdout).object)
        #expect(s["installed"] == .bool(true) && s["state"]?.string == "active" && s["last_sync"]?.string?.isEmpty == false)

        let uninstall = try QuireBinary.run(["service", "uninstall"], store: a, environment: env)
        #expect(uninstall.status == 0 && !FileManager.default.fileExists(atPath: dir.path + "/config/systemd/user/" + units[0]))
        #expect(dir.read("systemctl.log").contains("--user disable --now " + units[0]))
    }

    /// The unit runs the quire the person ran, by the path they ran it as: a link
    /// (`/usr/local/bin/quire` into a versioned folder) stays the link, so an upgrade that
    /// moves the link moves the service along.
    @Test func theUnitKeepsThePathThePersonRan() throws {
        let dir = TempDir()
        let a = try syncedStore(dir)
        let env = try fakeSystemctl(dir, session: true)
        let link = dir.path + "/bin/quire"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: QuireBinary.path)
        let install = try QuireBinary.run(["service", "install"], store: a, environment: env, executable: link)
        #expect(install.status == 0, "\(install.stderr)")
        let units = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/config/systemd/user")
        let unit = dir.read("config/systemd/user/" + units[0])
        #expect(unit.contains("ExecStart=\"\(link)\" \"--store\""), "\(unit)")
    }

    @Test func withoutASessionTheUnitIsPrintedAndNothingWritten() throws {
        let dir = TempDir()
        let a = try syncedStore(dir)
        let env = try fakeSystemctl(dir, session: false).merging(["QUIRE_WEBDAV_PASSWORD": "secret"]) { $1 }
        let install = try QuireBinary.run(["service", "install"], store: a, environment: env)
        #expect(install.status == 1, "it could not install, and says so in its exit status")
        #expect(install.stderr.contains("Not installed: there is no systemd user session"))
        #expect(install.stderr.contains("quire: error: the service is not installed"))
        #expect(install.stdout.hasPrefix("# Written by `quire service install`") && install.stdout.contains("[Service]"))
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/config/systemd"))
        // Nor is a password kept for a service that is not there.
        #expect(!FileManager.default.fileExists(atPath: a + "/webdav-password"))
        #expect(!install.stderr.contains("kept for the service"))
    }

    /// The tour's way: the WebDAV password only in QUIRE_WEBDAV_PASSWORD. The service has no
    /// such variable, so the password is kept in a 0600 file of the store that the remote
    /// names; the unit holds no secret, and a sync as the service runs it works.
    @Test(.enabled(if: Backends.servers.contains { $0.name == "apache" }, "needs the Apache that scripts/test starts"))
    func aPasswordFromTheEnvironmentIsKeptForTheServiceInAFile() throws {
        let apache = try #require(Backends.servers.first { $0.name == "apache" }?.url)
        let password = try #require(Backends.settings.password)
        let dir = TempDir()
        let a = dir.path + "/a"
        let withPassword = Self.env.merging(["QUIRE_WEBDAV_PASSWORD": password]) { $1 }
        #expect(try QuireBinary.run(["add", "--title", "x"], store: a, stdin: "").status == 0)
        #expect(try QuireBinary.run(["remote", "set", apache + "svc-" + UUID().uuidString.lowercased() + "/", "--user", "quire"], store: a).status == 0)
        #expect(try QuireBinary.run(["remote", "init"], store: a, environment: withPassword).status == 0)
        #expect(try QuireBinary.run(["sync"], store: a, environment: withPassword).status == 0)
        let env = try fakeSystemctl(dir, session: true).merging(withPassword) { $1 }
        let install = try QuireBinary.run(["service", "install"], store: a, environment: env)
        #expect(install.status == 0, "\(install.stderr)")
        #expect(install.stderr.contains("kept for the service in \(a)/webdav-password"))
        let attributes = try FileManager.default.attributesOfItem(atPath: a + "/webdav-password")
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        let unit = dir.read("config/systemd/user/" + (try FileManager.default.contentsOfDirectory(atPath: dir.path + "/config/systemd/user")[0]))
        #expect(!unit.replacingOccurrences(of: dir.path, with: "").contains(password), "(the temporary folder's name holds the test password)")
        // What the unit runs, in an environment without the password, syncs.
        #expect(try QuireBinary.run(["add", "--title", "y"], store: a, stdin: "").status == 0)
        let asService = try QuireBinary.run(["sync", "--cached-key-only", "--json"], store: a, environment: Self.env)
        #expect(asService.status == 0, "\(asService.stderr)")
    }

    /// A service that could never sync (no password it can read: every run would get 401) is
    /// not installed, and the command says why and exits 1.
    @Test(.enabled(if: Backends.servers.contains { $0.name == "apache" }, "needs the Apache that scripts/test starts"))
    func aServiceThatCouldNeverSyncIsNotInstalled() throws {
        let apache = try #require(Backends.servers.first { $0.name == "apache" }?.url)
        let password = try #require(Backends.settings.password)
        let dir = TempDir()
        let a = dir.path + "/a"
        let passwordFile = dir.file("pw", password)
        #expect(try QuireBinary.run(["add", "--title", "x"], store: a, stdin: "").status == 0)
        let url = apache + "svc-" + UUID().uuidString.lowercased() + "/"
        #expect(try QuireBinary.run(["remote", "set", url, "--user", "quire", "--password-file", passwordFile], store: a).status == 0)
        #expect(try QuireBinary.run(["remote", "init"], store: a, environment: Self.env).status == 0)
        #expect(try QuireBinary.run(["sync"], store: a, environment: Self.env).status == 0)
        _ = dir.file("pw", "not the password")
        let env = try fakeSystemctl(dir, session: true)
        let install = try QuireBinary.run(["service", "install"], store: a, environment: env)
        #expect(install.status == 1 && install.stderr.contains("the service could not sync, so it is not installed"), "\(install.stderr)")
        #expect(install.stderr.contains("hint: give the password in a file the service can read"))
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/config/systemd"))
    }

    @Test func installNeedsACachedKeyAndARemote() throws {
        let dir = TempDir()
        let env = try fakeSystemctl(dir, session: true)
        let plain = dir.path + "/plain"
        #expect(try QuireBinary.run(["add", "--title", "x"], store: plain, stdin: "").status == 0)
        let noRemote = try QuireBinary.run(["service", "install"], store: plain, environment: env)
        #expect(noRemote.status == 1 && noRemote.stderr.contains("no remote"))
        let (_, b, _) = try SyncCLITests().setUp(dir)  // b: a remote, never synced, so no key cached
        let noKey = try QuireBinary.run(["service", "install"], store: b, environment: env)
        #expect(noKey.status == 1 && noKey.stderr.contains("no key is cached"))
        let watch = try QuireBinary.run(["sync", "--watch", "--cached-key-only"], store: b,
                                        environment: ["QUIRE_PASSPHRASE": "pw", "QUIRE_KDF_COST": "1,8192"])
        #expect(watch.status == 1 && watch.stderr.contains("no key is cached"))
        #expect(try QuireBinary.run(["service", "frobnicate"], store: b, environment: env).status == 2)
    }

    /// A change made by another process is pushed within seconds, not at the next interval
    /// (an hour away here).
    @Test func aLocalChangeIsSyncedSoonWithoutWaitingForTheInterval() throws {
        let dir = TempDir()
        let a = try syncedStore(dir)
        let watch = try WatchedProcess(["--store", a, "sync", "--watch", "--interval", "3600", "--cached-key-only", "--json"],
                                       environment: ["QUIRE_KDF_COST": "1,8192"])
        defer { watch.terminate() }
        try #require(watch.nextLine() != nil, "no first round: \(watch.stderr)")
        #expect(try QuireBinary.run(["add", "--title", "pushed soon"], store: a, stdin: "").status == 0)
        // The next round can only be the one the change started: the interval is an hour.
        let round = watch.nextLine()
        #expect((try? JSONValue.parse(round ?? "").object?["changes_pushed"]?.integer).flatMap { $0 } ?? 0 > 0,
                "\(round ?? "no second round"): \(watch.stderr)")
        #expect((try JSONValue.parse(try QuireBinary.run(["status", "--json"], store: a).stdout).object?["pending"]?.integer) == 0)
    }

    @Test func aFailingServerIsRecordedAndTriedLessOften() throws {
        #expect(SyncWatch.backoff(failures: 1, interval: 300) == 15)
        #expect(SyncWatch.backoff(failures: 3, interval: 300) == 60)
        #expect(SyncWatch.backoff(failures: 12, interval: 300) == 1800)
        #expect(SyncWatch.backoff(failures: 1000, interval: 7200) == 7200)

        let dir = TempDir()
        let a = try syncedStore(dir)
        try FileManager.default.moveItem(atPath: dir.path + "/repo", toPath: dir.path + "/gone")
        // The repository is gone: the watch cannot start, and says why in the store.
        let run = try QuireBinary.run(["sync", "--watch", "--cached-key-only"], store: a, environment: ["QUIRE_KDF_COST": "1,8192"])
        #expect(run.status == 1 && run.stderr.contains("no Quire repository"))
        let status = try JSONValue.parse(try QuireBinary.run(["service", "status", "--json"], store: a).stdout).object
        #expect(status?["failure"]?.string?.isEmpty == false && status?["failed_at"]?.string?.isEmpty == false)
        // `quire status` says so too, in words a person reads: local time and how long ago.
        let plain = try QuireBinary.run(["status"], store: a).stdout
        #expect(plain.contains("last error: ") && plain.contains("no Quire repository"), "\(plain)")
        #expect(plain.range(of: #"last sync:  \d{4}-\d\d-\d\d \d\d:\d\d \((just now|\d+ (minute|hour|day)s? ago)\)\n"#, options: .regularExpression) != nil, "\(plain)")
        let json = try JSONValue.parse(try QuireBinary.run(["status", "--json"], store: a).stdout).object
        #expect(json?["failure"]?.string == status?["failure"]?.string && json?["last_sync"]?.string?.hasSuffix("Z") == true)
        // A sync that works again clears it.
        try FileManager.default.moveItem(atPath: dir.path + "/gone", toPath: dir.path + "/repo")
        #expect(try QuireBinary.run(["sync"], store: a, environment: ["QUIRE_KDF_COST": "1,8192"]).status == 0)
        let cleared = try JSONValue.parse(try QuireBinary.run(["service", "status", "--json"], store: a).stdout).object
        #expect(cleared?["failure"]?.string == "")
        #expect(try !QuireBinary.run(["status"], store: a).stdout.contains("last error"))
    }

    /// How long ago, as `status` says it; a time ahead of this clock is never "ago".
    @Test func agesReadAsPeopleSayThem() {
        #expect(Format.age(0) == "just now" && Format.age(59) == "just now" && Format.age(-30) == "just now")
        #expect(Format.age(60) == "1 minute ago" && Format.age(8 * 60 + 5) == "8 minutes ago")
        #expect(Format.age(3600) == "1 hour ago" && Format.age(47 * 3600) == "47 hours ago" && Format.age(49 * 3600) == "2 days ago")
        #expect(Format.age(-3600) == "ahead of this machine's clock")
        let now = Date(timeIntervalSince1970: 1_765_000_000)
        #expect(Format.happened("not a time", now: now) == "not a time")
        #expect(Format.happened(Timestamp(microseconds: 1_765_000_000_000_000 - 600_000_000, offsetSeconds: 0).text, now: now).hasSuffix(" (10 minutes ago)"))
    }
}
