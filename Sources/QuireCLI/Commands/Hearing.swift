import Foundation
import QuireKit

/// What `transcribe`, and `attach` and `import` with `--transcribe`, share: the options that
/// shape a run, its progress line on a terminal, and how its outcomes are printed.
enum Hearing {
    /// `--language` and `--force` as a transcriber takes them.
    /// - Throws: a usage error for a language that is not a BCP 47 tag.
    static func options(_ arguments: Arguments) throws -> Transcriber.Options {
        if let language = arguments.value("language"), !isLanguageTag(language) {
            throw CLIError.usage("--language takes a language tag such as en or es-MX, not '\(language)'")
        }
        return Transcriber.Options(language: arguments.value("language"), force: arguments.flag("force"))
    }

    /// Whether `attach` or `import` was asked to hear what it saves (`--transcribe`), its
    /// `--language` and `--engine` checked first.
    /// - Throws: a usage error for those given without `--transcribe`, or a bad language tag.
    static func asked(_ arguments: Arguments) throws -> Bool {
        guard arguments.flag("transcribe") else {
            if let option = ["language", "engine"].first(where: { arguments.value($0) != nil }) {
                throw CLIError.usage("--\(option) goes with --transcribe")
            }
            return false
        }
        _ = try options(arguments)
        return true
    }

    /// The engine `--engine` names, or the default one.
    static func engine(_ arguments: Arguments, context: Context) throws -> TranscriptionEngine {
        try Engines.named(arguments.value("engine") ?? Engines.names[0], language: arguments.value("language"), environment: context.environment)
    }

    /// A progress line on a terminal (note n of N, how far into it, time left); nil in pipes.
    static func progress(_ context: Context) -> ((Transcriber.Progress) -> Void)? {
        guard context.stderrIsTerminal else { return nil }
        SyncSession.showProgressLine("starting the speech-to-text engine…")
        let started = Date()
        return { p in
            let left = TransferProgress.timeLeft(since: started, done: p.runHeard, of: p.runLength) ?? ""
            SyncSession.showProgressLine("hearing note \(p.note)/\(p.notes): \(clock(p.heard)) of \(clock(p.length))" + left)
        }
    }

    /// One line per note, as JSON or for a person.
    static func lines(_ report: Journal.TranscriptionReport, json: Bool) -> [String] {
        report.outcomes.map { outcome in
            if json {
                var line = JSONOutput()
                line.object([("media", .string(outcome.mediaID)), ("status", .string(outcome.status.name)), ("reason", .string(outcome.reason)),
                             ("seconds", .number((outcome.seconds * 1000).rounded() / 1000)), ("words", .int(outcome.words)),
                             ("segments", .int(outcome.segments))])
                return line.text
            }
            let what = outcome.status == .transcribed
                ? "\(Format.count(outcome.words, "word")) in \(Format.count(outcome.segments, "timed segment")) (\(clock(outcome.seconds)))"
                : outcome.reason
            return "\(Format.short(outcome.mediaID)): \(outcome.status.name): \(what)"
        }
    }

    /// After `attach` or `import` saved what came in: hears `mediaIDs`. A failure to hear is
    /// returned, not thrown: what was saved stays saved, and `tell` says it after the rest.
    /// - Throws: the store's own errors.
    static func hear(_ mediaIDs: [String], journal: Journal, arguments: Arguments, context: Context) throws
        -> Result<Journal.TranscriptionReport, TranscribeError> {
        guard !mediaIDs.isEmpty else { return .success(Journal.TranscriptionReport(transcriber: "", outcomes: [])) }
        defer { SyncSession.endProgress(context) }
        do {
            return .success(try journal.transcribe(mediaIDs, options: try options(arguments), engine: try engine(arguments, context: context),
                                                   environment: context.environment, progress: progress(context)))
        } catch let error as TranscribeError {
            return .failure(error)
        }
    }

    /// Says on stderr what `hear` did (on a terminal every note; in a pipe the ones not heard),
    /// and fails (exit 1) when a note was not heard, saying that `what` was saved all the same
    /// and how to hear it later.
    static func tell(_ heard: Result<Journal.TranscriptionReport, TranscribeError>, what: String, context: Context) throws {
        switch heard {
        case .failure(let error):
            throw CLIError.failure("\(what), but not transcribed: \(error.detail)",
                                   hint: (error.kind == .noEngine ? Engines.installHint + "; then " : "") + "`quire transcribe --pending` hears it")
        case .success(let report):
            for (line, outcome) in zip(lines(report, json: false), report.outcomes) where outcome.status != .transcribed || context.stderrIsTerminal {
                context.printError(line)
            }
            if !report.failed.isEmpty {
                throw CLIError.failure("\(what), but \(Format.count(report.failed.count, "note")) could not be transcribed (named above)", hint: nil)
            }
        }
    }

    static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(max(0, min(seconds, 1e7)).rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
