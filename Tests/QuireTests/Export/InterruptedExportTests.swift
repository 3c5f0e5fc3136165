import Foundation
import Testing
@testable import QuireStore

/// An export stopped halfway (Ctrl-C, or a kill's SIGTERM) leaves none of the journal's
/// pages behind: the book is written in a private folder (0700, its file 0600 from the
/// start) beside OUT, removed when the signal comes; a Markdown export into a new folder
/// takes the folder with it. Each export is held at a point halfway (`QUIRE_TEST_EXPORT_HOLD`)
/// so the signal never races its end.
@Suite struct InterruptedExportTests {
    let dir = TempDir()
    let store: String

    init() throws { store = try VariedJournal.make(in: dir, generated: 20) }

    private func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? 0) & 0o777
    }

    @Test(arguments: [("pdf", "book.pdf", SIGINT), ("epub", "book.epub", SIGTERM), ("markdown", "notes", SIGINT)])
    func aStoppedExportLeavesNothingBehind(format: String, name: String, signal: Int32) throws {
        let out = dir.path + "/out-\(format)"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let hold = dir.path + "/hold-\(format)"
        let run = try WatchedProcess(["--store", store, "export", format, out + "/" + name], environment: ["QUIRE_TEST_EXPORT_HOLD": hold])
        let limit = Date().addingTimeInterval(Hang.limit)
        while !FileManager.default.fileExists(atPath: hold) && run.process.isRunning && Date() < limit { usleep(20_000) }
        let working = try #require(try? String(contentsOfFile: hold, encoding: .utf8), "the export never reached its halfway point: \(run.stderr)")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let workFolder = format == "markdown" ? out + "/" + name : (working as NSString).deletingLastPathComponent
        if format == "pdf" { #expect(mode(working) == 0o600, "the book is private from its first byte") }
        #expect(mode(workFolder) == 0o700)
        kill(run.process.processIdentifier, signal)
        run.process.waitUntilExit()
        #expect(run.process.terminationReason == .uncaughtSignal && run.process.terminationStatus == signal)
        // What it said on its way out arrives through a pipe: waited for, not raced.
        while !run.stderr.contains("left behind") && Date() < limit { usleep(20_000) }
        #expect(run.stderr.contains("quire: stopped. Nothing of the export was left behind; the same command makes it again."), "\(run.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(left.isEmpty, "\(left)")
        // And the same command, run again, makes it.
        let again = try QuireBinary.run(["export", format, out + "/" + name], store: store)
        #expect(again.status == 0, "\(again.stderr)")
    }
}
