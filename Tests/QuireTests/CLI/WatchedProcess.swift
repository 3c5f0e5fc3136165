import Foundation

/// How long a test waits for an event before it calls itself hung. It only ever fails a
/// test, loudly: no outcome is decided by it, so it is long enough for a machine whose two
/// cores are both busy.
enum Hang {
    static let limit: TimeInterval = 300
}

/// A `quire` that keeps running (`sync --watch`), whose stdout a test reads line by line as
/// it comes, so the test waits for what the process said rather than for the clock.
final class WatchedProcess: @unchecked Sendable {
    let process = Process()
    private let condition = NSCondition()
    private var lines: [String] = []
    private var ended = false
    private var read = 0
    private let errors = Pipe()
    private var errorText = Data()

    init(_ arguments: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: QuireBinary.path)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for inherited in ["QUIRE_STORE", "QUIRE_PASSPHRASE", "QUIRE_NEW_PASSPHRASE", "QUIRE_WEBDAV_PASSWORD"] { env[inherited] = nil }
        process.environment = env.merging(environment) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        Thread.detachNewThread { [self] in
            var pending = Data()
            while true {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    condition.withLock { lines.append(line) }
                    condition.broadcast()
                }
            }
            condition.withLock { ended = true }
            condition.broadcast()
        }
        Thread.detachNewThread { [self] in
            let text = errors.fileHandleForReading.readDataToEndOfFile()
            condition.withLock { errorText = text }
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// What the process wrote to stderr so far (for failure messages).
    var stderr: String { condition.withLock { String(decoding: errorText, as: UTF8.self) } }

    /// The next line of stdout not yet taken that `matches`, skipping those that do not;
    /// nil when the process ended first or the test hung (`Hang.limit`).
    func nextLine(where matches: (String) -> Bool = { _ in true }) -> String? {
        let limit = Date().addingTimeInterval(Hang.limit)
        condition.lock()
        defer { condition.unlock() }
        while true {
            while read < lines.count {
                let line = lines[read]
                read += 1
                if matches(line) { return line }
            }
            if ended || !condition.wait(until: limit) { return nil }
        }
    }

    /// Sends SIGTERM and waits for the exit (SIGKILL after `Hang.limit`, which the exit
    /// status then shows).
    func terminate() {
        process.terminate()
        let exited = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [process] in
            process.waitUntilExit()
            exited.signal()
        }
        if exited.wait(timeout: .now() + Hang.limit) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
