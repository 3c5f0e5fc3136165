import Foundation

/// Recordings of any common format (m4a/AAC, ogg/opus, mp3, wav, video) cut into 16 kHz mono
/// WAV pieces by Debian's `ffmpeg`, one piece at a time, so a two-hour note never sits in
/// memory whole.
package struct AudioDecoder: Sendable {
    let ffmpeg: String
    let ffprobe: String

    /// The decoder from `PATH`.
    /// - Throws: `TranscribeError.noEngine` when ffmpeg is not installed.
    package init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let ffmpeg = Self.find("ffmpeg", in: environment), let ffprobe = Self.find("ffprobe", in: environment) else {
            throw TranscribeError(.noEngine, "ffmpeg is not installed, so no recording can be decoded (Debian: apt-get install ffmpeg)")
        }
        self.ffmpeg = ffmpeg
        self.ffprobe = ffprobe
    }

    /// The recording's length in seconds.
    /// - Throws: `.undecodable` naming the file (as `name`) when it holds no audio ffmpeg can read.
    package func duration(of path: String, name: String? = nil) throws -> Double {
        let run = try Self.run(ffprobe, ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=duration:format=duration",
                                         "-of", "default=noprint_wrappers=1:nokey=1", path])
        let values = run.output.split(whereSeparator: \.isNewline).compactMap { Double($0) }.filter { $0.isFinite && $0 >= 0 }
        guard run.status == 0, let seconds = values.max() else {
            throw TranscribeError(.undecodable, "\(name ?? (path as NSString).lastPathComponent): no audio ffmpeg can read" + Self.reason(run.error))
        }
        return seconds
    }

    /// Writes `length` seconds from `start` of the recording as a 16 kHz mono WAV file at `wav`.
    package func extract(_ path: String, name: String? = nil, from start: Double, length: Double, to wav: String) throws {
        let run = try Self.run(ffmpeg, ["-nostdin", "-v", "error", "-y", "-ss", String(format: "%.3f", start), "-t", String(format: "%.3f", length),
                                        "-i", path, "-vn", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-f", "wav", wav])
        guard run.status == 0 else {
            throw TranscribeError(.undecodable, "\(name ?? (path as NSString).lastPathComponent): ffmpeg cannot decode it" + Self.reason(run.error))
        }
    }

    private static func reason(_ error: String) -> String {
        guard let line = error.split(whereSeparator: \.isNewline).last else { return "" }
        return " (" + String(line.prefix(200)) + ")"
    }

    static func find(_ name: String, in environment: [String: String]) -> String? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a short command to its end, reading what it writes.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        // What it says on stderr goes to a file (two pipes read one after the other could
        // block the command); what it writes on stdout is short.
        let log = NSTemporaryDirectory() + "quire-ffmpeg-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        defer { unlink(log) }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw TranscribeError(.noEngine, "\(executable) cannot be started (\(error.localizedDescription))")
        }
        let outputData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorText = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), errorText)
    }
}
