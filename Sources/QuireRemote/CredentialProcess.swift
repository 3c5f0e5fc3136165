import Foundation
import QuireSupport

/// A profile's `credential_process`, run as the AWS SDKs run it: the command split into words
/// as a POSIX shell would (quotes and backslashes; no variables, no `~`), the program looked
/// up on `PATH`, started without a shell, with nothing on standard input. It prints JSON:
/// `{"Version": 1, "AccessKeyId": …, "SecretAccessKey": …, "SessionToken": …,
/// "Expiration": "2026-12-07T10:00:00Z"}`. So keys can live in a password manager or the
/// desktop's keyring (aws-vault, 1Password's `op`, `pass`, `secret-tool`) rather than in a
/// file in clear. One that runs past two minutes is stopped (a service must not hang on a
/// prompt nobody sees). What it prints never goes into a message: an error names the
/// profile, the exit status and its own first line of standard error.
enum CredentialProcess {
    /// Seconds it may take: time to touch a security key, not a service stuck for ever.
    static let timeout = 120.0

    static func run(_ command: String, profile: String, environment: [String: String]) throws -> S3Credentials {
        let named = "the credential_process of profile '\(profile)'"
        guard let words = split(command), let program = words.first else {
            throw RemoteError(.unauthorized, detail: "\(named) is not a command Quire can split into words (an unclosed quote?)", advises: true)
        }
        let executable = program.contains("/") ? (access(program, X_OK) == 0 ? program : nil) : Executables.find(program, in: environment)
        guard let executable else {
            throw RemoteError(.unauthorized, detail: "\(named) names \(printable(program)), which is not a program on PATH: give its full path", advises: true)
        }
        let finished: ChildProcess.Finished
        do {
            finished = try ChildProcess.run(executable, Array(words.dropFirst()), environment: environment, timeout: timeout)
        } catch {
            throw RemoteError(.unauthorized, detail: "\(named) cannot start: \(printable("\(error)"))", advises: true)
        }
        guard !finished.timedOut else {
            throw RemoteError(.unauthorized, detail: "\(named) did not finish within \(Int(timeout)) seconds (waiting for an answer nobody can give here?)",
                              advises: true)
        }
        guard finished.status == 0 else {
            throw RemoteError(.unauthorized, detail: "\(named) failed (exit \(finished.status))" + (finished.firstError.map { ": " + printable($0) } ?? ": run it yourself to see why"), advises: true)
        }
        guard let keys = read(finished.output) else {
            throw RemoteError(.unauthorized, detail: "\(named) printed no keys Quire can read (JSON with \"Version\": 1, \"AccessKeyId\" and \"SecretAccessKey\")", advises: true)
        }
        if let expiration = keys.expiration, expiration <= Date() {
            throw RemoteError(.unauthorized, detail: "\(named) printed keys that expired at \(ISO8601DateFormatter().string(from: expiration)) (is this machine's clock right?)", advises: true)
        }
        return keys
    }

    /// The keys in the process's output; nil unless it is the JSON the SDKs read.
    static func read(_ output: Data) -> S3Credentials? {
        guard output.count < 1 << 20, let object = try? JSONSerialization.jsonObject(with: output) as? [String: Any],
              (object["Version"] as? NSNumber)?.intValue == 1,
              let key = object["AccessKeyId"] as? String, !key.isEmpty,
              let secret = object["SecretAccessKey"] as? String, !secret.isEmpty else { return nil }
        var expiration: Date?
        if let text = object["Expiration"] as? String {
            guard let date = date(text) else { return nil }
            expiration = date
        }
        let token = (object["SessionToken"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        var keys = S3Credentials(accessKey: key, secretKey: secret, sessionToken: token, expiration: expiration)
        keys.fromProcess = true
        return keys
    }

    /// An ISO 8601 time, with or without fractions of a second.
    private static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// `command` as a POSIX shell splits it into words: blanks separate, `'…'` keeps all,
    /// `"…"` keeps all but `\"`, `\\`, `\$` and `` \` ``, and a backslash outside quotes keeps
    /// the next character. Nil for an unclosed quote or nothing at all.
    static func split(_ command: String) -> [String]? {
        var words: [String] = [], word = "", inWord = false
        var characters = command.makeIterator()
        while let c = characters.next() {
            switch c {
            case " ", "\t", "\n":
                if inWord { words.append(word); word = ""; inWord = false }
            case "'":
                inWord = true
                while true {
                    guard let d = characters.next() else { return nil }
                    if d == "'" { break }
                    word.append(d)
                }
            case "\"":
                inWord = true
                while true {
                    guard let d = characters.next() else { return nil }
                    if d == "\"" { break }
                    if d == "\\" {
                        guard let e = characters.next() else { return nil }
                        if !"\"\\$`".contains(e) { word.append(d) }
                        word.append(e)
                    } else {
                        word.append(d)
                    }
                }
            case "\\":
                inWord = true
                if let d = characters.next(), d != "\n" { word.append(d) }
            default:
                inWord = true
                word.append(c)
            }
        }
        if inWord { words.append(word) }
        return words.isEmpty ? nil : words
    }

    /// Printable characters only, 200 at most: a program's words go to a terminal.
    private static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(200).map { $0.properties.generalCategory == .control ? "?" : $0 }))
    }
}
