import Foundation
import QuireKit
#if canImport(Glibc)
import Glibc
#endif

/// Passphrases and passwords: from an environment variable, a file, or a prompt without echo
/// on the terminal — never from a plain argument, never printed.
enum Secrets {
    /// The repository passphrase: `--passphrase-file F`, `QUIRE_PASSPHRASE`, or a prompt.
    /// At the prompt an empty answer, a new passphrase shorter than `minimumLength` and two
    /// answers that differ are each said and asked again (three tries); from a file or the
    /// environment a short new passphrase is taken with a warning, an empty one refused.
    static func passphrase(_ arguments: Arguments, context: Context, confirm: Bool = false,
                           fileOption: String = "passphrase-file", variable: String = "QUIRE_PASSPHRASE",
                           prompt: String = "Repository passphrase") throws -> SecureBytes {
        var bytes: [UInt8]
        if let path = arguments.value(fileOption) {
            bytes = try readSecretFile(path, what: "passphrase file")
            guard !bytes.isEmpty else { throw CLIError.failure("the passphrase file \(path) is empty", hint: "put the passphrase in it, on one line") }
        } else if let value = context.environment[variable] {
            bytes = Array(value.utf8)
            guard !bytes.isEmpty else { throw CLIError.failure("\(variable) is set but empty", hint: "unset it to be asked, or set it to the passphrase") }
        } else if isatty(STDIN_FILENO) == 1 {
            bytes = try ask(prompt, confirm: confirm, context: context)
        } else {
            throw CLIError.failure("no passphrase given", hint: "set \(variable), use --\(fileOption) F, or run on a terminal to be asked")
        }
        defer { wipe(&bytes) }
        return try SecureBytes(copying: bytes)
    }

    /// The prompt refuses a short new passphrase; one from a file or the environment is the
    /// person's (or a script's) deliberate choice, taken with a word of warning once it is
    /// in use (said after the command succeeded, so an error stays one line).
    static func warnIfShort(_ passphrase: SecureBytes, context: Context) {
        guard passphrase.count < minimumLength else { return }
        context.printError("warning: the passphrase has only \(passphrase.count) characters; anyone who gets a copy of the repository "
                           + "may guess it. `quire passwd` changes it (four random words make a good one).")
    }

    /// What a new passphrase needs at least, at the prompt (four random words are about 25).
    static let minimumLength = 10

    /// Asks at the terminal, saying what was wrong and asking again, three times at most.
    private static func ask(_ prompt: String, confirm: Bool, context: Context) throws -> [UInt8] {
        for attempt in 1...3 {
            var bytes = try promptHidden(prompt + ": ")
            let last = attempt == 3
            if bytes.isEmpty {
                if last { break }
                context.printError("The passphrase is empty; type it and press Enter (Ctrl-C stops).")
                continue
            }
            guard confirm else { return bytes }
            if bytes.count < minimumLength {
                wipe(&bytes)
                if last { break }
                context.printError("That is too short to keep a journal safe: at least \(minimumLength) characters "
                                   + "(four random words make a good passphrase). Try again.")
                continue
            }
            var again = try promptHidden("Again: ")
            defer { wipe(&again) }
            if again == bytes { return bytes }
            wipe(&bytes)
            if last { break }
            context.printError("The two passphrases differ; once more.")
        }
        throw CLIError.failure("no passphrase was agreed on after three tries", hint: "run the command again when ready")
    }

    /// The WebDAV password, if any: `--password-file F` (or the one `remote set` remembered),
    /// then `QUIRE_WEBDAV_PASSWORD`; nil leaves `~/.netrc` to libcurl.
    static func webdavPassword(file: String?, context: Context) throws -> String? {
        if let file {
            var bytes = try readSecretFile(file, what: "password file")
            defer { wipe(&bytes) }
            return String(decoding: bytes, as: UTF8.self)
        }
        return context.environment["QUIRE_WEBDAV_PASSWORD"]
    }

    /// The WebDAV password for `remote`: as `webdavPassword(file:)` finds it; else, when a
    /// user is named, ~/.netrc has no line for the host and this is a terminal, asked for
    /// (without echo). Nil leaves the server to say whether it wants one.
    static func webdavPassword(for remote: RemoteAddress, context: Context) throws -> String? {
        if let known = try webdavPassword(file: remote.passwordFile, context: context) { return known }
        guard let user = remote.user, !user.isEmpty, remote.url.hasPrefix("http"), isatty(STDIN_FILENO) == 1,
              let host = URLComponents(string: remote.url)?.host, !netrcNames(host, context: context) else { return nil }
        var bytes = try promptHidden("WebDAV password for \(user) at \(host): ")
        defer { wipe(&bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether ~/.netrc (where libcurl looks) has a `machine HOST` line.
    private static func netrcNames(_ host: String, context: Context) -> Bool {
        let home = context.environment["HOME"] ?? NSHomeDirectory()
        guard let text = try? String(contentsOfFile: home + "/.netrc", encoding: .utf8) else { return false }
        let words = text.split(whereSeparator: \.isWhitespace)
        return zip(words, words.dropFirst()).contains { $0 == "machine" && $1.lowercased() == host.lowercased() } || words.contains("default")
    }

    /// A file's content without one trailing newline.
    private static func readSecretFile(_ path: String, what: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError.failure("cannot read \(what) \(path)", hint: nil)
        }
        var bytes = [UInt8](data)
        if bytes.last == 0x0A { bytes.removeLast() }
        if bytes.last == 0x0D { bytes.removeLast() }
        return bytes
    }

    /// Echo goes off before the prompt shows, so nothing typed once it shows is echoed; what
    /// was typed ahead is kept, not flushed (TCSADRAIN), as a fast typist expects.
    private static func promptHidden(_ prompt: String) throws -> [UInt8] {
        var old = termios()
        let hasTerminal = tcgetattr(STDIN_FILENO, &old) == 0
        if hasTerminal {
            var quiet = old
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSADRAIN, &quiet)
        }
        FileHandle.standardError.write(Data(prompt.utf8))
        defer {
            if hasTerminal { tcsetattr(STDIN_FILENO, TCSADRAIN, &old) }
            FileHandle.standardError.write(Data("\n".utf8))
        }
        var bytes: [UInt8] = []
        var c: UInt8 = 0
        while read(STDIN_FILENO, &c, 1) == 1 && c != 0x0A { bytes.append(c) }
        if bytes.last == 0x0D { bytes.removeLast() }
        return bytes
    }

    static func wipe(_ bytes: inout [UInt8]) {
        for i in bytes.indices { bytes[i] = 0 }
        bytes.removeAll()
    }

    /// Argon2id cost for new key files: MODERATE, or `QUIRE_KDF_COST=OPS,BYTES` (tests use
    /// cheap values; the cost is stored in each key file).
    static func kdfCost(_ context: Context) throws -> KeyCost {
        guard let spec = context.environment["QUIRE_KDF_COST"] else { return .moderate }
        let parts = spec.split(separator: ",").compactMap { UInt64($0) }
        // A test knob: debug builds (the test suite's) go down to libsodium's minimum, a
        // release build never below its INTERACTIVE level, whatever the environment says.
        #if DEBUG
        let floor = KeyCost.minimum
        #else
        let floor = KeyCost.interactive
        #endif
        let ceiling = KeyCost.ceiling
        guard parts.count == 2, parts[0] >= floor.opslimit, parts[1] >= floor.memlimit,
              parts[0] <= ceiling.opslimit, parts[1] <= ceiling.memlimit else {
            throw CLIError.usage("QUIRE_KDF_COST must be OPS,BYTES from \(floor.opslimit),\(floor.memlimit) to \(ceiling.opslimit),\(ceiling.memlimit)")
        }
        return KeyCost(opslimit: parts[0], memlimit: parts[1])
    }
}
