import CLinux
import Foundation

/// `quire` run on a pseudo-terminal, as a person runs it: stdin, stdout and stderr are the
/// terminal, so prompts, progress lines and colours behave as they do for a person. A test
/// waits for what appears on the screen and types answers, never waiting on the clock.
final class Terminal: @unchecked Sendable {
    let process = Process()
    private let master: Int32
    private let condition = NSCondition()
    private var screen = Data()
    private var closed = false

    init(_ arguments: [String], store: String? = nil, environment: [String: String] = [:]) throws {
        master = posix_openpt(O_RDWR | O_NOCTTY)
        guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else {
            throw POSIXError(.ENOTTY)
        }
        let slave = open(String(cString: name), O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw POSIXError(.ENOTTY) }
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        process.executableURL = URL(fileURLWithPath: QuireBinary.path)
        process.arguments = (store.map { ["--store", $0] } ?? []) + arguments
        var env = ProcessInfo.processInfo.environment
        for inherited in ["QUIRE_STORE", "QUIRE_PASSPHRASE", "QUIRE_NEW_PASSPHRASE", "QUIRE_WEBDAV_PASSWORD"] { env[inherited] = nil }
        env["TERM"] = "xterm"
        process.environment = env.merging(environment) { $1 }
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        try handle.close()  // the child holds its own copies; EOF comes when it exits
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(master, &buffer, buffer.count)
                if n <= 0 { break }
                condition.withLock { screen.append(contentsOf: buffer[0..<n]) }
                condition.broadcast()
            }
            condition.withLock { closed = true }
            condition.broadcast()
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        close(master)
    }

    /// Everything written to the terminal so far.
    var output: String { condition.withLock { String(decoding: screen, as: UTF8.self) } }

    /// Waits until the terminal has shown `text` `times` times; false if the program ended
    /// first or the test hung.
    @discardableResult
    func waitFor(_ text: String, times: Int = 1) -> Bool {
        let limit = Date().addingTimeInterval(Hang.limit)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if String(decoding: screen, as: UTF8.self).components(separatedBy: text).count > times { return true }
            if closed || !condition.wait(until: limit) { return false }
        }
    }

    /// Types `line` and Enter.
    func type(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Waits for the program to end (killing it after `Hang.limit`); its exit status, or -1
    /// when what it wrote was not all read by then (the test hung: it fails, never goes on).
    func finish() -> Int32 {
        let ended = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [process] in
            process.waitUntilExit()
            ended.signal()
        }
        if ended.wait(timeout: .now() + Hang.limit) == .timedOut { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        // What it wrote before it ended is read to the end.
        let limit = Date().addingTimeInterval(Hang.limit)
        let read = condition.withLock { () -> Bool in
            while !closed && condition.wait(until: limit) {}
            return closed
        }
        return read ? process.terminationStatus : -1
    }
}
