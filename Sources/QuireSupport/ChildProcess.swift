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
    /// - Parameter logFolder: where the file for standard error goes (the system's
    ///   temporary folder when nil).
    package static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                            logFolder: String? = nil, line: ((String) -> Void)? = nil) throws -> Finished {
        let (log, logHandle) = try privateLog("quire-child", in: logFolder)
        defer { unlink(log) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = logHandle
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { throw Failure.cannotStart(error.localizedDescription) }
        var output = Data()
        if let line {
            var pending = Data()
            while case let chunk = out.fileHandleForReading.availableData, !chunk.isEmpty {
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    line(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending = Data(pending[pending.index(after: newline)...])
                }
            }
            if !pending.isEmpty { line(String(decoding: pending, as: UTF8.self)) }
        } else {
            output = out.fileHandleForReading.readDataToEndOfFile()
        }
        process.waitUntilExit()
        let errors = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return Finished(status: process.terminationStatus, output: output, errors: errors)
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
