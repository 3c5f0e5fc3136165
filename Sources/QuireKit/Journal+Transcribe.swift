import Foundation
import QuireStore
import QuireTranscribe

/// Voice and video notes heard on this machine: a machine draft of each transcript, filled in
/// after the note is saved, through one `TranscriptionEngine` (the swap point).
extension Journal {
    /// What a transcription run did.
    public struct TranscriptionReport: Sendable {
        /// The engine and model that heard the notes (`faster-whisper 1.2.1 tiny.en`).
        public var transcriber: String
        /// One outcome per note asked for, in the order asked.
        public var outcomes: [Transcriber.Outcome]

        package init(transcriber: String, outcomes: [Transcriber.Outcome]) {
            self.transcriber = transcriber
            self.outcomes = outcomes
        }

        public var transcribed: [Transcriber.Outcome] { outcomes.filter { $0.status == .transcribed } }
        public var failed: [Transcriber.Outcome] { outcomes.filter { $0.status == .failed } }
    }

    /// The voice and video notes a transcription run with `pending` takes: those with no
    /// transcript at all, and machine drafts a stopped run left unfinished.
    public func notesAwaitingTranscription() throws -> [Media] {
        try store.pendingTranscriptions()
    }

    /// Hears the notes `mediaIDs` names (ids as stored, see `Store.resolveMediaID`) with
    /// `engine`, or with the default engine found through `environment` (`Engines`; its
    /// model chosen for `options.language`), and
    /// writes each transcript as a machine draft. A note that cannot be heard (undecodable,
    /// a language the engine lacks, a transcript of the user's own without `force`) is
    /// passed over with its reason; the others go on. `progress` is called after each piece.
    /// - Throws: `TranscribeError.noEngine` when no engine can run (nothing changed), and
    ///   `StoreError` for the store's own failures.
    public func transcribe(_ mediaIDs: [String], options: Transcriber.Options = Transcriber.Options(),
                           engine: TranscriptionEngine? = nil,
                           environment: [String: String] = ProcessInfo.processInfo.environment,
                           progress: ((Transcriber.Progress) -> Void)? = nil) throws -> TranscriptionReport {
        let transcriber = try Transcriber(store: store, engine: try engine ?? Engines.named(Engines.names[0], language: options.language, environment: environment),
                                          decoder: try AudioDecoder(environment: environment))
        transcriber.progress = progress
        let outcomes = try transcriber.transcribe(mediaIDs, options: options)
        return TranscriptionReport(transcriber: transcriber.info.transcriber, outcomes: outcomes)
    }

    /// Hears every note awaiting a transcript (`notesAwaitingTranscription`); the same as
    /// `transcribe(_:)` otherwise. With none waiting, no engine is started.
    public func transcribePending(options: Transcriber.Options = Transcriber.Options(), engine: TranscriptionEngine? = nil,
                                  environment: [String: String] = ProcessInfo.processInfo.environment,
                                  progress: ((Transcriber.Progress) -> Void)? = nil) throws -> TranscriptionReport {
        let ids = try notesAwaitingTranscription().map(\.id)
        guard !ids.isEmpty else { return TranscriptionReport(transcriber: "", outcomes: []) }
        return try transcribe(ids, options: options, engine: engine, environment: environment, progress: progress)
    }
}
