import Foundation
import QuireSupport
import QuireStore

/// An engine that is a command speaking JSON lines (the contract is written at the top of
/// `engines/faster_whisper_worker.py`): one line that says it is ready, with its engine,
/// model and languages, then one answer per request `{"audio": path, "language": tag}`.
/// The command runs once for a whole run, so its model loads once. Its error output goes to
/// a temporary file, read back only to explain a failure.
package final class WorkerEngine: TranscriptionEngine {
    package private(set) var info: EngineInfo
    private let executable: String
    private let arguments: [String]
    private let environment: [String: String]
    private let folder: String?
    private var worker: ChildProcess.Worker?
    private var input: FileHandle?
    private var output: LineReader?

    /// - Parameters:
    ///   - name: what to call the engine until it says (`faster-whisper`).
    ///   - executable: the command (an absolute path).
    ///   - environment: the command's whole environment (nothing of this process's is passed
    ///     on, so no secret of Quire's and no `PYTHONPATH` reaches it), beside a plain `PATH`,
    ///     `LANG` and `HOME` unless given.
    ///   - folder: where it runs (its own folder; never the one the user stands in).
    package init(name: String, executable: String, arguments: [String], environment: [String: String] = [:], folder: String? = nil) {
        self.info = EngineInfo(engine: name, model: "", languages: [])
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.folder = folder
    }

    /// The most one answer line may hold: an answer for a minute of speech is a few KiB.
    static let maxLine = 16 << 20

    deinit { stop() }

    package func start() throws {
        guard worker == nil else { return }
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw TranscribeError(.noEngine, "\(info.engine): \(executable) is not there")
        }
        let home = folder ?? (executable as NSString).deletingLastPathComponent
        let worker: ChildProcess.Worker
        do {
            worker = try ChildProcess.Worker(executable, arguments, folder: home, environment:
                ["PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": home].merging(environment) { _, given in given })
        } catch ChildProcess.Failure.cannotStart(let reason) {
            throw TranscribeError(.noEngine, "\(info.engine): \(executable) cannot be started (\(reason))")
        } catch ChildProcess.Failure.noLog(let reason) {
            throw TranscribeError(.engineFailed, reason)
        }
        self.worker = worker
        input = worker.input
        output = LineReader(worker.output, limit: Self.maxLine)
        let ready = try answer()
        if let error = ready["error"]?.string {
            stop()
            throw TranscribeError(.noEngine, "\(info.engine): \(error)")
        }
        guard ready["ready"] == .bool(true) else {
            stop()
            throw TranscribeError(.noEngine, "\(info.engine): the engine did not say it is ready")
        }
        info = EngineInfo(engine: ready["engine"]?.string ?? info.engine, model: ready["model"]?.string ?? "",
                          languages: ready["languages"]?.array?.compactMap(\.string) ?? [])
    }

    package func transcribe(wav path: String, language: String?) throws -> [EngineSegment] {
        guard let input else { throw TranscribeError(.engineFailed, "\(info.engine) is not running") }
        var request = JSONWriter()
        request.object { o in
            o.string("audio", path)
            if let language { o.string("language", language) }
        }
        do {
            try input.write(contentsOf: Data((request.text + "\n").utf8))
        } catch {
            throw TranscribeError(.engineFailed, "\(info.engine) stopped" + lastError())
        }
        let reply = try answer()
        if let error = reply["error"]?.string { throw TranscribeError(.engineFailed, "\(info.engine): \(error)") }
        guard let segments = reply["segments"]?.array else {
            throw TranscribeError(.engineFailed, "\(info.engine) answered without segments")
        }
        return segments.compactMap { value in
            guard let o = value.object, let start = o["start"]?.number, let end = o["end"]?.number else { return nil }
            let words: [Segment] = (o["words"]?.array ?? []).compactMap { w in
                guard let a = w.array, a.count == 3, let s = a[0].number, let e = a[1].number, let t = a[2].string else { return nil }
                return Segment(start: s, end: e, text: t)
            }
            return EngineSegment(start: start, end: end, text: o["text"]?.string ?? "", words: words)
        }
    }

    package func stop() {
        try? input?.close()
        input = nil
        // Its answers unread go first: a worker blocked writing to us then ends at once.
        output?.close()
        output = nil
        worker?.stop()
        worker = nil
    }

    /// The next line the engine writes, as a JSON object.
    private func answer() throws -> [String: JSONValue] {
        guard let output else { throw TranscribeError(.engineFailed, "\(info.engine) is not running") }
        guard let line = output.next() else {
            if output.overflowed { throw TranscribeError(.engineFailed, "\(info.engine) wrote a line over \(Self.maxLine >> 20) MiB") }
            throw TranscribeError(.engineFailed, "\(info.engine) stopped" + lastError())
        }
        guard let object = try? JSONValue.parse(line).object else {
            throw TranscribeError(.engineFailed, "\(info.engine) wrote a line that is not JSON")
        }
        return object
    }

    /// The engine's last line of error output, as `: …`, or nothing.
    private func lastError() -> String {
        worker?.lastError.map { ": " + $0 } ?? ""
    }
}

/// Lines read from a pipe as they come, in time linear in what is read, none longer than
/// `limit` bytes (a longer one ends the reading: `overflowed`).
final class LineReader {
    private let handle: FileHandle
    private let limit: Int
    private var buffer = Data()
    /// How far `buffer` is known to hold no newline.
    private var scanned = 0
    private(set) var overflowed = false

    init(_ handle: FileHandle, limit: Int = 16 << 20) {
        self.handle = handle
        self.limit = limit
    }

    func close() { try? handle.close() }

    /// The next line without its newline; nil once the pipe is closed, or a line went over `limit`.
    func next() -> String? {
        var bytes = [UInt8](repeating: 0, count: 64 << 10)
        while !overflowed {
            if let newline = buffer[(buffer.startIndex + scanned)...].firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer = Data(buffer[(newline + 1)...])
                scanned = 0
                return line
            }
            scanned = buffer.count
            guard buffer.count <= limit else {
                overflowed = true
                buffer = Data()
                return nil
            }
            // `read(2)` returns what the pipe holds (FileHandle's reads wait for a full count).
            let count = bytes.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            buffer.append(contentsOf: bytes[0..<count])
        }
        return nil
    }
}
