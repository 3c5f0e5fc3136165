import Foundation
import QuireKit

struct TranscribeCommand: Command {
    static let name = "transcribe"
    static let abstract = "Transcribe voice and video notes on this machine (a draft you may correct)."
    static let usage = """
        Usage: quire transcribe [MEDIA_ID…] [--pending] [--language TAG] [--force] [--engine NAME] [--json]
               quire transcribe --engines [--json]

        Hears the named voice or video notes, or with --pending every one that has no
        transcript (and any draft a killed run left unfinished), with a speech-to-text engine
        on this machine: the audio never leaves it. The text and its timed segments become the
        note's transcript, a draft marked as the machine's: searched, synced and exported like
        any, and yours to correct with `quire transcript`. A transcript you wrote or corrected
        is never replaced unless --force says so. Long recordings are heard a minute at a time,
        each minute saved as it is done; a run stopped anywhere resumes where it was.
        A note that cannot be decoded is named and passed over (exit 1 once the rest are
        done); one in a language the engine does not know is left for you, and said so.
        With no engine installed nothing changes: exit 1, with how to install one
        (./scripts/install-whisper: faster-whisper with Whisper tiny.en, English).
        """
    static let options: [OptionSpec] = [
        .flag("pending", "every voice and video note without a transcript"),
        .value("language", "TAG", "the notes' language (en, es-MX…); without it the engine decides"),
        .flag("force", "replace transcripts you wrote and finished drafts too"),
        .value("engine", "NAME", "the engine (\(Engines.names.joined(separator: ", ")); the first is the default)"),
        .flag("engines", "list the engines and whether each can run here, and why not"),
        .flag("json", "one line per note: {\"media\", \"status\", \"reason\", \"seconds\", \"words\", \"segments\"}"),
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        if arguments.flag("engines") { return try listEngines(arguments, context: context) }
        let named = arguments.positionals
        guard !named.isEmpty || arguments.flag("pending") else { throw CLIError.usage("name the notes to transcribe, or give --pending") }
        guard named.isEmpty || !arguments.flag("pending") else { throw CLIError.usage("give note ids or --pending, not both") }
        if let language = arguments.value("language"), !isLanguageTag(language) {
            throw CLIError.usage("--language takes a language tag such as en or es-MX, not '\(language)'")
        }
        let store = try context.openStore()
        let ids = try arguments.flag("pending") ? store.pendingTranscriptions().map(\.id) : named.map { try Options.mediaID($0, in: store) }
        let engine = try Engines.named(arguments.value("engine") ?? Engines.names[0], environment: context.environment)
        let transcriber = try Transcriber(store: store, engine: engine)
        let started = Date()
        if context.stderrIsTerminal {
            transcriber.progress = { p in
                let left = TransferProgress.timeLeft(since: started, done: p.runHeard, of: p.runLength) ?? ""
                SyncSession.showProgressLine("hearing note \(p.note)/\(p.notes): \(clock(p.heard)) of \(clock(p.length))" + left)
            }
        }
        let options = Transcriber.Options(language: arguments.value("language"), force: arguments.flag("force"))
        let outcomes = try transcriber.transcribe(ids, options: options)
        SyncSession.endProgress(context)
        for outcome in outcomes {
            if arguments.flag("json") {
                var json = JSONOutput()
                json.object([("media", .string(outcome.mediaID)), ("status", .string(outcome.status.rawValue)), ("reason", .string(outcome.reason)),
                             ("seconds", .number((outcome.seconds * 1000).rounded() / 1000)), ("words", .int(outcome.words)), ("segments", .int(outcome.segments))])
                context.print(json.text)
            } else {
                let what = outcome.status == .transcribed
                    ? "\(Format.count(outcome.words, "word")) in \(Format.count(outcome.segments, "timed segment")) (\(clock(outcome.seconds)))"
                    : outcome.reason
                context.print("\(Format.short(outcome.mediaID)): \(outcome.status.rawValue): \(what)")
            }
        }
        if !arguments.flag("json") && context.stderrIsTerminal {
            context.printError("\(Format.count(outcomes.filter { $0.status == .transcribed }.count, "note")) transcribed by \(transcriber.info.transcriber).")
        }
        let failed = outcomes.filter { $0.status == .failed }
        if !failed.isEmpty {
            throw CLIError.failure("\(Format.count(failed.count, "note")) could not be transcribed (named above)", hint: nil)
        }
    }

    private static func listEngines(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        for name in Engines.names {
            let engine = try Engines.named(name, environment: context.environment)
            var reason = ""
            do {
                _ = try AudioDecoder(environment: context.environment)
                try engine.start()
                engine.stop()
            } catch let error as TranscribeError {
                reason = error.detail
            }
            if arguments.flag("json") {
                var json = JSONOutput()
                json.object([("engine", .string(name)), ("available", .bool(reason.isEmpty)), ("version", .string(engine.info.engine)),
                             ("model", .string(engine.info.model)), ("languages", .strings(engine.info.languages)),
                             ("reason", .string(reason))])
                context.print(json.text)
            } else if reason.isEmpty {
                let languages = engine.info.languages.count > 10 ? "\(engine.info.languages.count) languages" : engine.info.languages.joined(separator: ", ")
                context.print("\(name): available: \(engine.info.transcriber) (\(languages))")
            } else {
                context.print("\(name): not available: \(reason); \(Engines.installHint)")
            }
        }
    }

    private static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    private static func clock(_ seconds: Double) -> String {
        let s = Int(max(0, min(seconds, 1e7)).rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
