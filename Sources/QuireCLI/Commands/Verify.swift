import Foundation
import QuireKit
#if canImport(Glibc)
import Glibc
#endif

struct VerifyCommand: Command {
    static let name = "verify"
    static let abstract = "Check that every object of the repository is present and authentic."
    static let usage = """
        Usage: quire verify [--read-data] [--repair] [--json] [--passphrase-file F]

        Checks every device's chain of change-log segments from the first to its head (each
        authenticated, each naming the one before, none rolled back from what this journal
        has seen) and that every attachment they reference exists. With --read-data every
        attachment is downloaded and decrypted in full. Names every problem; exits 1 if any.
        With --repair, what the server lost that this machine can put back goes back first:
        this machine's own change-log segments and head (the very bytes it sent) and every
        pack whose attachments it holds (`quire sync` puts back its own when it sees its head
        gone). A problem left after that is one only another machine can mend.
        """
    static let options: [OptionSpec] = [
        .flag("read-data", "download and decrypt every attachment in full"),
        .flag("repair", "first put back what the server lost that this machine holds"),
        .flag("json", "{\"devices\", \"segments\", \"attachments\", \"read\", \"repaired\", \"problems\": [{\"object\", \"problem\"}]}"),
        .passphraseFile,
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        let store = try context.openStore()
        let (journal, unlock, _) = try SyncSession.journal(store, arguments, context: context)
        let report = try journal.verify(unlock, readData: arguments.flag("read-data"), repair: arguments.flag("repair"),
                                        progress: SyncSession.progress(context))
        SyncSession.endProgress(context)
        if arguments.flag("json") {
            var json = JSONOutput()
            json.object([("devices", .int(report.devices)), ("segments", .int(report.segments)), ("attachments", .int(report.blobs)),
                         ("read", .int(report.blobsRead)), ("repaired", .int(report.repaired))])
            var problems = JSONOutput()
            problems.array(report.problems) { j, p in j.object([("object", .string(p.object)), ("problem", .string(p.detail))]) }
            context.print(String(json.text.dropLast()) + ", \"problems\": " + problems.text + "}")
        } else {
            if report.repaired > 0 { context.print("put back \(Format.count(report.repaired, "object")) the server had lost") }
            for problem in report.problems { context.print("problem: \(problem.object): \(problem.detail)") }
            context.print("\(Format.count(report.devices, "device")), \(Format.count(report.segments, "segment")), \(Format.count(report.blobs, "attachment"))"
                          + (arguments.flag("read-data") ? " (\(report.blobsRead) read in full)" : "") + ": "
                          + (report.problems.isEmpty ? "all present and authentic" : Format.count(report.problems.count, "problem")))
        }
        if !report.problems.isEmpty {
            throw CLIError.failure("the repository has \(report.problems.count) problem\(report.problems.count == 1 ? "" : "s") (listed above)",
                                   hint: arguments.flag("repair") ? "what is left only the machine that wrote it can put back: run `quire sync` there"
                                        : "a damaged object is never used; `quire verify --repair` puts back what this machine holds")
        }
    }
}
