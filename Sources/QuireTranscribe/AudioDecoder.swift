import Foundation
import QuireSupport

/// Recordings of any common format (m4a/AAC, ogg/opus, mp3, wav, video) cut into 16 kHz mono
/// WAV pieces by Debian's `ffmpeg`, one piece at a time, so a two-hour note never sits in
/// memory whole.
package struct AudioDecoder: Sendable {
    let ffmpeg: String
    let ffprobe: String

    /// The decoder from `PATH`.
    /// - Throws: `TranscribeError.noEngine` when ffmpeg is not installed.
    package init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let ffmpeg = Executables.find("ffmpeg", in: environment), let ffprobe = Executables.find("ffprobe", in: environment) else {
            throw TranscribeError(.noEngine, "ffmpeg is not installed, so no recording can be decoded (Debian: apt-get install ffmpeg)")
        }
        self.ffmpeg = ffmpeg
        self.ffprobe = ffprobe
    }

    /// The longest recording taken at its word: a day. A note that claims more (a 32 KB file
    /// claiming 10¹² s) is refused, named, before anything is planned for it.
    package static let maxSeconds: Double = 24 * 3600
    /// The fewest bits a second of any speech codec ffmpeg reads takes (AMR-NB at its lowest is
    /// 4,750; Opus 6,000): a file's size bounds the length it may claim.
    static let minimumBitsPerSecond: Double = 1000

    /// The demuxer for the recording's container, told from its first bytes — never left to
    /// ffmpeg's guess, which would follow an HLS playlist to another file — or nil for a
    /// format Quire does not read.
    static func demuxer(ofFileAt path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 64)) ?? Data())
        func at(_ offset: Int, _ text: String) -> Bool {
            let bytes = Array(text.utf8)
            return head.count >= offset + bytes.count && Array(head[offset..<offset + bytes.count]) == bytes
        }
        if at(0, "OggS") { return "ogg" }
        if at(0, "RIFF") && at(8, "WAVE") { return "wav" }
        if at(0, "FORM") && (at(8, "AIFF") || at(8, "AIFC")) { return "aiff" }
        if at(0, "fLaC") { return "flac" }
        if at(4, "ftyp") { return "mov" }  // mp4, m4a, mov, 3gp
        if head.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return "matroska" }  // mkv, webm
        if at(0, "#!AMR") { return "amr" }
        if at(0, "caff") { return "caf" }
        if at(0, "ID3") { return "mp3" }
        if head.count >= 2 && head[0] == 0xFF && head[1] & 0xF6 == 0xF0 { return "aac" }   // ADTS
        if head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0 { return "mp3" }   // an MPEG audio frame
        return nil
    }

    /// What ffmpeg and ffprobe are told of every input: its demuxer, and that it may open
    /// files alone (no network, no other file named inside it).
    private static func input(_ path: String, name: String?) throws -> [String] {
        guard let format = demuxer(ofFileAt: path) else {
            throw TranscribeError(.undecodable, "\(name ?? (path as NSString).lastPathComponent): not a recording Quire reads "
                                  + "(Ogg, WAV, AIFF, FLAC, MP4/M4A/MOV, Matroska/WebM, AMR, CAF, MP3 or AAC)")
        }
        return ["-protocol_whitelist", "file", "-f", format, "-i", "file:" + path]
    }

    /// The recording's length in seconds, at most `maxSeconds` and at most what its size can hold.
    /// - Throws: `.undecodable` naming the file (as `name`) when it holds no audio ffmpeg can
    ///   read, or claims a length it cannot have.
    package func duration(of path: String, name: String? = nil) throws -> Double {
        let shown = name ?? (path as NSString).lastPathComponent
        let run = try Self.run(ffprobe, ["-v", "error"] + (try Self.input(path, name: name)) + ["-select_streams", "a:0",
                                         "-show_entries", "stream=duration:format=duration", "-of", "default=noprint_wrappers=1:nokey=1"])
        let values = run.output.split(whereSeparator: \.isNewline).compactMap { Double($0) }.filter { $0.isFinite && $0 >= 0 }
        guard run.status == 0, let seconds = values.max() else {
            throw TranscribeError(.undecodable, "\(shown): no audio ffmpeg can read" + Self.reason(run.error))
        }
        let size = Double((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0)
        let holds = size * 8 / Self.minimumBitsPerSecond
        guard seconds <= Self.maxSeconds, seconds <= holds + 60 else {
            throw TranscribeError(.undecodable, "\(shown): claims to last \(String(format: "%.0f", seconds)) s, "
                                  + (seconds > Self.maxSeconds ? "more than a day" : "more than its \(Int(size)) bytes can hold")
                                  + "; left alone")
        }
        return seconds
    }

    /// Writes `length` seconds from `start` of the recording as a 16 kHz mono WAV file at `wav`
    /// (a file that exists is written over in place, so it keeps its mode).
    package func extract(_ path: String, name: String? = nil, from start: Double, length: Double, to wav: String) throws {
        let run = try Self.run(ffmpeg, ["-nostdin", "-v", "error", "-y", "-ss", String(format: "%.3f", start), "-t", String(format: "%.3f", length)]
                                       + (try Self.input(path, name: name)) + ["-vn", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-f", "wav", wav])
        guard run.status == 0 else {
            throw TranscribeError(.undecodable, "\(name ?? (path as NSString).lastPathComponent): ffmpeg cannot decode it" + Self.reason(run.error))
        }
    }

    private static func reason(_ error: String) -> String {
        guard let line = error.split(whereSeparator: \.isNewline).last else { return "" }
        return " (" + String(line.prefix(200)) + ")"
    }

    /// Runs a short command to its end, reading what it writes (`ChildProcess`).
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        do {
            let finished = try ChildProcess.run(executable, arguments)
            return (finished.status, finished.outputText, finished.errors)
        } catch ChildProcess.Failure.cannotStart(let reason) {
            throw TranscribeError(.noEngine, "\(executable) cannot be started (\(reason))")
        } catch ChildProcess.Failure.noLog(let reason) {
            throw TranscribeError(.engineFailed, reason)
        }
    }
}
