import Foundation
import QuireKit

struct SearchCommand: Command {
    static let name = "search"
    static let abstract = "Find entries by words in titles, texts, transcripts, tags, places and journal names."
    static let usage = """
        Usage: quire search QUERY [--journal J]... [--tag T]... [--from DATE] [--to DATE] [--limit N] [--json]

        Every word must match, in the title, the text, a voice note's transcript, a tag, the
        place or the journal's name. Case and accents are ignored, and a digit is the same in
        every script (٢٠٢٥ is 2025); English and Russian words match in other grammatical
        forms (swim finds swimming and swims, Москва finds Москве), Arabic ones without their article and endings (مدرسة finds المدرسة),
        Hebrew ones without the letters for "and", "the", "in" in front (בית finds ובבית);
        Japanese, Chinese and Thai words are found inside sentences without spaces, and
        Korean words inside their particles (서울 finds 서울에서); a Persian word is found
        with or without its zero-width non-joiner (میخواهم finds می‌خواهم).

        "a phrase" (in single quotes for the shell: '"a phrase"') matches its words in that
        order; word* matches words starting with "word" (swimm* finds swimming); -word or NOT word leaves
        out the entries holding it; OR between two words takes either: `quire search dinner
        pizza OR pasta -work` finds dinners with pizza or pasta, none about work.
        """
    static let options: [OptionSpec] = OptionSpec.filters + [
        .value("limit", "N", "at most N results, best first (default 50)"),
        .flag("json", "a JSON array of {\"id\", \"created\", \"title\", \"snippet\"}"),
    ]

    static var spec: Arguments.Spec {
        var spec = OptionSpec.spec(options)
        spec.dashWords = true
        return spec
    }

    static func run(_ arguments: Arguments, context: Context) throws {
        let query = arguments.positionals.joined(separator: " ")
        guard !query.isEmpty else { throw CLIError.usage("missing QUERY") }
        var limit = 50
        if let text = arguments.value("limit") {
            guard let n = Int(text), n > 0 else { throw CLIError.usage("--limit must be a positive number") }
            limit = n
        }
        let filter = try Options.filter(arguments)
        let store = try context.openStore(reading: true)
        let hits = try store.search(query, filter: filter, limit: limit)
        if arguments.flag("json") {
            var json = JSONOutput()
            json.array(hits) { j, hit in
                j.object([("id", .string(hit.id)), ("created", .string(hit.created.text)), ("title", .string(hit.title)),
                          ("snippet", .string(hit.snippet(open: "", close: "")))])
            }
            context.print(json.text)
            return
        }
        if hits.isEmpty {
            context.printError("No entry matches \(query)" + (filter.isEmpty ? "." : " with those filters."))
            return
        }
        let (open, close) = context.stdoutIsTerminal ? ("\u{1B}[1m", "\u{1B}[0m") : ("", "")
        for hit in hits {
            context.print(Format.short(hit.id) + "  " + Format.listed(hit.created) + "  " + hit.title)
            let snippet = hit.snippet(open: open, close: close).split(whereSeparator: \.isNewline).joined(separator: " ")
            context.print("    " + snippet)
        }
    }
}
