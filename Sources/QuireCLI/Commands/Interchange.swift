import Foundation
import QuireExport
import QuireImport
import QuireStore

struct ImportCommand: Command {
    static let name = "import"
    static let abstract = "Import entries: Quire's JSON lines, a Day One export, a jrnl journal, a Markdown folder."
    static let help = """
        Usage: quire import FILE.jsonl [--journal NAME] [--json]
               quire import dayone EXPORT.zip|FOLDER [--journal NAME] [--json]
               quire import jrnl FILE [--journal NAME] [--json]
               quire import markdown FOLDER [--journal NAME] [--json]

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
          --journal NAME  put every entry in journal NAME
          --json          print {"entries", "added", "updated", "unchanged", "attachments",
                          "missing", "skipped"} (the last two are lists)
        """
    static let spec = Arguments.Spec(options: ["journal"], flags: ["json"])

    static func run(_ arguments: Arguments, context: Context) throws {
        let all = arguments.positionals
        let journal = arguments.value("journal")
        let summary: ImportSummary
        if all.count == 2 {
            let (format, path) = (all[0], all[1])
            let importers: [String: (Store, ProgressHandler?) throws -> ImportSummary] = [
                "dayone": { try DayOneImporter(path: path).run(into: $0, journal: journal, progress: $1) },
                "jrnl": { try JrnlImporter(path: path).run(into: $0, journal: journal, progress: $1) },
                "markdown": { try MarkdownFolderImporter(path: path).run(into: $0, journal: journal, progress: $1) },
            ]
            guard let importer = importers[format] else {
                throw CLIError.usage("unknown import format '\(format)' (formats: dayone, jrnl, markdown; or give a FILE.jsonl alone)")
            }
            guard FileManager.default.fileExists(atPath: path) else { throw CLIError.failure("\(path): no such file or folder", hint: nil) }
            let store = try context.openStore(create: true, cacheMebibytes: 64)
            summary = try importer(store, context.progress("importing"))
        } else {
            let path = try arguments.positionals("FILE.jsonl")[0]
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw CLIError.failure("cannot read \(path)", hint: nil)
            }
            let store = try context.openStore(create: true, cacheMebibytes: 64)
            summary = try store.importJSONLines(at: path, journal: journal, progress: context.progress("importing"))
        }
        if arguments.flag("json") {
            var json = JSONOutput()
            json.object([("entries", .int(summary.lines)), ("added", .int(summary.entriesAdded)), ("updated", .int(summary.entriesUpdated)),
                         ("unchanged", .int(summary.entriesUnchanged)), ("attachments", .int(summary.media)),
                         ("missing", .strings(summary.missing)), ("skipped", .strings(summary.skipped))])
            context.print(json.text)
            return
        }
        if context.stderrIsTerminal {
            context.printError("Imported \(summary.lines) entries: \(summary.entriesAdded) new, \(summary.entriesUpdated) updated, "
                               + "\(summary.entriesUnchanged) unchanged; \(summary.media) attachments.")
        }
        if !summary.skipped.isEmpty {
            context.printError("Passed over \(summary.skipped.count) notes without a date: " + Self.list(summary.skipped))
        }
        if !summary.missing.isEmpty {
            context.printError("Missing from the source (\(summary.missing.count)); their entries came in without them: " + Self.list(summary.missing))
        }
    }

    /// The first few names, then how many more.
    static func list(_ names: [String]) -> String {
        names.prefix(5).joined(separator: "; ") + (names.count > 5 ? "; and \(names.count - 5) more" : "")
    }
}

struct ExportCommand: Command {
    static let name = "export"
    static let abstract = "Export the journal: json (lossless dump), markdown (a file per entry), epub (a book)."
    static let help = """
        Usage: quire export json OUTDIR [filters]
               quire export markdown OUTDIR [filters] [--templates DIR]
               quire export epub OUT.epub [filters] [--title T] [--author A] [--cover IMAGE] [--with-audio] [--templates DIR]
        Filters: [--journal J]... [--tag T]... [--from DATE] [--to DATE]

        json: OUTDIR/entries.jsonl and OUTDIR/media/…, deterministic (entries sorted by date
        then id, keys in a fixed order): two stores hold the same journal exactly when their
        dumps are byte-identical. `quire import OUTDIR/entries.jsonl` reads it back.

        markdown: OUTDIR/YYYY/MM/YYYY-MM-DD-slug.md per entry with YAML front matter,
        attachments in OUTDIR/attachments/ (names made safe) linked relatively, each voice
        note's transcript under it, and OUTDIR/index.md by year and month.

        epub: an EPUB 3 book: a cover (generated, or --cover IMAGE), contents by year, month
        and entry, a chapter per month, photos embedded, every transcript printed.
          --with-audio   embed voice notes in formats every EPUB reader plays (MP3, M4A, Ogg
                         Opus), with read-along highlighting where the transcript is timed
          --title T      book title (default: the journal filtered on, else "Journal")
          --author A     author shown on the cover

        Exporting the same entries twice gives the same bytes, in any time zone.
          --templates DIR  use DIR/markdown/… and DIR/epub/… instead of the built-in templates,
                           file by file (copy them from the templates/ folder of the source)
          --json           print a summary as JSON
        """
    static let spec = Arguments.Spec(options: Options.filterSpec.union(["templates", "title", "author", "cover"]),
                                     repeatable: ["journal", "tag"], flags: ["json", "with-audio"])

    static func run(_ arguments: Arguments, context: Context) throws {
        let positionals = try arguments.positionals("FORMAT", "OUTPUT")
        let filter = try Options.filter(arguments)
        let (format, output) = (positionals[0], positionals[1])
        let bookOnly = ["title", "author", "cover"].filter { arguments.value($0) != nil } + (arguments.flag("with-audio") ? ["with-audio"] : [])
        if format != "epub", let option = bookOnly.first {
            throw CLIError.usage("--\(option) applies to `export epub` only")
        }
        if format == "json", arguments.value("templates") != nil {
            throw CLIError.usage("--templates applies to `export markdown` and `export epub`")
        }
        var json = JSONOutput()
        switch format {
        case "json":
            let store = try context.openStore()
            let summary = try store.exportJSON(to: output, filter: filter, progress: context.progress("exporting"))
            json.object([("entries", .int(summary.entries)), ("media_files", .int(summary.mediaFiles))])
        case "markdown":
            let templates = try TemplateSet(overrides: arguments.value("templates"))
            let store = try context.openStore()
            let summary = try MarkdownExporter(store: store, filter: filter, templates: templates)
                .write(to: output, progress: context.progress("exporting"))
            json.object([("entries", .int(summary.entries)), ("attachments", .int(summary.attachments))])
        case "epub":
            guard output.hasSuffix(".epub") || !FileManager.default.fileExists(atPath: output) else {
                throw CLIError.usage("\(output) exists and is not an .epub file; name the book OUT.epub")
            }
            var options = EPUBOptions()
            options.filter = filter
            options.title = arguments.value("title")
            options.author = arguments.value("author")
            options.cover = arguments.value("cover")
            options.withAudio = arguments.flag("with-audio")
            let templates = try TemplateSet(overrides: arguments.value("templates"))
            let store = try context.openStore()
            let summary = try EPUBExporter(store: store, options: options, templates: templates)
                .write(to: output, progress: context.progress("writing book"))
            json.object([("entries", .int(summary.entries)), ("chapters", .int(summary.chapters)), ("images", .int(summary.images)),
                         ("recordings", .int(summary.recordings)), ("overlays", .int(summary.overlays)), ("bytes", .int(Int(summary.bytes)))])
            if !arguments.flag("json") && context.stderrIsTerminal {
                context.printError("Wrote \(output): \(summary.entries) entries in \(summary.chapters) chapters, \(Format.size(summary.bytes)).")
            }
        default:
            throw CLIError.usage("unknown export format '\(format)' (formats: json, markdown, epub)")
        }
        if arguments.flag("json") { context.print(json.text) }
    }
}
