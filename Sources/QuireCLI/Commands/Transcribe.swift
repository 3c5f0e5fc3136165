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
        (./scripts/install-whisper: faster-whisper with Whisper tiny.en, which hears
        --language en, and the multilingual Whisper base, which hears the others and tells
        a note's language when --language is not given).
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
        let options = try Hearing.options(arguments)
        let journal = Journal(store: try context.openStore())
        let engine = try Hearing.engine(arguments, context: context)
        let report = arguments.flag("pending")
            ? try journal.transcribePending(options: options, engine: engine, environment: context.environment, progress: Hearing.progress(context))
            : try journal.transcribe(try named.map { try Options.mediaID($0, in: journal.store) }, options: options, engine: engine,
                                     environment: context.environment, progress: Hearing.progress(context))
        SyncSession.endProgress(context)
        if report.outcomes.isEmpty, arguments.flag("pending"), !arguments.flag("json") {
            context.printError("Nothing to transcribe: every voice and video note has a transcript (--force hears one again).")
            return
        }
        Hearing.lines(report, json: arguments.flag("json")).forEach(context.print)
        if !arguments.flag("json") && context.stderrIsTerminal && !report.outcomes.isEmpty {
            context.printError("\(Format.count(report.transcribed.count, "note")) transcribed by \(report.transcriber).")
        }
        if !report.failed.isEmpty {
            throw CLIError.failure("\(Format.count(report.failed.count, "note")) could not be transcribed (named above)", hint: nil)
        }
    }

    private static func listEngines(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        for engine in Engines.availability(environment: context.environment) {
            if arguments.flag("json") {
                var json = JSONOutput()
                json.object([("engine", .string(engine.name)), ("available", .bool(engine.isAvailable)), ("version", .string(engine.info.engine)),
                             ("model", .string(engine.info.model)), ("languages", .strings(engine.info.languages)),
                             ("reason", .string(engine.reason ?? ""))])
                context.print(json.text)
            } else if let reason = engine.reason {
                context.print("\(engine.name): not available: \(reason); \(Engines.installHint)")
            } else {
                let languages = engine.info.languages.count > 10 ? "\(engine.info.languages.count) languages" : engine.info.languages.joined(separator: ", ")
                context.print("\(engine.name): available: \(engine.info.transcriber) (\(languages))")
            }
        }
    }
}
