import Foundation
import QuireKit
#if canImport(Glibc)
import Glibc
#endif

struct VerifyCommand: Command {
    static let name = "verify"
    static let abstract = "Check that every object of the repository is present and authentic."
    static let usage = """
        Usage: quire verify [--read-data] [--json] [--passphrase-file F]

        Checks every device's chain of change-log segments from the first to its head (each
        authenticated, each naming the one before, none rolled back from what this journal
        has seen) and that every attachment they reference exists. With --read-data every
        attachment is downloaded and decrypted in full. Names every problem; exits 1 if any.
        """
    static let options: [OptionSpec] = [
        .flag("read-data", "download and decrypt every attachment in full"),
        .flag("json", "{\"devices\", \"segments\", \"attachments\", \"problems\": [{\"object\", \"problem\"}]}"),
        .passphraseFile,
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        let store = try context.openStore()
        let (journal, unlock, _) = try SyncSession.journal(store, arguments, context: context)
        let report = try journal.verify(unlock, readData: arguments.flag("read-data"), progress: SyncSession.progress(context))
        SyncSession.endProgress(context)
        if arguments.flag("json") {
            var json = JSONOutput()
            json.object([("devices", .int(report.devices)), ("segments", .int(report.segments)), ("attachments", .int(report.blobs)),
                         ("read", .int(report.blobsRead))])
            var problems = JSONOutput()
            problems.array(report.problems) { j, p in j.object([("object", .string(p.object)), ("problem", .string(p.detail))]) }
            context.print(String(json.text.dropLast()) + ", \"problems\": " + problems.text + "}")
        } else {
            for problem in report.problems { context.print("problem: \(problem)") }
            context.print("\(Format.count(report.devices, "device")), \(Format.count(report.segments, "segment")), \(Format.count(report.blobs, "attachment"))"
                          + (arguments.flag("read-data") ? " (\(report.blobsRead) read in full)" : "") + ": "
                          + (report.problems.isEmpty ? "all present and authentic" : Format.count(report.problems.count, "problem")))
        }
        if !report.problems.isEmpty {
            throw CLIError.failure("the repository has \(report.problems.count) problem\(report.problems.count == 1 ? "" : "s") (listed above)",
                                   hint: "a damaged object is never used; restore from another device's copy or re-sync from a device that has the data")
        }
    }
}
