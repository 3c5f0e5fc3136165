import Foundation
import Testing
@testable import QuireStore

/// A temporary folder removed when the value is deinitialised.
final class TempDir: @unchecked Sendable {
    let path: String

    init() {
        let base = FileManager.default.temporaryDirectory.path + "/quire-test-" + UUID().uuidString.lowercased()
        try? FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String, _ contents: String) -> String {
        let p = path + "/" + name
        try? FileManager.default.createDirectory(atPath: (p as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: p, contents: Data(contents.utf8))
        return p
    }

    func file(_ name: String, bytes: [UInt8]) -> String {
        let p = path + "/" + name
        try? FileManager.default.createDirectory(atPath: (p as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: p, contents: Data(bytes))
        return p
    }

    func read(_ name: String) -> String {
        (try? String(contentsOfFile: path + "/" + name, encoding: .utf8)) ?? ""
    }
}

/// A wall clock tests can move, including backwards.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var now: Date

    init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) { now = start }

    func set(_ date: Date) { lock.withLock { now = date } }
    func advance(_ seconds: Double) { lock.withLock { now = now.addingTimeInterval(seconds) } }
    var wallClock: WallClock { WallClock(now: { [self] in lock.withLock { now } }) }
}

func makeStore(_ dir: TempDir, name: String = "store", clock: ManualClock? = nil, migrationLimit: Int? = nil) throws -> Store {
    var options = Store.Options(create: true)
    if let clock { options.clock = clock.wallClock }
    options.migrationLimit = migrationLimit
    return try Store(folder: dir.path + "/" + name, options: options)
}

func ts(_ text: String) -> Timestamp {
    guard let t = Timestamp(rfc3339: text) else { fatalError("bad test timestamp \(text)") }
    return t
}

/// The set of (record, field) pairs written after `clock`, for change-tracking assertions.
func fieldsChanged(_ store: Store, since clock: HLC) throws -> Set<String> {
    Set(try store.changes(since: clock).map { "\($0.record).\($0.field)" })
}

/// Runs the built `quire` binary.
struct QuireRun {
    let status: Int32
    let stdout: String
    let stderr: String
    /// The signal that ended the process, if one did (`status` is then its number).
    var signal: Int32? = nil
}

enum QuireBinary {
    static let path: String = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("quire").path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("quire").path,
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent(".build/debug/quire").path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[2]
    }()

    /// A copy of the binary in a folder of its own that every user may enter, for commands run
    /// as another user: the build folder may sit where that user cannot reach (a clone in
    /// `/root`, a home folder of mode 0700). Removed when the test process ends.
    static let sharedCopy: String? = {
        let folder = "/tmp/quire-test-bin-" + UUID().uuidString.lowercased()
        let copy = folder + "/quire"
        guard mkdir(folder, 0o755) == 0, chmod(folder, 0o755) == 0,
              (try? FileManager.default.copyItem(atPath: path, toPath: copy)) != nil, chmod(copy, 0o755) == 0
        else { return nil }
        sharedCopyFolder = strdup(folder)
        atexit { if let folder = sharedCopyFolder { _ = try? FileManager.default.removeItem(atPath: String(cString: folder)) } }
        return copy
    }()

    /// Whether a test that runs quire as `nobody` can run here: only root may switch users,
    /// and Swift's runtime libraries must be readable by that user too (a toolchain unpacked
    /// inside `/root` is not). When this process is not root there is nothing to switch.
    static let otherUserCanRun: Bool = {
        guard getuid() == 0 else { return true }
        guard let copy = sharedCopy, FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser") else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
        probe.arguments = ["-u", "nobody", "--", copy, "--version"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    static let otherUserSkipReason: Comment =
        "runs quire as nobody, who cannot run this build here (runuser missing, or Swift's runtime unreadable to nobody)"

    /// Runs quire with `arguments`; with `asUser` (when this process is root), as that user
    /// through runuser(1), from a copy of the binary that user can reach.
    static func run(_ arguments: [String], store: String? = nil, environment: [String: String] = [:], stdin: String? = nil,
                    cwd: String? = nil, asUser: String? = nil, executable: String? = nil) throws -> QuireRun {
        let process = Process()
        if let cwd { process.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        let quireArguments = (store.map { ["--store", $0] } ?? []) + arguments
        if let asUser {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", asUser, "--", sharedCopy ?? path] + quireArguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable ?? path)
            process.arguments = quireArguments
        }
        var env = ProcessInfo.processInfo.environment
        // The machine's locale picks a book's language when nothing else does: tests pin it.
        env["LC_ALL"] = nil
        env["LC_MESSAGES"] = nil
        env["LANG"] = "C.UTF-8"
        for inherited in ["QUIRE_STORE", "QUIRE_PASSPHRASE", "QUIRE_NEW_PASSPHRASE", "QUIRE_WEBDAV_PASSWORD",
                          "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_PROFILE",
                          "AWS_CA_BUNDLE"] { env[inherited] = nil }
        // The runner's own ~/.aws/config says nothing to a test: one that reads it names its own.
        env["AWS_CONFIG_FILE"] = "/nonexistent/quire-tests/aws-config"
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Read both pipes fully before waiting, so a large output cannot block the child.
        var outData = Data(), errData = Data()
        let group = DispatchGroup()
        let queue = DispatchQueue(label: "quire-test-read", attributes: .concurrent)
        let box = DataBox()
        group.enter()
        queue.async { box.set(err: err.fileHandleForReading.readDataToEndOfFile()); group.leave() }
        outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        errData = box.err
        process.waitUntilExit()
        return QuireRun(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                        stderr: String(decoding: errData, as: UTF8.self),
                        signal: process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil)
    }
}

nonisolated(unsafe) private var sharedCopyFolder: UnsafeMutablePointer<CChar>?

final class DataBox: @unchecked Sendable {
    private let lock = NSLock()
    private var _err = Data()
    func set(err: Data) { lock.withLock { _err = err } }
    var err: Data { lock.withLock { _err } }
}

/// Text as odd as people paste it, drawn from a fixed seed (splitmix64: the same on every
/// run): combining marks with nothing to combine with, CR LF and lone CRs, NUL, byte-order
/// marks, line and paragraph separators, bidi controls, emoji sequences, quotes and
/// backslashes before accents, markup characters.
struct OddText {
    static let pieces = ["a", "Я", "東", "ي", " ", "\u{301}", "\u{200C}", "\u{200D}", "\r\n", "\r", "\n", "\u{0}", "\u{FEFF}", "\u{2028}",
                         "\u{2029}", "\u{202E}", "\"", "\\", "👩‍👩‍👧", "🇸🇪", "\t", "#", "*", "<", "&", "\u{1F}", "\u{7F}", "\u{FFFD}"]
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// A number below `bound`.
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }

    /// Fewer than `most` pieces.
    mutating func text(_ most: Int) -> String {
        (0..<next(most)).map { _ in Self.pieces[next(Self.pieces.count)] }.joined()
    }

    /// Pieces without a control character, as a tag or a journal's name must be.
    static let namePieces = pieces.filter { !$0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } }

    /// Fewer than `most` of `namePieces`.
    mutating func name(_ most: Int) -> String {
        (0..<next(most)).map { _ in Self.namePieces[next(Self.namePieces.count)] }.joined()
    }
}
