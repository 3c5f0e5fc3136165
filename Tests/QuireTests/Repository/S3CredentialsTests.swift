import Foundation
import Testing
@testable import QuireRemote

/// Where S3 keys come from, without a server: the AWS SDKs' order, a `credential_process` run
/// as they run it, and keys looked up again before they expire.
struct S3CredentialsTests {
    let dir = TempDir()

    @Test func aCommandIsSplitAsAShellWould() {
        #expect(CredentialProcess.split("aws-vault export --format=json work") == ["aws-vault", "export", "--format=json", "work"])
        #expect(CredentialProcess.split("  \"/opt/my tools/keys\"  'a b'c  d\\ e ") == ["/opt/my tools/keys", "a bc", "d e"])
        #expect(CredentialProcess.split(#""say \"hi\" \\ \$HOME \n""#) == [#"say "hi" \ $HOME \n"#])
        #expect(CredentialProcess.split("op read 'op://vault/s3/secret") == nil)
        #expect(CredentialProcess.split("\"half") == nil)
        #expect(CredentialProcess.split("   ") == nil)
        #expect(CredentialProcess.split("''") == [""])
    }

    @Test func onlyTheJSONTheSDKsReadGivesKeys() throws {
        let full = try #require(CredentialProcess.read(Data(#"{"Version": 1, "AccessKeyId": "AK", "SecretAccessKey": "SK", "SessionToken": "T", "Expiration": "2030-01-02T03:04:05.678Z"}"#.utf8)))
        #expect(full.accessKey == "AK" && full.secretKey == "SK" && full.sessionToken == "T" && full.fromProcess)
        #expect(full.expiration == ISO8601DateFormatter().date(from: "2030-01-02T03:04:05Z").map { $0.addingTimeInterval(0.678) })
        let plain = try #require(CredentialProcess.read(Data(#"{"Version": 1, "AccessKeyId": "AK", "SecretAccessKey": "SK", "SessionToken": "", "Expiration": "2030-01-02T03:04:05+01:00"}"#.utf8)))
        #expect(plain.sessionToken == nil && plain.expiration == ISO8601DateFormatter().date(from: "2030-01-02T02:04:05Z"))
        for bad in [#"{"Version": 2, "AccessKeyId": "AK", "SecretAccessKey": "SK"}"#, #"{"AccessKeyId": "AK", "SecretAccessKey": "SK"}"#,
                    #"{"Version": 1, "AccessKeyId": "AK"}"#, #"{"Version": 1, "AccessKeyId": "", "SecretAccessKey": "SK"}"#,
                    #"{"Version": 1, "AccessKeyId": "AK", "SecretAccessKey": "SK", "Expiration": "tomorrow"}"#, "AK SK", ""] {
            #expect(CredentialProcess.read(Data(bad.utf8)) == nil, "\(bad)")
        }
    }

    /// env beats the files, the credentials file beats a process, a process (in either file)
    /// beats keys in the config file; `--credentials-file` alone when given, its process too.
    @Test func keysAreFoundInTheSDKsOrder() throws {
        let helper = dir.file("keys.sh", "#!/bin/sh\nprintf '{\"Version\": 1, \"AccessKeyId\": \"%s\", \"SecretAccessKey\": \"s\"}' \"$1\"\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: helper)
        let config = dir.file("config", "[profile p]\ncredential_process = \(helper) from-config\naws_access_key_id = config-key\naws_secret_access_key = s\n"
                              + "[profile q]\naws_access_key_id = config-only\naws_secret_access_key = s\n")
        let credentials = dir.file("credentials", "[p]\naws_access_key_id = file-key\naws_secret_access_key = s\n[r]\ncredential_process = \(helper) from-credentials\n")
        var env = ["AWS_CONFIG_FILE": config, "AWS_SHARED_CREDENTIALS_FILE": credentials, "AWS_PROFILE": "p", "PATH": "/usr/bin:/bin"]
        func key(_ file: String? = nil) throws -> String { try S3Credentials.find(file: file, environment: env).accessKey }
        #expect(try key() == "file-key")
        env["AWS_SHARED_CREDENTIALS_FILE"] = dir.path + "/none"
        #expect(try key() == "from-config")
        env["AWS_PROFILE"] = "q"
        #expect(try key() == "config-only")
        env["AWS_SHARED_CREDENTIALS_FILE"] = credentials
        env["AWS_PROFILE"] = "r"
        #expect(try key() == "from-credentials")
        #expect(try key(credentials) == "from-credentials")
        env["AWS_ACCESS_KEY_ID"] = "env-key"
        env["AWS_SECRET_ACCESS_KEY"] = "s"
        #expect(try key() == "env-key")
        #expect(try key(credentials) == "from-credentials", "--credentials-file beats the environment")
        // A program not on PATH, given by name.
        let missing = dir.file("config2", "[default]\ncredential_process = no-such-program --x\n")
        #expect {
            _ = try S3Credentials.find(file: nil, environment: ["AWS_CONFIG_FILE": missing, "AWS_SHARED_CREDENTIALS_FILE": dir.path + "/none", "PATH": "/usr/bin"])
        } throws: { "\($0)".contains("no-such-program, which is not a program on PATH") }
    }

    /// Keys that expire are looked up again before they do; others after a minute, unless a
    /// process printed them (it may ask the person: never again, as the SDKs do).
    @Test func keysAreLookedUpAgainBeforeTheyExpire() throws {
        let start = Date(timeIntervalSince1970: 2_000_000_000)
        let lookups = Locked(0)
        func source(lifetime: TimeInterval?, fromProcess: Bool) -> S3KeySource {
            S3KeySource {
                let n = lookups.update { $0 += 1; return $0 }
                var keys = S3Credentials(accessKey: "k\(n)", secretKey: "s", expiration: lifetime.map { start.addingTimeInterval($0) })
                keys.fromProcess = fromProcess
                return keys
            }
        }
        let hour = source(lifetime: 3600, fromProcess: true)
        #expect(try hour.current(at: start).accessKey == "k1")
        #expect(try hour.current(at: start.addingTimeInterval(3000)).accessKey == "k1")
        #expect(try hour.current(at: start.addingTimeInterval(3301)).accessKey == "k2", "less than five minutes left")
        lookups.update { $0 = 0 }
        let short = source(lifetime: 240, fromProcess: true)
        #expect(try short.current(at: start).accessKey == "k1")
        #expect(try short.current(at: start.addingTimeInterval(110)).accessKey == "k1")
        #expect(try short.current(at: start.addingTimeInterval(130)).accessKey == "k2", "less than half its life left")
        lookups.update { $0 = 0 }
        let printed = source(lifetime: nil, fromProcess: true)
        #expect(try printed.current(at: start).accessKey == "k1")
        #expect(try printed.current(at: start.addingTimeInterval(1_000_000)).accessKey == "k1")
        lookups.update { $0 = 0 }
        let file = source(lifetime: nil, fromProcess: false)
        #expect(try file.current(at: start).accessKey == "k1")
        #expect(try file.current(at: start.addingTimeInterval(59)).accessKey == "k1")
        #expect(try file.current(at: start.addingTimeInterval(61)).accessKey == "k2")
    }
}
