import Foundation

/// The one way Quire runs a program to its end (ffprobe and ffmpeg, Ghostscript, systemctl):
/// standard input empty, standard output read as it comes (whole, or line by line to a
/// caller who shows progress), standard error written to a private file (0600) read back
/// at the end — two pipes read one after the other could block the program — and removed.
/// The transcription worker (a long-lived program spoken to over pipes) and the editor (the
/// person's own terminal) are not this and start their own.
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

    /// Runs `executable` with `arguments` to its end. `environment` nil: this process's.
    /// With `line`, each line of its standard output goes there as it is written.
    /// - Parameter logFolder: where the file for standard error goes (the system's
    ///   temporary folder when nil).
    package static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                            logFolder: String? = nil, line: ((String) -> Void)? = nil) throws -> Finished {
        let folder = logFolder ?? NSTemporaryDirectory()
        let log = (folder.hasSuffix("/") ? folder : folder + "/") + "quire-child-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        let fd = open(log, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure.noLog("cannot create \(log): \(String(cString: strerror(errno)))") }
        defer { unlink(log) }
        let logHandle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
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
}
