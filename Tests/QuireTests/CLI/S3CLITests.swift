import Foundation
import Testing
@testable import QuireRemote
@testable import QuireStore

/// `quire` with an S3 remote, as a person runs it against the SeaweedFS `./scripts/test`
/// starts: remote set with --endpoint and --path-style, init, sync on two machines, restore
/// from the s3:// URL, verify, prune and passwd; credentials from the environment, from
/// ~/.aws/credentials and from --credentials-file, never stored or shown.
@Suite(.enabled(if: !Backends.s3Servers.isEmpty || ProcessInfo.processInfo.environment["QUIRE_REQUIRE_TOOLS"] != nil))
struct S3CLITests {
    let dir = TempDir()

    /// The server's address as a person gives it: s3://BUCKET/PREFIX, and the options apart.
    func remote() throws -> (url: String, options: [String]) {
        let server = try #require(Backends.s3Servers.first, "scripts/test starts SeaweedFS: QUIRE_TEST_S3_URLS")
        let address = try S3Address(url: server.url)
        return ("s3://\(address.bucket)/cli-\(UUID().uuidString.prefix(8).lowercased())", ["--endpoint", address.endpoint, "--path-style"])
    }

    var keys: [String: String] {
        ["AWS_ACCESS_KEY_ID": Backends.s3Credentials.accessKey, "AWS_SECRET_ACCESS_KEY": Backends.s3Credentials.secretKey,
         "QUIRE_PASSPHRASE": "s3 passphrase", "QUIRE_KDF_COST": "1,8192", "HOME": dir.path + "/home"]
    }

    @Test func twoMachinesAndARestoreThroughABucket() throws {
        let (url, options) = try remote()
        let (a, b, c) = (dir.path + "/a", dir.path + "/b", dir.path + "/c")
        let entry = try QuireBinary.run(["add", "--title", "Ведро", "--body", "a bucket, not a folder"], store: a).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try QuireBinary.run(["attach", entry, dir.file("p.jpg", bytes: pseudoRandomBytes(300_000, seed: 4))], store: a).status == 0)
        let set = try QuireBinary.run(["remote", "set", url] + options, store: a)
        #expect(set.status == 0, "\(set.stderr)")
        let shown = try QuireBinary.run(["remote", "--json"], store: a).stdout
        #expect(shown.contains("s3://") && !shown.contains(Backends.s3Credentials.secretKey))
        #expect(try QuireBinary.run(["remote", "init"], store: a, environment: keys).status == 0)
        let first = try QuireBinary.run(["sync", "--json"], store: a, environment: keys)
        #expect(first.status == 0, "\(first.stderr)")
        // A second machine with its credentials in ~/.aws/credentials (a profile of its own).
        try FileManager.default.createDirectory(atPath: dir.path + "/home/.aws", withIntermediateDirectories: true)
        _ = dir.file("home/.aws/credentials", "[default]\naws_access_key_id = wrong\naws_secret_access_key = wrong\n\n[journal]\n"
                     + "aws_access_key_id = \(Backends.s3Credentials.accessKey)\naws_secret_access_key = \(Backends.s3Credentials.secretKey)\n")
        var profiled = keys
        profiled["AWS_ACCESS_KEY_ID"] = nil
        profiled["AWS_SECRET_ACCESS_KEY"] = nil
        profiled["AWS_PROFILE"] = "journal"
        #expect(try QuireBinary.run(["remote", "set", url] + options, store: b).status == 0)
        let pulled = try QuireBinary.run(["sync"], store: b, environment: profiled)
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(try QuireBinary.run(["edit", String(entry.prefix(8)), "--body", "edited on b"], store: b).status == 0)
        #expect(try QuireBinary.run(["sync"], store: b, environment: profiled).status == 0)
        #expect(try QuireBinary.run(["sync"], store: a, environment: keys).status == 0)
        #expect(try QuireBinary.run(["show", String(entry.prefix(8)), "--json"], store: a).stdout.contains("edited on b"))
        // A third restores from the s3:// URL with the options, its key in a file of its own.
        let file = dir.file("creds", "[default]\naws_access_key_id = \(Backends.s3Credentials.accessKey)\naws_secret_access_key = \(Backends.s3Credentials.secretKey)\n")
        var bare = keys
        bare["AWS_ACCESS_KEY_ID"] = nil
        bare["AWS_SECRET_ACCESS_KEY"] = nil
        let restore = try QuireBinary.run(["restore", url, "--credentials-file", file] + options, store: c, environment: bare)
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(try QuireBinary.run(["verify", "--read-data"], store: c, environment: bare).status == 0)
        let pruned = try QuireBinary.run(["prune", "--json"], store: a, environment: keys)
        #expect(pruned.status == 0 && pruned.stdout.contains("\"old_versions_kept\": false"), "\(pruned.stdout)")
        let passwd = try QuireBinary.run(["passwd"], store: a, environment: keys.merging(["QUIRE_NEW_PASSPHRASE": "another s3 passphrase"]) { $1 })
        #expect(passwd.status == 0, "\(passwd.stderr)")
        let d = dir.path + "/d"
        let again = try QuireBinary.run(["restore", url] + options, store: d, environment: keys.merging(["QUIRE_PASSPHRASE": "another s3 passphrase"]) { $1 })
        #expect(again.status == 0, "\(again.stderr)")
        // Nothing of the secret in the store.
        for store in [a, b, c, d] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: store + "/journal.sqlite"))
            #expect(bytes.range(of: Data(Backends.s3Credentials.secretKey.utf8)) == nil)
        }
    }

    /// A bucket no one made yet is made by `remote init`, as restic's init makes it, and
    /// said; a sync or a restore that finds none has a wrong address, says so, and makes
    /// nothing.
    @Test func remoteInitMakesABucketThatIsNotThereAndNothingElseDoes() throws {
        let server = try #require(Backends.s3Servers.first, "scripts/test starts SeaweedFS: QUIRE_TEST_S3_URLS")
        let endpoint = try S3Address(url: server.url).endpoint
        let options = ["--endpoint", endpoint, "--path-style"]
        func exists(_ bucket: String) throws -> Bool {
            let address = try S3Address(bucket: bucket, prefix: "", endpoint: endpoint, region: nil, pathStyle: true)
            return try S3Backend(address: address, credentials: Backends.s3Credentials, settings: Backends.settings).bucketExists()
        }
        let (fresh, wrong) = ("quire-new-" + UUID().uuidString.prefix(8).lowercased(), "quire-none-" + UUID().uuidString.prefix(8).lowercased())
        let (a, b, c, d) = (dir.path + "/a", dir.path + "/b", dir.path + "/c", dir.path + "/d")
        #expect(try QuireBinary.run(["remote", "set", "s3://\(wrong)/journal"] + options, store: b).status == 0)
        let sync = try QuireBinary.run(["sync"], store: b, environment: keys)
        #expect(sync.status != 0 && sync.stderr.contains("does not exist") && !sync.stderr.contains("TLS"), "\(sync.stderr)")
        let restore = try QuireBinary.run(["restore", "s3://\(wrong)/journal"] + options, store: c, environment: keys)
        #expect(restore.status != 0 && restore.stderr.contains("does not exist"), "\(restore.stderr)")
        #expect(try exists(wrong) == false)

        #expect(try exists(fresh) == false)
        let entry = try QuireBinary.run(["add", "--title", "Новое ведро", "--body", "made by init"], store: a).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try QuireBinary.run(["remote", "set", "s3://\(fresh)/journal"] + options, store: a).status == 0)
        let made = try QuireBinary.run(["remote", "init"], store: a, environment: keys)
        #expect(made.status == 0 && made.stderr.contains("Made the bucket \(fresh) (region us-east-1)."), "\(made.stderr)")
        #expect(try exists(fresh))
        #expect(try QuireBinary.run(["sync"], store: a, environment: keys).status == 0)
        let back = try QuireBinary.run(["restore", "s3://\(fresh)/journal"] + options, store: c, environment: keys)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try QuireBinary.run(["show", String(entry.prefix(8)), "--json"], store: c).stdout.contains("made by init"))
        // A second repository in the same bucket, under another prefix: nothing to make.
        #expect(try QuireBinary.run(["remote", "set", "s3://\(fresh)/other"] + options, store: d).status == 0)
        let second = try QuireBinary.run(["remote", "init"], store: d, environment: keys)
        #expect(second.status == 0 && !second.stderr.contains("Made the bucket"), "\(second.stderr)")
    }

    /// `--profile NAME` is remembered with the remote: its keys sign every run, over the
    /// shell's AWS_PROFILE and over keys in the environment (as aws-cli's --profile), and its
    /// settings in ~/.aws/config say where S3 is; a restore takes it too.
    @Test func aProfileOfTheRemotesOwnWinsOverTheShell() throws {
        let (url, options) = try remote()
        let endpoint = options[1]
        let (a, b, c) = (dir.path + "/a", dir.path + "/b", dir.path + "/c")
        _ = dir.file("home/.aws/credentials", "[default]\naws_access_key_id = wrong\naws_secret_access_key = wrong\n\n[journal]\n"
                     + "aws_access_key_id = \(Backends.s3Credentials.accessKey)\naws_secret_access_key = \(Backends.s3Credentials.secretKey)\n")
        let config = dir.file("home/.aws/config", "[profile journal]\nendpoint_url = \(endpoint)\n")
        var shell = keys
        shell["AWS_ACCESS_KEY_ID"] = "shell-key"
        shell["AWS_SECRET_ACCESS_KEY"] = "shell-secret"
        shell["AWS_PROFILE"] = "default"
        shell["AWS_CONFIG_FILE"] = config
        let entry = try QuireBinary.run(["add", "--title", "Профиль", "--body", "keys of its own"], store: a).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try QuireBinary.run(["remote", "set", url, "--profile", "journal"], store: a, environment: shell).status == 0)
        let shown = try QuireBinary.run(["remote", "--json"], store: a).stdout
        #expect(shown.contains("\"profile\": \"journal\"") && shown.contains("profile=journal") && shown.contains("\"path_style\": true"), "\(shown)")
        #expect(shown.contains(URL(string: endpoint)?.host ?? "?"), "the endpoint came from the profile's settings")
        let made = try QuireBinary.run(["remote", "init"], store: a, environment: shell)
        #expect(made.status == 0, "\(made.stderr)")
        let synced = try QuireBinary.run(["sync"], store: a, environment: shell)
        #expect(synced.status == 0, "\(synced.stderr)")
        let restored = try QuireBinary.run(["restore", url, "--profile", "journal"], store: c, environment: shell)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try QuireBinary.run(["show", String(entry.prefix(8)), "--json"], store: c).stdout.contains("keys of its own"))
        // The same remote without the profile signs with the shell's keys, which the server refuses.
        #expect(try QuireBinary.run(["remote", "set", url] + options, store: b).status == 0)
        let refused = try QuireBinary.run(["sync"], store: b, environment: shell)
        #expect(refused.status == 1 && refused.stderr.contains("credentials") && !refused.stderr.contains("shell-secret"), "\(refused.stderr)")
        let odd = try QuireBinary.run(["remote", "set", url, "--profile", "two words"], store: b)
        #expect(odd.status == 2 && odd.stderr.contains("'two words' is not a profile name"), "\(odd.stderr)")
    }

    @Test func wrongCredentialsAndWebDAVOptionsAreOneLine() throws {
        let (url, options) = try remote()
        let a = dir.path + "/a"
        #expect(try QuireBinary.run(["remote", "set", url] + options, store: a).status == 0)
        var wrong = keys
        wrong["AWS_SECRET_ACCESS_KEY"] = "wrong-secret"
        let refused = try QuireBinary.run(["remote", "init"], store: a, environment: wrong)
        #expect(refused.status == 1 && refused.stderr.contains("credentials") && !refused.stderr.contains("wrong-secret"), "\(refused.stderr)")
        let mixed = try QuireBinary.run(["remote", "set", url, "--user", "me"] + options, store: a)
        #expect(mixed.status == 2 && mixed.stderr.contains("--user is for WebDAV"))
        let stray = try QuireBinary.run(["remote", "set", "https://example.org/dav/", "--endpoint", "https://x"], store: a)
        #expect(stray.status == 2 && stray.stderr.contains("--endpoint goes with an s3:// remote"))
        let far = try QuireBinary.run(["remote", "set", "s3://bucket/p", "--endpoint", "http://example.org:9000"], store: a)
        #expect(far.status == 2 && far.stderr.contains("https://"))
    }

    /// A remote given no --region or --endpoint takes them where aws-cli does: AWS_REGION or
    /// AWS_DEFAULT_REGION, AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, else the profile's settings
    /// in ~/.aws/config. The URL keeps them, so a later run without those variables (the
    /// service) goes to the same place; what the command line says wins; a wrong value names
    /// where it was read and sets nothing.
    @Test func theAWSToolsSharedSettingsSayWhereS3Is() throws {
        let config = dir.file("aws-config", """
            [default]
            region = eu-west-3
            [profile r2]
            region = auto
            endpoint_url = https://everything.example.org
            dynamodb =
              endpoint_url = http://localhost:8000
            s3 =
              endpoint_url = https://account.r2.cloudflarestorage.com
              addressing_style = path
            [profile plain]
            endpoint_url = https://s3.example.net
            [profile private]
            endpoint_url = https://s3.home.example
            ca_bundle = ~/ca.pem
            """)
        func shown(_ store: String) throws -> [String: Any] {
            let run = try QuireBinary.run(["remote", "--json"], store: store)
            return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
        }
        let a = dir.path + "/a", b = dir.path + "/b", c = dir.path + "/c", d = dir.path + "/d", e = dir.path + "/e"
        #expect(try QuireBinary.run(["remote", "set", "s3://journal/anna"], store: a, environment: ["AWS_CONFIG_FILE": config]).status == 0)
        #expect(try shown(a)["url"] as? String == "s3://journal/anna?region=eu-west-3")
        #expect(try shown(a)["endpoint"] as? String == "https://s3.eu-west-3.amazonaws.com" && shown(a)["path_style"] as? Bool == false)
        #expect(try QuireBinary.run(["remote", "set", "s3://journal/anna"], store: b, environment: ["AWS_CONFIG_FILE": config, "AWS_PROFILE": "r2"]).status == 0)
        #expect(try shown(b)["endpoint"] as? String == "https://account.r2.cloudflarestorage.com")
        #expect(try shown(b)["region"] as? String == "auto" && shown(b)["path_style"] as? Bool == true)
        // A profile's endpoint_url is every service's; another service's block is not S3's.
        #expect(try QuireBinary.run(["remote", "set", "s3://journal/anna"], store: d, environment: ["AWS_CONFIG_FILE": config, "AWS_PROFILE": "plain"]).status == 0)
        // Any service but AWS and those like it gets the bucket in the path without asking
        // (minio-go's rule, under restic), and an explicit `addressing_style = virtual` is kept.
        #expect(try shown(d)["endpoint"] as? String == "https://s3.example.net" && shown(d)["path_style"] as? Bool == true)
        #expect(try shown(d)["url"] as? String == "s3://journal/anna?endpoint=https%3A%2F%2Fs3.example.net")
        let virtual = dir.file("aws-virtual", "[default]\nendpoint_url = https://s3.example.net\ns3 =\n  addressing_style = virtual\n")
        #expect(try QuireBinary.run(["remote", "set", "s3://journal/anna"], store: d, environment: ["AWS_CONFIG_FILE": virtual]).status == 0)
        #expect(try shown(d)["path_style"] as? Bool == false && (shown(d)["url"] as? String)?.hasSuffix("&path-style=0") == true)
        // The variables beat the file, and the command line beats both.
        let variables = ["AWS_CONFIG_FILE": config, "AWS_DEFAULT_REGION": "ca-central-1", "AWS_ENDPOINT_URL": "https://s3.example.org"]
        #expect(try QuireBinary.run(["remote", "set", "s3://journal/anna"], store: c, environment: variables).status == 0)
        #expect(try shown(c)["region"] as? String == "ca-central-1" && shown(c)["endpoint"] as? String == "https://s3.example.org")
        #expect(try QuireBinary.run(["remote", "set", "s3://journal/anna", "--region", "eu-north-1", "--endpoint", "https://s3.other.org"],
                                    store: c, environment: variables).status == 0)
        #expect(try shown(c)["region"] as? String == "eu-north-1" && shown(c)["endpoint"] as? String == "https://s3.other.org")
        // A URL that says it already is not changed by them (a restore of a URL copied from `remote`).
        #expect(try QuireBinary.run(["remote", "set", "s3://journal/anna?region=sa-east-1"], store: c, environment: variables).status == 0)
        #expect(try shown(c)["region"] as? String == "sa-east-1" && shown(c)["endpoint"] as? String == "https://s3.example.org")
        // A wrong value names where it was read, and sets nothing.
        let wrong = try QuireBinary.run(["remote", "set", "s3://journal/anna"], store: e, environment: ["AWS_REGION": "EU West"])
        #expect(wrong.status == 2 && wrong.stderr.contains("'EU West' is not a region name (read from AWS_REGION)"), "\(wrong.stderr)")
        let endpoint = try QuireBinary.run(["remote", "set", "s3://journal/anna"], store: e, environment: ["AWS_ENDPOINT_URL_S3": "ftp://files"])
        #expect(endpoint.status == 2 && endpoint.stderr.contains("(read from AWS_ENDPOINT_URL_S3)"), "\(endpoint.stderr)")
        #expect(!FileManager.default.fileExists(atPath: e), "nothing was set: no store was made")
        // The CA bundle the AWS tools trust becomes the remote's CA file: the profile's
        // ca_bundle (~/ expanded), else AWS_CA_BUNDLE first; --ca-file beats both.
        let pem = dir.file("home/ca.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
        let other = dir.file("other.pem", "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n")
        let f = dir.path + "/f"
        let privately = ["AWS_CONFIG_FILE": config, "AWS_PROFILE": "private", "HOME": dir.path + "/home"]
        #expect(try QuireBinary.run(["remote", "set", "s3://journal/anna"], store: f, environment: privately).status == 0)
        #expect(try shown(f)["ca_file"] as? String == pem && shown(f)["endpoint"] as? String == "https://s3.home.example")
        #expect(try QuireBinary.run(["remote", "set", "s3://journal/anna"], store: f, environment: privately.merging(["AWS_CA_BUNDLE": other]) { $1 }).status == 0)
        #expect(try shown(f)["ca_file"] as? String == other)
        #expect(try QuireBinary.run(["remote", "set", "s3://journal/anna", "--ca-file", pem], store: f,
                                    environment: privately.merging(["AWS_CA_BUNDLE": other]) { $1 }).status == 0)
        #expect(try shown(f)["ca_file"] as? String == pem)
        let missing = try QuireBinary.run(["remote", "set", "s3://journal/anna"], store: e, environment: ["AWS_CA_BUNDLE": dir.path + "/none.pem"])
        #expect(missing.status == 2 && missing.stderr.contains("cannot read the CA file") && missing.stderr.contains("(read from AWS_CA_BUNDLE)"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: e))
        // Plain HTTP on this machine has no certificate: no bundle is taken for it.
        let g = dir.path + "/g"
        #expect(try QuireBinary.run(["remote", "set", "s3://journal/anna", "--endpoint", "http://127.0.0.1:9000"], store: g,
                                    environment: ["AWS_CA_BUNDLE": other]).status == 0)
        #expect(try shown(g)["ca_file"] as? String == "")
    }

    /// A profile whose keys aws-cli fetches (SSO, a role, a web identity) has none Quire
    /// can read: the one line says how to hand them over for a run, whether or not a
    /// credentials file exists.
    @Test func aProfileWhoseKeysAWSCLIFetchesSaysHowToExportThem() throws {
        let config = dir.file("aws-config", """
            [profile work]
            sso_session = corp
            sso_account_id = 111122223333
            region = eu-west-1
            """)
        let a = dir.path + "/a"
        #expect(try QuireBinary.run(["remote", "set", "s3://journal/anna", "--endpoint", "http://127.0.0.1:9"], store: a).status == 0)
        let env = ["AWS_CONFIG_FILE": config, "AWS_PROFILE": "work", "HOME": dir.path + "/home", "QUIRE_PASSPHRASE": "pw", "QUIRE_KDF_COST": "1,8192"]
        for withFile in [false, true] {
            if withFile { _ = dir.file("home/.aws/credentials", "[default]\naws_access_key_id = AKIA\naws_secret_access_key = s\n") }
            let run = try QuireBinary.run(["remote", "init"], store: a, environment: env)
            #expect(run.status == 1 && run.stderr.contains("profile 'work' gets its keys from SSO, which Quire does not ask"), "\(run.stderr)")
            #expect(run.stderr.contains("eval \"$(aws configure export-credentials --profile work --format env)\""), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        }
        // A name the shell would split is quoted in the line to paste; a role is said as one.
        _ = dir.file("aws-config", "[profile it's mine]\nrole_arn = arn:aws:iam::111122223333:role/journal\nsource_profile = default\n")
        let quoted = try QuireBinary.run(["remote", "init"], store: a, environment: env.merging(["AWS_PROFILE": "it's mine"]) { $1 })
        #expect(quoted.stderr.contains("gets its keys from a role") && quoted.stderr.contains("--profile 'it'\\''s mine' --format env"), "\(quoted.stderr)")
    }

    /// A bucket kept in another region than the remote says: `remote init` follows the
    /// region the service names, remembers it for the store (the next run's first request
    /// is signed for it), and forgets it for a new address. Errors come in one line, with
    /// S3's advice, not WebDAV's.
    @Test func aBucketInAnotherRegionIsFollowedAndRemembered() throws {
        let stub = try StubServer { request in
            if request.path.hasPrefix("/odd/") { return .init(status: 400, body: Data("<html>no</html>".utf8)) }
            guard request.headers["authorization"]?.contains("/eu-central-1/s3/aws4_request") == true else {
                return .init(status: 400, body: Data("<Error><Code>AuthorizationHeaderMalformed</Code><Message>the region 'us-east-1' is wrong; expecting 'eu-central-1'</Message><Region>eu-central-1</Region></Error>".utf8))
            }
            return .init(status: 403, body: Data("<Error><Code>AccessDenied</Code><Message>no</Message></Error>".utf8))
        }
        let a = dir.path + "/a"
        let options = ["--endpoint", "http://127.0.0.1:\(stub.port)", "--path-style"]
        var keys = keys
        keys["AWS_ACCESS_KEY_ID"] = "stub-key"
        keys["AWS_SECRET_ACCESS_KEY"] = "stub-secret"
        #expect(try QuireBinary.run(["remote", "set", "s3://elsewhere/journal"] + options, store: a).status == 0)
        let refused = try QuireBinary.run(["remote", "init"], store: a, environment: keys)
        #expect(refused.status == 1 && refused.stderr.contains("AccessDenied"), "\(refused.stderr)")
        #expect(refused.stderr.contains("hint: these credentials may not do that in this bucket") && !refused.stderr.contains("WebDAV"))
        func learned() throws -> String? { try Store(folder: a).remoteSettings()?.learnedRegion }
        #expect(try learned() == "eu-central-1")
        // `remote` says where the requests go: the region learned, beside the one given.
        let shown = try QuireBinary.run(["remote"], store: a).stdout
        #expect(shown.contains("endpoint:   http://127.0.0.1:\(stub.port) (path-style)"), "\(shown)")
        #expect(shown.contains("region:     eu-central-1 (where the service said the bucket is; the URL says us-east-1)"), "\(shown)")
        let json = try QuireBinary.run(["remote", "--json"], store: a).stdout
        #expect(json.contains("\"region\": \"eu-central-1\"") && json.contains("\"path_style\": true"), "\(json)")
        let before = stub.requests.count
        #expect(try QuireBinary.run(["sync"], store: a, environment: keys).status == 1)
        let next = try #require(stub.requests.dropFirst(before).first)
        #expect(next.headers["authorization"]?.contains("/eu-central-1/s3/aws4_request") == true, "the next run starts in the region learned")
        #expect(try QuireBinary.run(["remote", "set", "s3://elsewhere/other"] + options, store: a).status == 0)
        #expect(try learned() == nil, "what one address taught says nothing of another")
        #expect(try QuireBinary.run(["remote"], store: a).stdout.contains("region:     us-east-1\n"))
        #expect(try QuireBinary.run(["remote", "set", "s3://odd/journal"] + options, store: a).status == 0)
        let odd = try QuireBinary.run(["remote", "init"], store: a, environment: keys)
        #expect(odd.status == 1 && odd.stderr.contains("not what S3 promises") && !odd.stderr.contains("WebDAV"), "\(odd.stderr)")
        // No credentials anywhere: the line says where they go, and nothing after it names WebDAV.
        keys["AWS_ACCESS_KEY_ID"] = nil
        let bare = try QuireBinary.run(["remote", "init"], store: a, environment: keys)
        #expect(bare.status == 1 && bare.stderr.contains("no S3 credentials") && bare.stderr.split(separator: "\n").count == 1, "\(bare.stderr)")
    }

    /// A bucket that keeps old versions (Backblaze B2's always do) works the same, and Quire
    /// says what stays there: `remote init` and `remote check` say it, prune reports it, and
    /// `passwd` deletes every old version of the key files, so that an old passphrase opens
    /// nothing there any more.
    @Test func aBucketThatKeepsOldVersionsIsSaidAndPasswdLeavesNoOldKey() throws {
        let bucket = try Backends.s3Bucket(versioned: true)
        let url = "s3://\(bucket.bucket)/journal"
        let options = ["--endpoint", bucket.endpoint, "--path-style"]
        let (a, b, c) = (dir.path + "/a", dir.path + "/b", dir.path + "/c")
        let note = "the bucket keeps what is deleted as old versions"
        let entry = try QuireBinary.run(["add", "--body", "версии остаются"], store: a).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try QuireBinary.run(["attach", entry, dir.file("v.jpg", bytes: pseudoRandomBytes(200_000, seed: 9))], store: a).status == 0)
        #expect(try QuireBinary.run(["remote", "set", url] + options, store: a).status == 0)
        let made = try QuireBinary.run(["remote", "init"], store: a, environment: keys)
        #expect(made.status == 0 && made.stderr.contains("note: " + note), "\(made.stderr)")
        #expect(try QuireBinary.run(["sync"], store: a, environment: keys).status == 0)
        let checked = try QuireBinary.run(["remote", "check"], store: a, environment: keys)
        #expect(checked.status == 0 && checked.stdout.hasPrefix("ok: ") && checked.stderr.contains("note: " + note), "\(checked.stderr)")
        #expect(try QuireBinary.run(["rm", String(entry.prefix(8))], store: a).status == 0)
        let pruned = try QuireBinary.run(["prune", "--json"], store: a, environment: keys.merging(["QUIRE_GC_GRACE_SECONDS": "0"]) { $1 })
        #expect(pruned.status == 0 && pruned.stdout.contains("\"old_versions_kept\": true"), "\(pruned.stdout) \(pruned.stderr)")
        // Two passphrase changes: no version of a former key file is left, and only the
        // newest passphrase opens the repository.
        let backend = try S3Backend(address: try S3Address(url: url + "?endpoint=\(S3Address.encoded(bucket.endpoint))&path-style=1"),
                                    credentials: Backends.s3Credentials, settings: Backends.settings)
        #expect(try backend.versions(in: "keys").count == 1)
        for (old, new) in [("s3 passphrase", "second s3 passphrase"), ("second s3 passphrase", "third s3 passphrase")] {
            let changed = try QuireBinary.run(["passwd"], store: a, environment: keys.merging(["QUIRE_PASSPHRASE": old, "QUIRE_NEW_PASSPHRASE": new]) { $1 })
            #expect(changed.status == 0 && changed.stderr.contains("the old one no longer does"), "\(changed.stderr)")
        }
        let left = try backend.versions(in: "keys")
        #expect(left.count == 1 && left.allSatisfy { $0.isLatest && !$0.isDeleteMarker }, "\(left)")
        let refused = try QuireBinary.run(["restore", url] + options, store: b, environment: keys.merging(["QUIRE_PASSPHRASE": "second s3 passphrase"]) { $1 })
        #expect(refused.status == 1 && refused.stderr.contains("passphrase"), "\(refused.stderr)")
        let restored = try QuireBinary.run(["restore", url] + options, store: c, environment: keys.merging(["QUIRE_PASSPHRASE": "third s3 passphrase"]) { $1 })
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try QuireBinary.run(["verify", "--read-data"], store: c, environment: keys).status == 0)
        // What prune deleted is there still, as old versions: the note is true.
        #expect(try backend.versions(in: "").contains { !$0.isLatest && !$0.key.contains("/keys/") })
    }

    /// A profile whose keys a `credential_process` prints (aws-vault, 1Password's `op`,
    /// `pass`): Quire runs it as the SDKs do, once a command however many connections it
    /// makes, and keys in the credentials file win over it. A process that fails says so in
    /// one line, in its own words, and nothing is written.
    @Test func aCredentialProcessGivesTheKeysOnceACommand() throws {
        let (url, options) = try remote()
        let (a, c) = (dir.path + "/a", dir.path + "/c")
        let helper = dir.file("bin/print keys", "#!/bin/sh\necho run >> \"$0.runs\"\n"
                              + "printf '{\"Version\": 1, \"AccessKeyId\": \"%s\", \"SecretAccessKey\": \"%s\"}' \"$1\" \"$2\"\n")
        let failing = dir.file("bin/locked", "#!/bin/sh\necho 'vault is locked: unlock it first' >&2\nexit 2\n")
        for file in [helper, failing] { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file) }
        let config = dir.file("aws-config", """
            [profile journal]
            credential_process = "\(helper)" \(Backends.s3Credentials.accessKey) '\(Backends.s3Credentials.secretKey)'
            [profile locked]
            credential_process = \(failing)
            """)
        var env = keys
        env["AWS_ACCESS_KEY_ID"] = nil
        env["AWS_SECRET_ACCESS_KEY"] = nil
        env["AWS_CONFIG_FILE"] = config
        env["AWS_PROFILE"] = "journal"
        func runs() -> Int { ((try? String(contentsOfFile: helper + ".runs", encoding: .utf8)) ?? "").split(separator: "\n").count }
        let entry = try QuireBinary.run(["add", "--body", "ключи из хранилища"], store: a).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try QuireBinary.run(["attach", entry, dir.file("k.jpg", bytes: pseudoRandomBytes(300_000, seed: 11))], store: a).status == 0)
        #expect(try QuireBinary.run(["remote", "set", url] + options, store: a).status == 0)
        let made = try QuireBinary.run(["remote", "init"], store: a, environment: env)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try QuireBinary.run(["sync"], store: a, environment: env).status == 0)
        #expect(runs() == 2)
        let restored = try QuireBinary.run(["restore", url] + options, store: c, environment: env)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(runs() == 3, "a restore's many connections ran it once")
        #expect(try QuireBinary.run(["show", String(entry.prefix(8)), "--json"], store: c).stdout.contains("ключи из хранилища"))
        // The credentials file's keys come first: the process is not run.
        try FileManager.default.createDirectory(atPath: dir.path + "/home/.aws", withIntermediateDirectories: true)
        _ = dir.file("home/.aws/credentials", "[journal]\naws_access_key_id = \(Backends.s3Credentials.accessKey)\naws_secret_access_key = \(Backends.s3Credentials.secretKey)\n")
        #expect(try QuireBinary.run(["sync"], store: a, environment: env).status == 0)
        #expect(runs() == 3)
        // A process that fails: one line with its words, and nothing pushed.
        #expect(try QuireBinary.run(["edit", String(entry.prefix(8)), "--body", "not pushed"], store: a).status == 0)
        let locked = try QuireBinary.run(["sync"], store: a, environment: env.merging(["AWS_PROFILE": "locked"]) { $1 })
        #expect(locked.status == 1 && locked.stderr == "quire: error: the credential_process of profile 'locked' failed (exit 2): vault is locked: unlock it first\n",
                "\(locked.stderr)")
        #expect(try QuireBinary.run(["status"], store: a).stdout.contains("pending:    1"))
        #expect(!locked.stderr.contains(Backends.s3Credentials.secretKey) && !restored.stderr.contains(Backends.s3Credentials.secretKey))
    }

    /// `service install` checks the service can sync as it will. The unit keeps where the
    /// keys are (AWS_PROFILE and the AWS files' paths, as this shell says), never the keys:
    /// keys only in this shell's variables are refused with the way out.
    @Test func theServiceKeepsTheShellsAWSProfileButNoKeys() throws {
        let (url, options) = try remote()
        let a = dir.path + "/a"
        try FileManager.default.createDirectory(atPath: dir.path + "/home/.aws", withIntermediateDirectories: true)
        var env = keys.merging(try ServiceTests().fakeSystemctl(dir, session: true)) { $1 }
        #expect(try QuireBinary.run(["add", "--body", "for the service"], store: a).status == 0)
        #expect(try QuireBinary.run(["remote", "set", url] + options, store: a).status == 0)
        #expect(try QuireBinary.run(["remote", "init"], store: a, environment: env).status == 0)
        #expect(try QuireBinary.run(["sync"], store: a, environment: env).status == 0)
        // Keys in this shell's variables alone: the service would have none.
        let refused = try QuireBinary.run(["service", "install"], store: a, environment: env)
        #expect(refused.status == 1 && refused.stderr.contains("the service could not sync") && refused.stderr.contains("the unit keeps AWS_PROFILE"),
                "\(refused.stderr)")
        // A profile of ~/.aws/credentials named by AWS_PROFILE: the unit says it, and holds no key.
        _ = dir.file("home/.aws/credentials", "[journal]\naws_access_key_id = \(Backends.s3Credentials.accessKey)\n"
                     + "aws_secret_access_key = \(Backends.s3Credentials.secretKey)\n")
        env["AWS_ACCESS_KEY_ID"] = nil
        env["AWS_SECRET_ACCESS_KEY"] = nil
        env["AWS_PROFILE"] = "journal"
        let installed = try QuireBinary.run(["service", "install"], store: a, environment: env)
        #expect(installed.status == 0, "\(installed.stderr)")
        let unitFolder = dir.path + "/config/systemd/user"
        let unit = try #require(try FileManager.default.contentsOfDirectory(atPath: unitFolder).first.map { dir.read("config/systemd/user/" + $0) })
        #expect(unit.contains("Environment=\"AWS_PROFILE=journal\"\n") && !unit.contains(Backends.s3Credentials.secretKey), "\(unit)")
        #expect(try QuireBinary.run(["service", "uninstall"], store: a, environment: env).status == 0)
        // A credential_process in the default profile of ~/.aws/config: the service can run it.
        let helper = dir.file("bin/keys", "#!/bin/sh\nprintf '{\"Version\": 1, \"AccessKeyId\": \"\(Backends.s3Credentials.accessKey)\", "
                              + "\"SecretAccessKey\": \"\(Backends.s3Credentials.secretKey)\"}'\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: helper)
        _ = dir.file("home/.aws/config", "[default]\ncredential_process = \(helper)\n")
        env["AWS_PROFILE"] = nil
        env["AWS_CONFIG_FILE"] = dir.path + "/home/.aws/config"
        try FileManager.default.removeItem(atPath: dir.path + "/home/.aws/credentials")
        let processed = try QuireBinary.run(["service", "install"], store: a, environment: env)
        #expect(processed.status == 0, "\(processed.stderr)")
    }
}
