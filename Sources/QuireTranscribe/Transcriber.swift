import Foundation
import QuireSupport
import QuireStore

/// Fills in machine drafts of voice and video notes' transcripts, on this machine, through
/// one `TranscriptionEngine`. Best-effort and after the fact: the audio is only read; each
/// piece of a recording (`ChunkPlan`) is committed through `Store.setTranscript` as soon as
/// it is heard (so it is change-tracked, searched, synced and exported like any transcript),
/// with how far the draft got, and a run killed anywhere resumes there. A transcript the
/// user wrote or corrected is never replaced unless `force` says so. Apps go through
/// `Journal.transcribe`; its options, outcomes and progress are these.
public final class Transcriber {
    /// What to do.
    public struct Options: Sendable {
        /// The notes' language (a BCP 47 tag); nil lets the engine decide (an English-only
        /// model hears English).
        public var language: String?
        /// Replace the user's own transcripts and finished drafts too.
        public var force = false
        package var chunkLength = ChunkPlan.defaultLength
        package var chunkOverlap = ChunkPlan.defaultOverlap

        public init(language: String? = nil, force: Bool = false) {
            self.language = language
            self.force = force
        }
    }

    /// What happened to one note.
    public struct Outcome: Sendable {
        public enum Status: NamedCases, Sendable {
            case transcribed, skipped, failed

            /// The word `--json` prints.
            package var name: String {
                switch self {
                case .transcribed: "transcribed"
                case .skipped: "skipped"
                case .failed: "failed"
                }
            }
        }
        public var mediaID: String
        public var status: Status
        /// Why it was skipped or failed; empty when transcribed.
        public var reason: String
        /// The recording's length, the words and timed segments of its transcript now.
        public var seconds: Double
        public var words: Int
        public var segments: Int
    }

    /// Progress: the note being heard, how far into it, and how far through the run.
    public struct Progress: Sendable {
        public var note: Int
        public var notes: Int
        public var mediaID: String
        /// Seconds of this recording heard, of its length.
        public var heard: Double
        public var length: Double
        /// Seconds of audio heard in the whole run, of all the run has to hear (as far as known).
        public var runHeard: Double
        public var runLength: Double
    }

    private let store: Store
    private let engine: TranscriptionEngine
    private let decoder: AudioDecoder
    /// Called as each note begins and after each of its pieces is committed.
    package var progress: ((Progress) -> Void)?

    /// - Throws: `TranscribeError.noEngine` when the engine cannot start or ffmpeg is missing.
    package init(store: Store, engine: TranscriptionEngine, decoder: AudioDecoder? = nil) throws {
        self.store = store
        self.engine = engine
        self.decoder = try decoder ?? AudioDecoder()
        Self.removeLeftPieces(in: store)
        try engine.start()
    }

    /// Where decoded pieces are written: a folder of the store's own (0700), never the shared
    /// temporary folder, each piece 0600 (a piece is the user's voice, in plain WAV).
    static func piecesFolder(_ store: Store) -> String { store.blobs.root + "/tmp/audio" }

    /// Removes the pieces of runs that are gone (killed before they could), and only theirs:
    /// a piece's name carries its run's process id.
    static func removeLeftPieces(in store: Store) {
        let folder = piecesFolder(store)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            let parts = name.split(separator: "-")
            guard parts.count >= 3, parts[0] == "piece", let pid = Int32(parts[1]) else { continue }
            if pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH { unlink(folder + "/" + name) }
        }
    }

    /// A new private file for one decoded piece.
    private func newPiece() throws -> String {
        let folder = Self.piecesFolder(store)
        try FileIO.makeFolder(folder)
        let path = folder + "/piece-\(getpid())-\(UUID().uuidString.lowercased()).wav"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw TranscribeError(.engineFailed, "cannot create \(path): \(String(cString: strerror(errno)))") }
        close(fd)
        return path
    }

    deinit { engine.stop() }

    /// The engine, as it describes itself once started.
    package var info: EngineInfo { engine.info }

    /// Transcribes the notes named, in order. A note that cannot be transcribed is passed over
    /// with its reason; the others go on. Errors of the store itself are thrown.
    package func transcribe(_ mediaIDs: [String], options: Options = Options()) throws -> [Outcome] {
        var notes: [(media: Media, length: Double?)] = []
        var outcomes: [String: Outcome] = [:]
        for id in mediaIDs {
            guard let media = try store.media(id: id) else {
                outcomes[id] = Outcome(mediaID: id, status: .failed, reason: "no attachment with id \(id)", seconds: 0, words: 0, segments: 0)
                continue
            }
            if let reason = Self.reasonToLeave(media, options: options, info: engine.info) {
                outcomes[id] = Self.outcome(media, .skipped, reason)
                continue
            }
            notes.append((media, try? length(of: media)))
        }
        var runHeard = 0.0
        let runLength = notes.reduce(0) { $0 + ($1.length ?? 0) }
        for (index, note) in notes.enumerated() {
            do {
                outcomes[note.media.id] = try transcribe(note.media, options: options) { heard, length in
                    self.progress?(Progress(note: index + 1, notes: notes.count, mediaID: note.media.id, heard: heard, length: length,
                                            runHeard: runHeard + heard, runLength: runLength))
                }
            } catch let error as TranscribeError {
                outcomes[note.media.id] = Self.outcome(note.media, .failed, error.detail)
            }
            runHeard += note.length ?? 0
        }
        return mediaIDs.compactMap { outcomes[$0] }
    }

    /// Why a note is left alone, or nil to transcribe it.
    static func reasonToLeave(_ media: Media, options: Options, info: EngineInfo) -> String? {
        guard media.kind == .voice || media.kind == .video else {
            return "a \(media.kind.name), not a voice or video note"
        }
        if !options.force {
            if !media.hasMachineTranscript && !media.transcript.isEmpty {
                return "has a transcript of your own (--force replaces it)"
            }
            if media.hasMachineTranscript && media.transcribedTo == nil {
                return "already transcribed by \(media.transcriber) (--force does it again)"
            }
        }
        if let language = options.language, !info.languages.isEmpty, !info.supports(language) {
            return "\(info.transcriber) does not transcribe '\(language)' (it knows \(info.languages.prefix(8).joined(separator: ", "))); left for you"
        }
        return nil
    }

    private static func outcome(_ media: Media, _ status: Outcome.Status, _ reason: String) -> Outcome {
        Outcome(mediaID: media.id, status: status, reason: reason, seconds: media.duration ?? 0,
                words: media.transcript.split(whereSeparator: \.isWhitespace).count, segments: media.segments.count)
    }

    private func audioPath(of media: Media) throws -> String {
        let path = store.blobs.path(for: media.blobID)
        guard FileManager.default.fileExists(atPath: path) else {
            throw TranscribeError(.undecodable, "\(media.filename): its bytes are not on this machine yet (sync first)")
        }
        return path
    }

    private func length(of media: Media) throws -> Double {
        try decoder.duration(of: try audioPath(of: media), name: media.filename)
    }

    /// One note, piece by piece, each committed; resumes an unfinished draft of the same engine.
    private func transcribe(_ media: Media, options: Options, progress: (Double, Double) -> Void) throws -> Outcome {
        let audio = try audioPath(of: media)
        let length = try decoder.duration(of: audio, name: media.filename)
        let plan = ChunkPlan(duration: length, length: options.chunkLength, overlap: options.chunkOverlap)
        let transcriber = engine.info.transcriber
        var segments: [Segment] = [], done = 0.0
        if media.transcriber == transcriber, let reached = media.transcribedTo, !options.force {
            (segments, done) = (media.segments, reached)
        }
        let wav = try newPiece()
        defer { unlink(wav) }
        var current = media
        guard length >= 0.05 else {  // nothing to hear: a finished, empty draft
            current = try store.setTranscript(mediaID: media.id, text: "", segments: [], transcriber: transcriber)
            return Self.outcome(current, .transcribed, "")
        }
        progress(min(done, length), length)  // the note begins (or resumes): said before its first piece is heard
        for chunk in plan.chunks(after: done) {
            try decoder.extract(audio, name: media.filename, from: chunk.start, length: chunk.length, to: wav)
            let heard = try engine.transcribe(wav: wav, language: options.language)
            truncate(wav, 0)  // heard: its sound goes at once, not at the note's end
            segments += ChunkPlan.keep(heard, of: chunk, after: segments.last?.end ?? 0)
            current = try store.setTranscript(mediaID: media.id, text: "", segments: segments, transcriber: transcriber,
                                              transcribedTo: chunk.isLast ? nil : chunk.keepTo)
            progress(chunk.isLast ? length : min(chunk.keepTo, length), length)
        }
        return Outcome(mediaID: media.id, status: .transcribed, reason: "", seconds: length,
                       words: current.transcript.split(whereSeparator: \.isWhitespace).count, segments: current.segments.count)
    }
}
