import Foundation
import QuireStore

/// The one swap point for speech-to-text: audio in (a 16 kHz mono WAV file, as
/// `AudioDecoder` cuts it), timed segments out, a language hint, and an availability check
/// with a reason. `Transcriber` and every caller see only this; `WorkerEngine` (a command
/// speaking JSON lines) is the real one, and tests may bring their own.
public protocol TranscriptionEngine: AnyObject {
    /// What the engine is, once started: name, model, languages (`start` fills it in).
    var info: EngineInfo { get }
    /// Starts the engine (loads its model).
    /// - Throws: `TranscribeError.noEngine` with the reason it cannot run.
    func start() throws
    /// Transcribes one WAV file; times are seconds from its start.
    /// - Throws: `TranscribeError.engineFailed` for this file (the engine goes on).
    func transcribe(wav path: String, language: String?) throws -> [EngineSegment]
    /// Stops the engine.
    func stop()
}

/// What an engine says about itself.
public struct EngineInfo: Equatable, Sendable {
    /// The engine and its version, e.g. `faster-whisper 1.2.1`.
    public var engine: String
    /// The model, e.g. `tiny.en`.
    public var model: String
    /// The languages it transcribes (BCP 47 primary tags); empty until started.
    public var languages: [String]

    public init(engine: String, model: String, languages: [String]) {
        self.engine = engine
        self.model = model
        self.languages = languages
    }

    /// What a machine draft records as its transcriber: `faster-whisper 1.2.1 tiny.en`.
    package var transcriber: String { model.isEmpty ? engine : engine + " " + model }

    /// Whether the engine transcribes `language` (its primary subtag, `es` of `es-MX`).
    package func supports(_ language: String) -> Bool {
        let primary = language.split(separator: "-").first.map { String($0).lowercased() } ?? ""
        return languages.contains(primary)
    }
}

/// One stretch of speech an engine heard, with its words when the engine times them (each a
/// `Segment` of one word, keeping the engine's spacing: a leading space between words).
public struct EngineSegment: Equatable, Sendable {
    public var start: Double
    public var end: Double
    public var text: String
    public var words: [Segment]

    public init(start: Double, end: Double, text: String, words: [Segment] = []) {
        self.start = start
        self.end = end
        self.text = text
        self.words = words
    }
}
