import CLinux
import Foundation

/// The one place Quire starts programs, in the three ways it needs:
/// - `run`: to its end (ffprobe and ffmpeg, systemctl): standard input empty,
///   standard output read as it comes (whole, or line by line to a caller who shows
///   progress), standard error written to a private file (0600) read back at the end — two
///   pipes read one after the other could block the program — and removed;
/// - `runOnTerminal`: the person's editor, on this process's terminal, waited for;
/// - `Worker`: a long-lived program spoken to over pipes (the transcription engine), its
///   standard error in a private file read when it fails.
package enum ChildProcess {
    package struct Finished: Sendable {
        package let status: Int32
        /// What it wrote on standard output (empty when it went to `line`).
        package let output: Data
        /// What it wrote on standard error.
        package let errors: String
        /// Whether it was stopped for running past its time (`run`'s `timeout`).
        package var timedOut = false

        package var outputText: String { String(decoding: output, as: UTF8.self) }
        /// Its first line on standard error that is not blank, cut to 200 characters.
        package var firstError: String? {
            errors.split(whereSeparator: \.isNewline).first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map { String($0.prefix(200)) }
        }
    }

    package enum Failure: Error, Sendable {
        /// It could not be started (not there, not executable), with the reason.
        case cannotStart(String)
        /// No private file for what it says on standard error could be made.
        case noLog(String)
    }

    /// A new file only this user may read (0600, created `O_EXCL`) in `folder` (the system's
    /// temporary folder when nil), for a program's standard error; the caller removes it.
    package static func privateLog(_ prefix: String, in folder: String? = nil) throws -> (path: String, handle: FileHandle) {
        let folder = folder ?? NSTemporaryDirectory()
        let path = (folder.hasSuffix("/") ? folder : folder + "/") + "\(prefix)-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure.noLog("cannot create \(path): \(String(cString: strerror(errno)))") }
        return (path, FileHandle(fileDescriptor: fd, closeOnDealloc: true))
    }

    /// Runs `executable` with `arguments` to its end. `environment` nil: this process's.
    /// With `line`, each line of its standard output goes there as it is written.
    ///
    /// Started with `posix_spawn`: it gets standard input (empty), output and error, no other
    /// descriptor of this process, no blocked signal and none ignored. Its output is read
    /// until it ends, not until every copy of the pipe is closed: what it leaves running
    /// behind it with its standard output (a helper that starts its daemon) is not waited
    /// for. With `timeout`, a program still running after that many seconds is stopped
    /// (SIGTERM, then SIGKILL two seconds later), and `timedOut` says so. A program ended
    /// by a signal has the status 128 + its number, as a shell says it.
    /// - Parameter logFolder: where the file for standard error goes (the system's
    ///   temporary folder when nil).
    package static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                            logFolder: String? = nil, timeout: Double? = nil, line: ((String) -> Void)? = nil) throws -> Finished {
        let (log, logHandle) = try privateLog("quire-child", in: logFolder)
        defer { unlink(log) }
        let (pid, output) = try spawn(executable, arguments, environment: environment ?? ProcessInfo.processInfo.environment,
                                      errors: logHandle.fileDescriptor)
        defer { close(output) }
        var whole = Data(), pending = Data()
        let take = { (chunk: Data) in
            guard let line else { whole.append(chunk); return }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                line(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending = Data(pending[pending.index(after: newline)...])
            }
        }
        let (status, timedOut) = readUntilItEnds(pid, output, deadline: timeout.map { Date().addingTimeInterval($0) }, take)
        if let line, !pending.isEmpty { line(String(decoding: pending, as: UTF8.self)) }
        let errors = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return Finished(status: status, output: whole, errors: errors, timedOut: timedOut)
    }

    /// Starts `executable` with its standard output on a new pipe, whose reading end is
    /// returned, and standard error on `errors`.
    private static func spawn(_ executable: String, _ arguments: [String], environment: [String: String],
                              errors: Int32) throws -> (pid_t, Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe2(&ends, O_CLOEXEC) == 0 else { throw Failure.cannotStart("no pipe: " + String(cString: strerror(errno))) }
        defer { close(ends[1]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors, 2)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var unblocked = sigset_t(), defaults = sigset_t()
        sigemptyset(&unblocked)
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM, SIGTTIN, SIGTTOU] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0.key + "=" + $0.value) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let failed = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard failed == 0 else {
            close(ends[0])
            throw Failure.cannotStart("\(executable): " + String(cString: strerror(failed)))
        }
        return (pid, ends[0])
    }

    /// Hands `take` what the program writes to `fd` until the pipe ends, or the program has
    /// ended and nothing more came for a tenth of a second (what it left behind may hold the
    /// pipe open for ever); stops it at `deadline`; reaps it. Returns its status and whether
    /// it had to be stopped.
    private static func readUntilItEnds(_ pid: pid_t, _ fd: Int32, deadline: Date?, _ take: (Data) -> Void) -> (Int32, Bool) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var stopped: Date?
        var status: Int32?
        // Past the deadline: SIGTERM, and SIGKILL two seconds later.
        func stopIfLate() {
            guard let deadline, Date() >= deadline else { return }
            if let stopped {
                if Date().timeIntervalSince(stopped) >= 2 { kill(pid, SIGKILL) }
            } else {
                kill(pid, SIGTERM)
                stopped = Date()
            }
        }
        func reap(waiting: Bool) {
            var raw: Int32 = 0
            var answer: pid_t
            repeat { answer = waitpid(pid, &raw, waiting ? 0 : WNOHANG) } while answer < 0 && errno == EINTR
            if answer == pid { status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + raw & 0x7f } else if answer < 0 { status = -1 }
        }
        while true {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let answer = poll(&ready, 1, 100)
            if answer > 0 {
                let n = read(fd, &buffer, buffer.count)
                if n > 0 {
                    take(Data(buffer[0..<n]))
                    stopIfLate()  // one that writes for ever is late too
                    continue
                }
                if n < 0 && errno == EINTR { continue }
                break  // the end of the pipe (or an error reading it)
            }
            if answer < 0 && errno != EINTR { break }
            reap(waiting: false)
            if status != nil {
                // Whatever is still in the pipe, without waiting for more.
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                while case let n = read(fd, &buffer, buffer.count), n > 0 { take(Data(buffer[0..<n])) }
                break
            }
            stopIfLate()
        }
        // One that closed its output but runs on is waited for, and stopped at the deadline.
        while status == nil {
            if deadline == nil { reap(waiting: true); break }
            reap(waiting: false)
            if status == nil { stopIfLate(); usleep(20_000) }
        }
        return (status ?? -1, stopped != nil)
    }

    /// Runs `executable` on this process's terminal (its standard input, output and error)
    /// and waits for it; returns its exit status, or nil when a signal ended it.
    /// - Throws: `Failure.cannotStart`.
    package static func runOnTerminal(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Int32? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        do { try process.run() } catch { throw Failure.cannotStart(error.localizedDescription) }
        process.waitUntilExit()
        return process.terminationReason == .exit ? process.terminationStatus : nil
    }

    /// A long-lived program spoken to over pipes: requests written to `input`, answers read
    /// from `output`, standard error kept in a private file (`lastError`) until `stop`.
    package final class Worker {
        private let process = Process()
        package let input: FileHandle
        package let output: FileHandle
        private let log: String

        /// Starts `executable` in `folder` with exactly `environment`.
        /// - Throws: `Failure.noLog`, `Failure.cannotStart`.
        package init(_ executable: String, _ arguments: [String], folder: String, environment: [String: String]) throws {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.environment = environment
            process.currentDirectoryURL = URL(fileURLWithPath: folder, isDirectory: true)
            let stdin = Pipe(), stdout = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            let (log, handle) = try privateLog("quire-worker")
            process.standardError = handle
            self.log = log
            do {
                try process.run()
            } catch {
                unlink(log)
                throw Failure.cannotStart(error.localizedDescription)
            }
            input = stdin.fileHandleForWriting
            output = stdout.fileHandleForReading
        }

        deinit { unlink(log) }

        /// Its last line of error output that is not blank, cut to 300 characters.
        package var lastError: String? {
            guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return nil }
            return text.split(separator: "\n").last(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }).map { String($0.prefix(300)) }
        }

        /// Ends it (its input closed first, then a SIGTERM if it still runs) and waits.
        package func stop() {
            try? input.close()
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
        }
    }
}
