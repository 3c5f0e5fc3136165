import Foundation
import QuireKit
import QuireSupport

struct ExportCommand: Command {
    static let name = "export"
    /// SQLite's page cache for an export: each entry is read once per pass, so a small cache
    /// costs nothing, and it also bounds the sorter that orders entries by their wall clock
    /// (at 16 MiB, the two took 30 MiB of a 10k-entry book's peak).
    static let cacheMebibytes = 4
    static let abstract = "Export the journal: json (lossless dump), markdown (a file per entry), epub or pdf (a book)."
    static let usage = """
        Usage: quire export json OUTDIR [filters]
               quire export markdown OUTDIR [filters] [--lang TAG] [--templates DIR]
               quire export epub OUT.epub [filters] [--lang TAG] [--title T] [--author A] [--cover IMAGE] [--with-audio] [--templates DIR]
               quire export pdf OUT.pdf [filters] [--lang TAG] [--title T] [--author A] [--cover IMAGE] [--page-size SIZE] [--no-photos]
                                        [--print [--bleed LENGTH] [--color cmyk|gray] [--full-fonts]]
               quire export cover OUT.pdf (--pages N | --for INTERIOR.pdf) [--page-size SIZE] [--paper white|cream] [--bleed LENGTH]
                                          [--title T] [--author A] [--cover IMAGE] [--color cmyk|gray] [--full-fonts]
               quire export templates DIR
        Filters: [--journal J]... [--tag T]... [--from DATE] [--to DATE]

        json: OUTDIR/entries.jsonl and OUTDIR/media/…, deterministic (entries sorted by date
        then id, keys in a fixed order): two stores hold the same journal exactly when their
        dumps are byte-identical. `quire import OUTDIR/entries.jsonl` reads it back.

        markdown: OUTDIR/YYYY/MM/YYYY-MM-DD-slug.md per entry with YAML front matter,
        attachments in OUTDIR/attachments/ (names made safe) linked relatively, each voice
        note's transcript under it, and OUTDIR/index.md by year and month.

        epub: an EPUB 3 book: a cover (generated, or --cover IMAGE), contents by year, month
        and entry, a chapter per month, photos embedded, every transcript printed.

        pdf: a book to print, typeset by Quire (Pango and cairo): a cover, a title page,
        contents by year and month with page numbers, a calendar opening each year, each month
        from a right-hand page, photos whole, voice notes as their timed transcripts, fonts
        embedded; bookmarks year → month → entry. --page-size a5 (the default), a4, letter,
        6x9in or WxH with mm, cm, in or pt (e.g. 150x210mm).

        pdf --print: the interior for a print-on-demand service (KDP, Lulu, Blurb…): PDF/X-3
        with Ghostscript's colour profiles (apt install libgs-common), trimmed at --page-size
        (6x9in, 5.5x8.5in, a5…), --bleed LENGTH around it (0 by default; 0.125in where photos
        reach the edge), colour for the press (--color cmyk, or gray for a black-and-white
        interior), trim and bleed boxes on every page, an inside margin that widens with the
        page count, photos brought down to 300 ppi, no cover, links or bookmarks, an even
        page count. A photo printed at under 300 ppi is named in a warning. Fonts hold the
        glyphs the book uses; --full-fonts embeds each whole, for printers that ask (the file
        grows by the fonts: some 20 MB for a CJK face).

        --lang TAG (BCP 47: ru, es, ja, ar, he, de, fr, en-GB, pt-BR…) sets the language of
        what Quire writes around the entries in markdown, epub and pdf: month names, dates and
        times as CLDR has them (always the Gregorian calendar), its own words ("Contents",
        "Voice note"), and for Arabic, Hebrew or Persian a right-to-left book (bound on the
        right). Without it: the language most entries are written in, where their text tells
        it, else LC_ALL, LC_MESSAGES or LANG, else English. --json reports the one chosen.

        cover: the cover of the printed book, for the same service: back, spine and front on
        one PDF/X-3 sheet, 2 × trim + spine + 2 × bleed wide (--bleed 0.125in by default). The
        spine is --pages (the interior's count, as `export pdf --print` reported it; or --for
        INTERIOR.pdf, that file, whose count and trim size are read from it) times the
        paper's thickness (KDP's figures: white 0.002252 in a page, cream 0.0025 in); title and
        author run down the spine from 0.25 in wide. --cover IMAGE covers the front, else a field
        of colour; a white box on the back is left for the barcode.

        templates: writes the built-in templates (markdown/…, epub/…) into DIR, to change
        and give back with --templates DIR; files already in DIR are left alone.

        Exporting the same entries twice gives the same bytes, in any time zone. What an
        export writes is the journal in plaintext: files are made readable by you alone.
        """
    static let options: [OptionSpec] = OptionSpec.filters + [
        .value("templates", "DIR", "use DIR/markdown/… and DIR/epub/… instead of the built-in templates,\nfile by file (`quire export templates DIR` writes them out to start from)"),
        .value("lang", "TAG", "markdown, epub, pdf: the language around the entries, BCP 47 (ru, ja, ar,\npt-BR…; default: the entries', else the locale's, else English)"),
        .value("title", "T", "epub, pdf: book title (default: the journal filtered on, else \"Journal\")"),
        .value("author", "A", "epub, pdf: author shown on the title page"),
        .value("cover", "IMAGE", "epub, pdf: a cover image instead of the generated cover"),
        .value("page-size", "SIZE", "pdf: a5 (default), a4, letter, 6x9in, or WxH in mm, cm, in or pt"),
        .flag("no-photos", "pdf: leave photos out (a book of text alone)"),
        .flag("print", "pdf: the interior for a printer, PDF/X-3"),
        .value("bleed", "LENGTH", "pdf --print: bleed around the trim: 0.125in, 3mm (default 0)"),
        .value("color", "MODEL", "pdf --print: cmyk (default) or gray for a black-and-white interior"),
        .flag("full-fonts", "pdf --print: embed each font whole, for printers that ask (a larger file)"),
        .value("pages", "N", "cover: the interior's page count, which sets the spine's width"),
        .value("for", "INTERIOR", "cover: the print interior it goes around (its page count and trim size)"),
        .value("paper", "PAPER", "cover: white (default) or cream, the interior's paper"),
        .flag("with-audio", "epub: embed voice notes in formats every EPUB reader plays (MP3, M4A,\nOgg Opus), with read-along highlighting where the transcript is timed"),
        .flag("json", "print a summary as JSON"),
    ]

    /// A book is not written over something that is not a book of its kind.
    static func checkBookName(_ output: String, ext: String) throws {
        guard output.hasSuffix("." + ext) || !FileManager.default.fileExists(atPath: output) else {
            throw CLIError.usage("\(output) exists and is not \(ext == "epub" ? "an" : "a") .\(ext) file; name the book OUT.\(ext)")
        }
    }

    /// `quire export cover`: a sheet drawn from the options alone; no journal is opened.
    static func cover(_ output: String, _ arguments: Arguments, context: Context) throws {
        try Self.checkBookName(output, ext: "pdf")
        if let option = ["lang", "templates"].first(where: { arguments.value($0) != nil }) ?? ["no-photos", "print", "with-audio"].first(where: { arguments.flag($0) }) {
            throw CLIError.usage("--\(option) does not apply to `export cover`")
        }
        var options = CoverOptions()
        if let interior = arguments.value("for") {
            guard arguments.value("pages") == nil, arguments.value("page-size") == nil else {
                throw CLIError.usage("--for reads the page count and size from the interior: give it without --pages and --page-size")
            }
            let size = try CoverOptions.reading(interior)
            (options.pages, options.pageSize) = (size.pages, size.pageSize)
        } else {
            guard let text = arguments.value("pages") else { throw CLIError.usage("`export cover` needs --pages N or --for INTERIOR.pdf, the interior's page count") }
            guard let pages = Int(text), (2...2000).contains(pages) else { throw CLIError.usage("--pages '\(text)': give the interior's page count, 2 to 2000") }
            options.pages = pages
            if let size = try Self.pageSize(arguments) { options.pageSize = size }
        }
        let pages = options.pages
        if let text = arguments.value("paper") {
            guard let paper = CoverOptions.Paper(name: text.lowercased()) else { throw CLIError.usage("--paper '\(text)': give white or cream") }
            options.paper = paper
        }
        var print = try Self.printSettings(arguments)
        if arguments.value("bleed") == nil { print.bleed = 9 }
        (options.bleed, options.color, options.fullFonts) = (print.bleed, print.color, print.fullFonts)
        options.title = arguments.value("title")?.trimmingCharacters(in: .whitespacesAndNewlines).nonEmpty ?? "Journal"
        options.author = arguments.value("author")?.trimmingCharacters(in: .whitespacesAndNewlines).nonEmpty
        options.image = arguments.value("cover")
        let bytes = try Journal.exportCover(to: output, options: options)
        if arguments.flag("json") {
            var json = JSONOutput()
            json.object([("width_in", .number(options.sheetWidth / 72)), ("height_in", .number(options.sheetHeight / 72)),
                         ("spine_in", .number(options.spineWidth / 72)), ("spine_text", .bool(options.spineHoldsText)), ("bytes", .int(Int(bytes)))])
            context.print(json.text)
        } else if context.stderrIsTerminal {
            context.printError(String(format: "Wrote %@: a cover %.3f × %.3f in, its spine %.3f in (%d pages on %@ paper), PDF/X-3.",
                                      output, options.sheetWidth / 72, options.sheetHeight / 72, options.spineWidth / 72, pages, options.paper.name))
        }
    }

    /// `--page-size` of `export pdf` and `export cover`, nil when not given.
    static func pageSize(_ arguments: Arguments) throws -> PageSize? {
        guard let size = arguments.value("page-size") else { return nil }
        guard let parsed = PageSize(parsing: size) else {
            throw CLIError.usage("unknown page size '\(size)': give a5, a4, letter, 6x9in, or WxH with mm, cm, in or pt (3 to 20 in a side)")
        }
        return parsed
    }

    /// `--bleed` and `--color` of `export pdf --print`.
    static func printSettings(_ arguments: Arguments) throws -> PrintSettings {
        var settings = PrintSettings()
        if let text = arguments.value("bleed") {
            guard let bleed = PrintSettings.length(text) else {
                throw CLIError.usage("--bleed '\(text)' is not a length from 0 to 0.5in: give e.g. 0.125in or 3mm")
            }
            settings.bleed = bleed
        }
        if let text = arguments.value("color") {
            guard let color = PrintSettings.Color(name: text.lowercased()) else { throw CLIError.usage("--color '\(text)': give cmyk or gray") }
            settings.color = color
        }
        settings.fullFonts = arguments.flag("full-fonts")
        return settings
    }

    static func run(_ arguments: Arguments, context: Context) throws {
        // Ctrl-C or a kill: the book half-written (the journal in plaintext) goes first.
        Interruption.install(saying: "Nothing of the export was left behind; the same command makes it again.")
        let positionals = try arguments.positionals("FORMAT", "OUTPUT")
        let filter = try Options.filter(arguments)
        let (format, output) = (positionals[0], positionals[1])
        let bookOnly = ["title", "author", "cover"].filter { arguments.value($0) != nil }
        if format != "epub" && format != "pdf" && format != "cover", let option = bookOnly.first {
            throw CLIError.usage("--\(option) applies to `export epub`, `export pdf` and `export cover` only")
        }
        if format != "cover", let option = ["pages", "paper", "for"].first(where: { arguments.value($0) != nil }) {
            throw CLIError.usage("--\(option) applies to `export cover` only")
        }
        if format == "cover" {
            try Self.cover(output, arguments, context: context)
            return
        }
        let language = try arguments.value("lang").map { tag -> String in
            guard ["markdown", "epub", "pdf"].contains(format) else { throw CLIError.usage("--lang applies to `export markdown`, `export epub` and `export pdf`") }
            do { return try BookLanguage(tag: tag).code } catch let error as LanguageError { throw CLIError.usage("--lang: \(error)") }
        }
        if format != "epub", arguments.flag("with-audio") { throw CLIError.usage("--with-audio applies to `export epub` only") }
        let pdfOnly = ["page-size", "bleed", "color"].filter { arguments.value($0) != nil } + ["no-photos", "print"].filter { arguments.flag($0) }
        if format != "pdf" && format != "cover", let option = pdfOnly.first { throw CLIError.usage("--\(option) applies to `export pdf` only") }
        if format != "cover", !arguments.flag("print"), let option = ["bleed", "color"].first(where: { arguments.value($0) != nil }) ?? ["full-fonts"].first(where: { arguments.flag($0) }) {
            throw CLIError.usage("--\(option) applies to `export pdf --print`")
        }
        if format == "pdf", arguments.value("templates") != nil {
            throw CLIError.usage("--templates applies to `export markdown` and `export epub`; the PDF book is typeset, not templated")
        }
        if format == "json", arguments.value("templates") != nil {
            throw CLIError.usage("--templates applies to `export markdown` and `export epub`")
        }
        if format == "templates" {
            guard arguments.given.isEmpty || arguments.given == ["json"] else { throw CLIError.usage("`export templates` takes only DIR") }
            let written = try TemplateSet.writeDefaults(to: output)
            if arguments.flag("json") {
                var json = JSONOutput()
                json.object([("written", .strings(written))])
                context.print(json.text)
            } else {
                context.printError(written.isEmpty ? "\(output) already holds every template; nothing was written."
                                   : "Wrote \(written.count) templates into \(output); change them and give --templates \(output) to an export.")
            }
            return
        }
        var json = JSONOutput()
        /// What was written, told on a terminal (scripts read --json).
        func tell(_ text: String) {
            if !arguments.flag("json") && context.stderrIsTerminal { context.printError(text) }
        }
        switch format {
        case "json":
            let journal = Journal(store: try context.openStore(reading: true, cacheMebibytes: Self.cacheMebibytes))
            let summary = try journal.exportJSONLines(to: output, filter: filter, progress: context.progress("exporting"))
            json.object([("entries", .int(summary.entries)), ("media_files", .int(summary.mediaFiles))])
            tell("Wrote \(Format.count(summary.entries, "entry", "entries")) and \(Format.count(summary.mediaFiles, "attachment file")) to \(output)/entries.jsonl and \(output)/media/.")
        case "markdown":
            let templates = try TemplateSet(overrides: arguments.value("templates"))
            let journal = Journal(store: try context.openStore(reading: true, cacheMebibytes: Self.cacheMebibytes))
            let summary = try journal.exportMarkdown(to: output, filter: filter, language: language, templates: templates,
                                                     progress: context.progress("exporting"))
            json.object([("entries", .int(summary.entries)), ("attachments", .int(summary.attachments)),
                         ("language", .string(summary.language)), ("language_source", .string(summary.languageSource))])
            tell("Wrote \(Format.count(summary.entries, "entry", "entries")) as Markdown and \(Format.count(summary.attachments, "attachment")) into \(output) (index: \(output)/index.md, in \(summary.language)).")
        case "epub":
            try Self.checkBookName(output, ext: "epub")
            var options = EPUBOptions()
            options.filter = filter
            options.title = arguments.value("title")
            options.author = arguments.value("author")
            options.cover = arguments.value("cover")
            options.withAudio = arguments.flag("with-audio")
            options.language = language
            let templates = try TemplateSet(overrides: arguments.value("templates"))
            let journal = Journal(store: try context.openStore(reading: true, cacheMebibytes: Self.cacheMebibytes))
            let summary = try journal.exportBook(to: output, options: options, templates: templates, progress: context.progress("writing book"))
            json.object([("entries", .int(summary.entries)), ("chapters", .int(summary.chapters)), ("images", .int(summary.images)),
                         ("recordings", .int(summary.recordings)), ("overlays", .int(summary.overlays)), ("bytes", .int(Int(summary.bytes))),
                         ("language", .string(summary.language)), ("language_source", .string(summary.languageSource))])
            tell("Wrote \(output): \(Format.count(summary.entries, "entry", "entries")) in \(Format.count(summary.chapters, "chapter")), in \(summary.language), \(Format.size(summary.bytes)).")
        case "pdf":
            try Self.checkBookName(output, ext: "pdf")
            var options = PDFOptions()
            options.filter = filter
            options.title = arguments.value("title")
            options.author = arguments.value("author")
            options.cover = arguments.value("cover")
            options.withPhotos = !arguments.flag("no-photos")
            options.language = language
            if let size = try Self.pageSize(arguments) { options.pageSize = size }
            if arguments.flag("print") { options.print = try Self.printSettings(arguments) }
            let journal = Journal(store: try context.openStore(reading: true, cacheMebibytes: Self.cacheMebibytes))
            let summary = try journal.exportPDF(to: output, options: options, progress: context.progress("typesetting"))
            for warning in summary.warnings { context.printError("warning: " + warning) }
            json.object([("entries", .int(summary.entries)), ("pages", .int(summary.pages)), ("months", .int(summary.chapters)),
                         ("images", .int(summary.images)), ("recordings", .int(summary.recordings)), ("bytes", .int(Int(summary.bytes))),
                         ("warnings", .strings(summary.warnings)), ("language", .string(summary.language)),
                         ("language_source", .string(summary.languageSource))])
            tell("Wrote \(output): \(Format.count(summary.entries, "entry", "entries")) on \(Format.count(summary.pages, "page")) (\(options.pageSize.name)\(options.print.map { ", PDF/X-3 in \($0.color == .cmyk ? "CMYK" : "grey")" } ?? ""), in \(summary.language)), \(Format.size(summary.bytes)).")
        default:
            throw CLIError.usage("unknown export format '\(format)' (formats: json, markdown, epub, pdf, templates)")
        }
        if arguments.flag("json") { context.print(json.text) }
    }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
