import Foundation
import Testing
@testable import QuireStore

/// 300 mutations each of a PNG and a JPEG (bytes flipped, cut, repeated, header numbers
/// made huge), attached as photos and set in both books: every export ends (no crash, no
/// hang), each says in at most one warning line what it left out, and the PDF's structure
/// checks. (A JPEG whose header and end are whole but whose coded pixels are damaged goes in
/// as its bytes: Quire decodes no JPEG, and qpdf then warns about that image's data alone.)
@Suite struct ImageMutationTests {
    /// One mutant of `bytes`: seeded, so every run tries the same 300.
    static func mutant(_ bytes: [UInt8], _ n: Int) -> [UInt8] {
        var rng = SplitMix(seed: UInt64(n) &* 0x9E37_79B9 &+ 17)
        var out = bytes
        for _ in 0..<(1 + Int(rng.next() % 4)) {
            let at = Int(rng.next() % UInt64(max(1, out.count)))
            switch rng.next() % 5 {
            case 0: out[at] ^= UInt8(truncatingIfNeeded: rng.next() | 1)                      // a flipped byte
            case 1: out = Array(out.prefix(at))                                                 // cut short
            case 2: out.insert(contentsOf: out[at..<min(out.count, at + 64)], at: at)          // a stretch repeated
            case 3: if at + 4 <= out.count { out.replaceSubrange(at..<(at + 4), with: [0x7F, 0xFF, 0xFF, 0xFF]) }  // a huge number
            default: out.removeSubrange(at..<min(out.count, at + 1 + Int(rng.next() % 32)))    // a stretch gone
            }
            if out.isEmpty { out = [0xFF] }
        }
        return out
    }

    @Test(.enabled(if: PDFExportTests.readers))
    func mutatedPhotosNeverStopABook() throws {
        let dir = TempDir()
        let store = try makeStore(dir, name: "journal")
        for (name, count) in [("photo.png", 300), ("photo.jpg", 300)] {
            let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: VariedJournal.media + "/" + name)))
            let entry = try store.add(NewEntry(title: "mutants of \(name)", created: try #require(Timestamp(rfc3339: "2025-06-01T10:00:00Z"))))
            for n in 0..<count {
                let file = dir.file("m/\(n)-\(name)", bytes: Self.mutant(original, n))
                try store.attach(to: entry.id, NewAttachment(path: file, kind: .photo))
            }
        }
        for format in ["pdf", "epub"] {
            let book = dir.path + "/mutants." + format
            let run = try QuireBinary.run(["export", format, book], store: store.folder)
            #expect(run.status == 0, "\(run.stderr)")
            let warnings = run.stderr.split(separator: "\n").filter { !$0.isEmpty }
            #expect(warnings.count <= 1 && warnings.allSatisfy { $0.hasPrefix("warning:") }, "\(warnings.prefix(3))")
            if format == "pdf" {
                let check = try ExternalTool.run("qpdf", ["--check", book])
                let warnings = (check.stdout + check.stderr).split(separator: "\n").filter { $0.contains("WARNING") }
                #expect(check.status == 0 || (check.status == 3 && warnings.allSatisfy { $0.contains("stream") }),
                        "\(check.stdout.suffix(600))\(check.stderr.suffix(600))")
            }
        }
    }
}
