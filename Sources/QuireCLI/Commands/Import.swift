import Foundation
import QuireKit

struct ImportCommand: Command {
    static let name = "import"
    static let abstract = "Import entries: Quire's JSON lines, a Day One export, a jrnl journal, a Markdown folder."
    static let usage = """
        Usage: quire import FILE.jsonl [--journal NAME] [--transcribe] [--json]
               quire import dayone EXPORT.zip|FOLDER [--journal NAME] [--transcribe] [--json]
               quire import jrnl FILE [--journal NAME] [--json]
               quire import markdown FOLDER [--journal NAME] [--transcribe] [--json]

        FILE.jsonl: one JSON object per line (see CLI.md, "Interchange"). Media paths are
        relative to the file's folder; absolute paths and paths leading outside it are refused.
        dayone: Day One's JSON export, the zip as it came or unpacked. Each journal file
        becomes a journal; photos, voice notes (with transcripts), videos and PDFs come in
        where the text shows them; times keep the offset of the entry's time zone; weather
        becomes the text's last line.
        jrnl: `jrnl --export json` or jrnl's plain-text journal; its times are read in this
        machine's time zone, its @tags become tags.
        markdown: what `quire export markdown` wrote (read back exactly; an edited file comes
        back as an edit of its entry), or Obsidian notes: daily notes YYYY-MM-DD.md or notes
        with a date in their front matter, with #tags, ![[embeds]] and ![](paths) inside
        FOLDER. Other notes are passed over and listed.

        Every import is one transaction: if anything is wrong (a damaged zip, a date that
        does not parse, a path that leaves the folder, a symbolic link) the command names the
        file and the entry or line, and the store is left exactly as it was. Importing the same
        source twice changes nothing. Attachments the source refers to but lacks are named at
        the end; their entries come in all the same.
        With --transcribe, the voice and video notes that came in without a transcript are
        then heard on this machine, as `quire transcribe` does (the import is saved first,
        whatever happens; a note not heard is named, and `quire transcribe --pending` hears
        it later).
        """
    static let options: [OptionSpec] = [
        .value("journal", "NAME", "put every entry in journal NAME; case ignored where it exists"),
        .flag("json", "print {\"entries\", \"added\", \"updated\", \"unchanged\", \"attachments\",\n\"missing\", \"skipped\"} (the last two are lists); with --transcribe also\n\"transcribed\", the notes heard"),
        .flag("transcribe", "hear the voice and video notes that came in without a transcript"),
        .value("language", "TAG", "with --transcribe: the notes' language (en, es-MX…)"),
        .value("engine", "NAME", "with --transcribe: the engine (\(Engines.names.joined(separator: ", ")))"),
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        let all = arguments.positionals
        // The journal a person typed, as the store writes it (`travel` for Travel).
        func journal(in store: Store) throws -> String? { try arguments.value("journal").map { try store.journalName(typed: $0) } }
        let transcribe = try Hearing.asked(arguments)
        var awaiting: Set<String> = []
        let summary: ImportSummary
        let store: Store
        if all.count == 2 {
            let (format, path) = (all[0], all[1])
            guard let importer = ImportFormat(name: format), importer != .jsonLines else {
                throw CLIError.usage("unknown import format '\(format)' (formats: dayone, jrnl, markdown; or give a FILE.jsonl alone)")
            }
            guard FileManager.default.fileExists(atPath: path) else { throw CLIError.failure("\(path): no such file or folder", hint: nil) }
            store = try context.openStore(create: true, cacheMebibytes: 64)
            if transcribe { awaiting = Set(try store.pendingTranscriptions().map(\.id)) }
            do {
                summary = try Journal(store: store).importEntries(from: path, format: importer, journal: try journal(in: store),
                                                                  progress: context.progress("importing"))
            } catch let error as ImportError {
                throw Self.withGuess(error, path: path, asked: format)
            }
        } else {
            // `quire import jrnl` forgot the file: the format's name is not a missing file.
            if all.count == 1, ["dayone", "jrnl", "markdown"].contains(all[0]), !FileManager.default.fileExists(atPath: all[0]) {
                let what = all[0] == "markdown" ? "FOLDER" : "FILE"
                throw CLIError.usage("missing the \(all[0]) \(what.lowercased()) to import: quire import \(all[0]) \(what)")
            }
            let path = try arguments.positionals("FILE.jsonl")[0]
            guard FileManager.default.fileExists(atPath: path) else { throw CLIError.failure("\(path): no such file or folder", hint: nil) }
            let isFolder = ImportFormat.isFolder(path)
            let what = isFolder ? "is a folder, not a file of Quire's JSON lines" : "is not Quire's JSON lines"
            if let guess = ImportFormat.guess(path), guess != .jsonLines {
                throw CLIError.failure("\(path) \(what); it looks like a \(guess.description(of: path))", hint: "did you mean `\(guess.command(for: path))`?")
            }
            if isFolder {
                throw CLIError.failure("\(path) \(what)", hint: "name the format: quire import dayone|jrnl|markdown \(path)")
            }
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw CLIError.failure("cannot read \(path)", hint: "check that the file is yours to read (permission denied)")
            }
            store = try context.openStore(create: true, cacheMebibytes: 64)
            if transcribe { awaiting = Set(try store.pendingTranscriptions().map(\.id)) }
            summary = try Journal(store: store).importEntries(from: path, format: .jsonLines, journal: try journal(in: store),
                                                              progress: context.progress("importing"))
        }
        // What this import brought in without a transcript: awaiting now and not before.
        var heard: Result<Journal.TranscriptionReport, TranscribeError>?
        if transcribe {
            let unheard = try store.pendingTranscriptions().map(\.id).filter { !awaiting.contains($0) }
            heard = try Hearing.hear(unheard, journal: Journal(store: store), arguments: arguments, context: context)
        }
        try show(summary, transcribed: heard.map { (try? $0.get().transcribed.count) ?? 0 }, arguments: arguments, context: context)
        if let heard { try Hearing.tell(heard, what: "imported", context: context) }
    }

    private static func show(_ summary: ImportSummary, transcribed: Int?, arguments: Arguments, context: Context) throws {
        if arguments.flag("json") {
            var json = JSONOutput()
            json.object([("entries", .int(summary.lines)), ("added", .int(summary.entriesAdded)), ("updated", .int(summary.entriesUpdated)),
                         ("unchanged", .int(summary.entriesUnchanged)), ("attachments", .int(summary.media)),
                         ("missing", .strings(summary.missing)), ("skipped", .strings(summary.skipped))]
                        + (transcribed.map { [("transcribed", JSONOutput.Value.int($0))] } ?? []))
            context.print(json.text)
            return
        }
        if context.stderrIsTerminal {
            context.printError("Imported \(Format.count(summary.lines, "entry", "entries")): \(summary.entriesAdded) new, \(summary.entriesUpdated) updated, "
                               + "\(summary.entriesUnchanged) unchanged; \(Format.count(summary.media, "attachment")).")
        }
        if !summary.skipped.isEmpty {
            context.printError("Passed over \(Format.count(summary.skipped.count, "note")) without a date (a name like 2025-03-01.md, or created: or date: in the front matter): " + Self.list(summary.skipped))
        }
        if !summary.missing.isEmpty {
            context.printError("Missing from the source (\(summary.missing.count)); their entries came in without them: " + Self.list(summary.missing))
        }
    }

    /// An importer's refusal, with the importer that fits better where the source tells.
    static func withGuess(_ error: ImportError, path: String, asked: String) -> Error {
        guard let guess = ImportFormat.guess(path), guess.name != asked else { return error }
        return CLIError.failure(Messages.text(of: error) + " (it looks like a \(guess.description(of: path)))",
                                hint: "did you mean `\(guess.command(for: path))`?")
    }

    /// The first few names, then how many more.
    static func list(_ names: [String]) -> String {
        names.prefix(5).joined(separator: "; ") + (names.count > 5 ? "; and \(names.count - 5) more" : "")
    }
}
