import Foundation

/// Why a transcription did not happen; `detail` is one line a person can act on.
public struct TranscribeError: Error, CustomStringConvertible {
    public enum Kind: Sendable {
        /// No engine can run here (not installed, model missing): nothing changed.
        case noEngine
        /// The recording cannot be decoded (not audio, damaged, no ffmpeg).
        case undecodable
        /// The engine does not transcribe the note's language.
        case unsupportedLanguage
        /// The engine failed on this recording.
        case engineFailed
        /// The user's own transcript is there and `force` was not given.
        case userTranscript
    }

    public var kind: Kind
    public var detail: String

    package init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { detail }
}
