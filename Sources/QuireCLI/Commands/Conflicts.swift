import Foundation
import QuireKit

struct ConflictsCommand: Command {
    static let name = "conflicts"
    static let abstract = "List concurrent edits that lost a merge, and keep or dismiss them."
    static let usage = """
        Usage: quire conflicts [--json]
               quire conflicts keep ID       make that version the text again (a new edit)
               quire conflicts dismiss ID    the version that won stays; stop listing this one

        When two machines change the same text field (title, body, transcript) before syncing,
        the later write wins and the other is kept here, never dropped. The list shows each
        kept version against the text now, line by line (+ the kept one's lines, - the
        text's), naming machines by the names `quire device name` gave them. An edit made
        on top of another is never a conflict, whatever order the machines sync in. Keeping
        one makes it the text and lists the version it replaced here in its place;
        dismissing one lets the text stand. Both sync: your other machines list the same.
        ID is the conflict's id (the first 8 or more of its characters), as the list shows it.
        """
    static let options: [OptionSpec] = [
        OptionSpec.flag("json", "a JSON array of {\"conflict\", \"record\", \"id\", \"field\", \"value\", \"device\", \"device_name\",\n\"current\", \"current_device\"}").only(""),
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        let action = arguments.positionals.first ?? ""
        if !action.isEmpty && arguments.flag("json") { throw CLIError.usage("--json goes with `quire conflicts` alone") }
        switch action {
        case "":
            _ = try arguments.positionals()
            try list(arguments, context: context)
        case "keep", "dismiss":
            let id = try arguments.positionals(action, "ID")[1]
            let store = try context.openStore()
            let revision = try store.conflict(id)
            guard action == "keep" else {
                try store.dismiss(revision)
                context.printError("Dismissed it: the version that won stays; your other machines stop listing it after their next sync.")
                return
            }
            let replaced = try store.keep(revision)
            context.printError("Kept it: the \(revision.field) of \(revision.record) \(Format.short(revision.recordID)) is that version again; it syncs like any edit."
                + (replaced.map { " The version it replaced is kept as conflict \($0.id.prefix(8)) until you dismiss it." } ?? ""))
        default:
            throw CLIError.usage("unknown conflicts command '\(action)' (keep, dismiss)")
        }
    }

    static func list(_ arguments: Arguments, context: Context) throws {
        let store = try context.openStore(reading: true)
        let revisions = try store.conflicts()
        if arguments.flag("json") {
            let names = try store.deviceNames()
            var json = JSONOutput()
            json.array(revisions) { j, r in
                let now = try? store.currentText(of: r)
                j.object([("conflict", .string(r.id)), ("record", .string(r.record)), ("id", .string(r.recordID)), ("field", .string(r.field)),
                          ("value", .string(r.value)), ("device", .string(r.device)), ("device_name", .string(names[r.device] ?? "")),
                          ("current", .string(now?.text ?? "")), ("current_device", .string(now?.device ?? ""))])
            }
            context.print(json.text)
            return
        }
        if revisions.isEmpty { context.print("No conflicts."); return }
        func who(_ device: String) throws -> String { device == store.deviceID ? "this machine" : try store.deviceLabel(device) }
        for (index, r) in revisions.enumerated() {
            if index > 0 { context.print("") }
            let kept = try who(r.device)
            guard let now = try store.currentText(of: r) else {
                context.print("\(r.id.prefix(8))  \(r.record) \(Format.short(r.recordID)) \(r.field): the version \(kept) wrote")
                for line in r.value.split(separator: "\n", omittingEmptySubsequences: false) { context.print("    " + line) }
                continue
            }
            let winner = try who(now.device)
            context.print("\(r.id.prefix(8))  \(r.record) \(Format.short(r.recordID)) \(r.field): the version \(kept) wrote (+) "
                          + "against the text now, by \(winner) (-)")
            for line in LineDiff.lines(from: now.text, to: r.value) {
                switch line {
                case .both(let text): context.print("    " + text)
                case .onlyOld(let text): context.print("  - " + text)
                case .onlyNew(let text): context.print("  + " + text)
                }
            }
        }
        context.printError("`quire conflicts keep ID` makes one the text again; `quire conflicts dismiss ID` lets the winner stand.")
    }
}
