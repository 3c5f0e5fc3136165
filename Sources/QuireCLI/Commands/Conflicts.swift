import Foundation
import QuireKit

struct ConflictsCommand: Command {
    static let name = "conflicts"
    static let abstract = "List concurrent edits that lost a merge and were kept as revisions."
    static let usage = """
        Usage: quire conflicts [--json]

        When two machines change the same text field (title, body, transcript) before syncing,
        the later write wins and the other is kept here, never dropped.
        """
    static let options: [OptionSpec] = [.flag("json", "a JSON array of {\"record\", \"id\", \"field\", \"value\", \"device\"}")]

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        let store = try context.openStore(reading: true)
        let revisions = try store.conflicts()
        if arguments.flag("json") {
            var json = JSONOutput()
            json.array(revisions) { j, r in
                j.object([("record", .string(r.record)), ("id", .string(r.recordID)), ("field", .string(r.field)),
                          ("value", .string(r.value)), ("device", .string(r.device))])
            }
            context.print(json.text)
            return
        }
        if revisions.isEmpty { context.print("No conflicts."); return }
        for r in revisions {
            let device = r.device == store.deviceID ? "this machine" : "device \(Format.short(r.device))"
            context.print("\(r.record) \(Format.short(r.recordID)) \(r.field), the version \(device) wrote (the other one won):")
            context.print("    " + r.value.split(whereSeparator: \.isNewline).joined(separator: " "))
        }
    }
}
