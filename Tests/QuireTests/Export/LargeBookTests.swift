import Foundation
import Testing
@testable import QuireExport
@testable import QuireStore

/// A journal too large to list entry by entry in a book's contents: the EPUB's contents and
/// the PDF's outline list years and months (each month's chapter still holds all its
/// entries, each with its anchor), and the books stay valid. A small journal keeps its
/// entries in the contents.
@Suite struct LargeBookTests {
    let dir = TempDir()

    /// A store of `count` entries over the months of 2024, imported in one transaction.
    func store(_ count: Int) throws -> String {
        let lines = (0..<count).map { index in
            let day = String(format: "2024-%02d-%02dT%02d:%02d:00+02:00", index % 12 + 1, index % 28 + 1, index % 24, index % 60)
            return #"{"created": "\#(day)", "title": "Entry \#(index)", "body": "Words of entry \#(index)."}"#
        }
        let file = dir.file("in-\(count).jsonl", lines.joined(separator: "\n"))
        let folder = dir.path + "/store-\(count)"
        let store = try Store(folder: folder, options: .init(create: true))
        _ = try store.importJSONLines(at: file)
        return folder
    }

    @Test func aLargeBooksContentsListMonthsAndEveryEntryIsStillInItsChapter() throws {
        let count = BookContents.entriesListed + 1
        let folder = try store(count)
        let book = dir.path + "/large.epub"
        let run = try QuireBinary.run(["export", "epub", book], store: folder)
        try #require(run.status == 0, "\(run.stderr)")
        let zip = try ZipArchive(book)
        let nav = zip.text("EPUB/nav.xhtml")
        #expect(!nav.contains("#e-") && !nav.contains("class=\"entries\""), "no entry is listed in the contents")
        #expect(nav.components(separatedBy: "text/2024-").count - 1 == 12, "each month is")
        let anchors = zip.names.filter { $0.hasPrefix("EPUB/text/") }.reduce(0) { $0 + zip.text($1).components(separatedBy: "<article class=\"entry\" id=\"e-").count - 1 }
        #expect(anchors == count, "every entry is in its chapter")
        let (problems, _) = try EPUBCheck.problems(book, dir: dir)
        #expect(problems.isEmpty, "\(problems)")

        let small = try store(3)
        let smallBook = dir.path + "/small.epub"
        #expect(try QuireBinary.run(["export", "epub", smallBook], store: small).status == 0)
        #expect(try ZipArchive(smallBook).text("EPUB/nav.xhtml").components(separatedBy: "#e-").count - 1 == 3)
    }

    @Test(.enabled(if: ExternalTool.available("qpdf")))
    func aLargePDFsOutlineStopsAtMonths() throws {
        let folder = try store(BookContents.entriesListed + 1)
        let book = dir.path + "/large.pdf"
        let run = try QuireBinary.run(["export", "pdf", book], store: folder)
        try #require(run.status == 0, "\(run.stderr)")
        let json = try JSONValue.parse(try ExternalTool.run("qpdf", ["--json=2", "--json-key=outlines", book]).stdout)
        let years = json.object?["outlines"]?.array ?? []
        #expect(years.map { $0.object?["title"]?.string ?? "" } == ["2024"])
        let months = years.first?.object?["kids"]?.array ?? []
        #expect(months.count == 12)
        #expect(months.allSatisfy { ($0.object?["kids"]?.array ?? []).isEmpty }, "no entry is in the outline")
    }
}
