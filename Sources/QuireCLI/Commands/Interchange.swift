import Foundation
import QuireStore

struct ImportCommand: Command {
    static let name = "import"
    static let abstract = "Import entries from a JSON-lines file (the interchange format)."
    static let help = """
        Usage: quire import FILE.jsonl [--json]

        One JSON object per line (see CLI.md, "Interchange"). Media paths are relative to the
        file's folder; absolute paths and paths leading outside it are refused. An entry whose
        id exists is updated; importing the same file twice changes nothing.
        Atomic: the whole file is imported in one transaction. If any line is malformed or a
        media file is missing, the command names the line and the store is left exactly as it was.
          --json   print {"lines", "added", "updated", "unchanged", "media"}
        """
    static let spec = Arguments.Spec(flags: ["json"])

    static func run(_ arguments: Arguments, context: Context) throws {
        let path = try arguments.positionals("FILE.jsonl")[0]
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CLIError.failure("cannot read \(path)", hint: nil)
        }
        let store = try context.openStore(create: true, cacheMebibytes: 64)
        let summary = try store.importJSONLines(at: path, progress: context.progress("importing"))
        if arguments.flag("json") {
            var json = JSONOutput()
            json.object([("lines", .int(summary.lines)), ("added", .int(summary.entriesAdded)), ("updated", .int(summary.entriesUpdated)),
                         ("unchanged", .int(summary.entriesUnchanged)), ("media", .int(summary.media))])
            context.print(json.text)
        } else if context.stderrIsTerminal {
            context.printError("Imported \(summary.lines) entries: \(summary.entriesAdded) new, \(summary.entriesUpdated) updated, \(summary.entriesUnchanged) unchanged.")
        }
    }
}

struct ExportCommand: Command {
    static let name = "export"
    static let abstract = "Export the journal: json (the lossless interchange dump)."
    static let help = """
        Usage: quire export json OUTDIR [--journal J]... [--tag T]... [--from DATE] [--to DATE]

        json: OUTDIR/entries.jsonl and OUTDIR/media/…, deterministic (entries sorted by date
        then id, keys in a fixed order): two stores hold the same journal exactly when their
        dumps are byte-identical. `quire import OUTDIR/entries.jsonl` reads it back.
        """
    static let spec = Arguments.Spec(options: Options.filterSpec, repeatable: ["journal", "tag"], flags: ["json"])

    static func run(_ arguments: Arguments, context: Context) throws {
        let positionals = try arguments.positionals("FORMAT", "OUTDIR")
        guard positionals[0] == "json" else {
            throw CLIError.usage("unknown export format '\(positionals[0])' (this quire exports: json)")
        }
        let filter = try Options.filter(arguments)
        let store = try context.openStore()
        let summary = try store.exportJSON(to: positionals[1], filter: filter, progress: context.progress("exporting"))
        if arguments.flag("json") {
            var json = JSONOutput()
            json.object([("entries", .int(summary.entries)), ("media_files", .int(summary.mediaFiles))])
            context.print(json.text)
        }
    }
}
