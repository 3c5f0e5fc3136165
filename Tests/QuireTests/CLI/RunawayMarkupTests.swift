import Foundation
import Testing
@testable import QuireExport
@testable import QuireStore

/// Entries a person may paste or import, built to be as hard as they can: 100,000 quotes,
/// list items or emphases inside one another, 100,000 `[` before their `]`, a letter under
/// 50,000 accents, one word matched 100,000 times, a line no line can hold. Each is added,
/// listed, searched and exported through the real binary, which must finish (a pass that
/// read the text again for each mark took minutes to hours) and keep the words. Before,
/// the PDF book crashed on the stack or on an Int32 sum, the EPUB was refused as not
/// well-formed, and search, list and the Markdown export ran for minutes.
@Suite struct RunawayMarkupTests {
    let dir = TempDir()

    static let bodies: [(name: String, body: String)] = [
        ("quotes", String(repeating: "> ", count: 100_000) + "deepest"),
        ("lists", String(repeating: "- ", count: 50_000) + "deepest"),
        ("numbered", String(repeating: "1. ", count: 50_000) + "deepest"),
        ("emphasis", String(repeating: "*a ", count: 50_000) + "deepest" + String(repeating: "*", count: 50_000)),
        ("brackets", String(repeating: "[", count: 100_000) + "deepest" + String(repeating: "]", count: 100_000)),
        ("link openers", String(repeating: "[a](", count: 50_000) + " deepest"),
        ("image openers", String(repeating: "![", count: 50_000) + " deepest"),
        ("accents", "deepest a" + String(repeating: "\u{301}", count: 50_000) + String(repeating: "_", count: 50_000)),
        ("one word matched", String(repeating: "[a]", count: 50_000) + " deepest"),
        // One paragraph of 400 KB without a break: measured on one line for total fit, its
        // width passed Int32 in Pango's units and trapped.
        ("one long line", String(repeating: "www.", count: 100_000)),
        // Each `[[` looked for its `]]` to the end of the text: 12 s for the book.
        ("wiki link openers", String(repeating: "[[", count: 100_000) + " deepest"),
        // Pango shapes again the rest of a run at each line it breaks it into: a book of a
        // 50 KB word took 3.5 s, and twenty minutes for 1 MB.
        ("one long word", String(repeating: "a", count: 400_000) + " deepest"),
    ]

    /// The bodies also made into books (the long line is in for the trap, not its words).
    static let booked: Set<String> = ["quotes", "lists", "numbered", "emphasis", "brackets", "image openers", "accents",
                                      "one long line", "wiki link openers", "one long word"]

    /// Runs quire, failing loudly where it has not finished in `seconds` (it is then left
    /// to run out): linear passes take well under a second here, in a debug build.
    func run(_ arguments: [String], store: String, stdin: String? = nil, seconds: Double = 300) -> QuireRun? {
        let done = DispatchSemaphore(value: 0)
        let box = RunBox()
        Thread.detachNewThread {
            box.run = try? QuireBinary.run(arguments, store: store, stdin: stdin)
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else {
            Issue.record("quire \(arguments.first ?? "") did not finish in \(Int(seconds)) s: a pass reading the text again for each mark?")
            return nil
        }
        return box.run
    }

    @Test(arguments: bodies.map(\.name))
    func anEntryBuiltToRunAwayIsAddedSearchedAndExportedWhole(name: String) throws {
        let body = try #require(Self.bodies.first { $0.name == name }).body
        let store = dir.path + "/journal"
        let add = try #require(run(["add", "--date", "2025-03-01 10:00"], store: store, stdin: body))
        try #require(add.status == 0, "\(add.stderr)")
        let list = try #require(run(["list"], store: store))
        #expect(list.status == 0 && list.stdout.utf8.count < 1_000, "\(list.stderr)")

        // A snippet stays a line's worth, however often the word stands in the entry.
        for word in ["deepest", "a"] {
            let search = try #require(run(["search", word], store: store))
            #expect(search.status == 0, "\(search.stderr)")
            #expect(search.stdout.utf8.count < 2_000, "\(search.stdout.prefix(300))")
        }
        if name != "one long line" {
            #expect(try #require(run(["search", "deepest"], store: store)).stdout.contains(String(add.stdout.prefix(8))))
        }

        let markdown = try #require(run(["export", "markdown", dir.path + "/md"], store: store))
        #expect(markdown.status == 0, "\(markdown.stderr)")
        guard Self.booked.contains(name) else { return }
        let epub = try #require(run(["export", "epub", dir.path + "/book.epub"], store: store))
        #expect(epub.status == 0 && epub.signal == nil, "\(epub.stderr)")
        // Minutes before, a second or two now: a deadline far from both.
        let pdf = try #require(run(["export", "pdf", dir.path + "/book.pdf"], store: store, seconds: 120))
        #expect(pdf.status == 0 && pdf.signal == nil, "\(pdf.stderr.suffix(2_000))")
        if ExternalTool.available("pdftotext"), pdf.status == 0, name != "one long line" {
            let text = try ExternalTool.run("pdftotext", [dir.path + "/book.pdf", "-"])
            // Hyphenated where a line breaks it ("deep-" / "est"), as a reader copies it.
            #expect(PDFExportTests.flattened(text.stdout).contains("deepest"), "the book lost the entry's last word")
        }
    }

    /// Notes a vault or a jrnl journal may hold, built as hard: each `[[` of 100,000 `[`
    /// read to its `]]` (minutes), a tag of a million letters built a letter at a time (a
    /// 400,000-letter one took 30 s in a release build), and 20,000 tags in the front matter
    /// and as many in the text (one SQL statement for all their clocks passed SQLite's
    /// 32,766 variables: "too many SQL variables", nothing imported). Each is imported from
    /// a Markdown folder and, but the front matter, from jrnl's text, whole.
    static let notes: [(name: String, body: String, tags: Int)] = [
        ("brackets", String(repeating: "[", count: 100_000) + "x" + String(repeating: "]", count: 100_000), 0),
        ("embed openers", String(repeating: "![[", count: 100_000) + "x]]", 0),
        ("one long tag", "#" + String(repeating: "a", count: 1_000_000) + " and @" + String(repeating: "b", count: 1_000_000), 1),
        ("many tags", "---\ntags: [" + (0..<20_000).map { "t\($0)" }.joined(separator: ", ") + "]\n---\n"
            + (0..<20_000).map { "#u\($0)" }.joined(separator: " "), 40_000),
    ]

    @Test(arguments: notes.map(\.name))
    func aNoteBuiltToRunAwayIsImportedWhole(name: String) throws {
        let note = try #require(Self.notes.first { $0.name == name })
        let folder = dir.path + "/vault-\(note.tags)-\(note.body.utf8.count)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try note.body.write(toFile: folder + "/2025-03-01.md", atomically: true, encoding: .utf8)
        let store = folder + "-store"
        let run = try #require(self.run(["import", "markdown", folder], store: store, seconds: 120))
        #expect(run.status == 0, "\(run.stderr.prefix(500))")
        let tags = try #require(self.run(["tags"], store: store))
        #expect(tags.stdout.split(separator: "\n").count >= note.tags, "\(tags.stdout.prefix(300))")
        guard !note.body.hasPrefix("---") else { return }
        let journal = folder + ".txt"
        try ("[2025-03-01 10:00] A title\n" + note.body + "\n").write(toFile: journal, atomically: true, encoding: .utf8)
        let jrnl = try #require(self.run(["import", "jrnl", journal], store: store + "-jrnl", seconds: 120))
        #expect(jrnl.status == 0, "\(jrnl.stderr.prefix(500))")
    }

    /// Containers past the limit give their content to the one holding them: the words stay,
    /// in order, in a tree no deeper than the limit, and the page is well-formed XHTML.
    @Test func nestingPastTheLimitIsFlattenedNotLost() {
        for body in [String(repeating: "> ", count: 20_000) + "deepest", String(repeating: "- ", count: 20_000) + "deepest",
                     String(repeating: "*a ", count: 20_000) + "deepest" + String(repeating: "*", count: 20_000),
                     String(repeating: "> ", count: 20) + "first\n\n" + String(repeating: "> ", count: 20) + "- second"] {
            let blocks = MarkdownRenderer.blocks(body)
            #expect(blocks.map(Self.depth).max() ?? 0 <= MarkdownDepth.blocks * 2 + MarkdownDepth.inlines + 2)
            let html = MarkdownRenderer.html(body)
            #expect(XHTMLPage.wellFormednessProblem("<div xmlns=\"http://www.w3.org/1999/xhtml\">" + html + "</div>") == nil)
            #expect(html.contains("deepest") || html.contains("second"))
        }
        // Within the limit nothing moves.
        let shallow = MarkdownRenderer.html("> a\n> > b\n> > - c *d **e***")
        #expect(shallow.components(separatedBy: "<blockquote>").count == 3 && shallow.contains("<li>c <em>d <strong>e</strong></em></li>"), "\(shallow)")
    }

    static func depth(_ block: MarkdownBlock) -> Int {
        switch block {
        case .quote(let children), .footnote(_, let children), .callout(_, _, let children): 1 + (children.map(depth).max() ?? 0)
        case .list(_, _, let items): 2 + (items.flatMap(\.blocks).map(depth).max() ?? 0)
        case .paragraph(let inlines), .heading(_, let inlines): inlines.map(depth).max() ?? 0
        default: 0
        }
    }

    static func depth(_ inline: MarkdownInline) -> Int {
        switch inline {
        case .emphasis(let c), .strong(let c), .strikethrough(let c), .highlight(let c), .link(_, let c): 1 + (c.map(depth).max() ?? 0)
        default: 0
        }
    }
}

private final class RunBox: @unchecked Sendable {
    var run: QuireRun?
}
