import Foundation
import QuireSupport
import QuireKit
#if canImport(Glibc)
import Glibc
#endif

struct EditCommand: Command {
    static let name = "edit"
    static let abstract = "Change an entry: in your editor, or its title, text, date, journal or tags by option."
    static let usage = """
        Usage: quire edit ID                      open the entry in $VISUAL or $EDITOR
               quire edit ID [--title T] [--body TEXT | --body-file F] [--date D] [--journal J]
                             [--add-tag T]... [--remove-tag T]... [--star | --unstar]

        Without options the entry opens in your editor: its title on the first line, a blank
        line, then its text; save and quit to keep the changes (nothing changes if you quit
        without saving). With options, only what is given changes; an edit that changes
        nothing writes nothing. ID is an entry id or a unique prefix of 8 or more characters.
        """
    static let options: [OptionSpec] = [
        .value("title", "T", "the new title"),
        .value("body", "TEXT", "the new text"),
        .value("body-file", "F", "the new text from F (- for standard input)"),
        .value("date", "D", "when it happened: RFC 3339, YYYY-MM-DD or words (yesterday)"),
        .value("journal", "J", "move it to journal J; case ignored where it exists"),
        .repeated("add-tag", "T", "add tag T; repeat for more; case ignored where it exists"),
        .repeated("remove-tag", "T", "remove tag T, in any case; repeat for more"),
        .flag("star", "mark it starred"),
        .flag("unstar", "mark it not starred"),
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        let id = try arguments.positionals("ID")[0]
        try arguments.exclusive("star", "unstar")
        let created = try Options.date(arguments, "date")
        let body = try Options.body(arguments, context: context, stdinFallback: false)
        let store = try context.openStore()
        let journal = try arguments.value("journal").map { try store.journalName(typed: $0) }
        let entryID = try Options.entryID(id, in: store)
        guard let before = try store.entry(id: entryID) else { throw CLIError.failure("no entry with id \(id)", hint: nil) }
        var edit = EntryEdit(title: arguments.value("title"), body: body, created: created, journal: journal,
                             addTags: try arguments.all("add-tag").map { try store.tagName(typed: $0) }, removeTags: arguments.all("remove-tag"),
                             starred: arguments.flag("star") ? true : arguments.flag("unstar") ? false : nil)
        if arguments.given.isEmpty {
            guard let (title, text) = try EditorSession(context: context, store: store).edit(before) else {
                context.printError("No change: \(Format.short(entryID)) is as it was.")
                return
            }
            edit = EntryEdit(title: title, body: text)
        }
        let after = try store.edit(entryID: entryID, edit)
        let changed = Self.changes(from: before, to: after)
        if context.stderrIsTerminal || arguments.given.isEmpty {
            context.printError(changed.isEmpty ? "No change: \(Format.short(entryID)) is as it was."
                               : "Changed the \(changed.joined(separator: ", ")) of \(Format.short(entryID)).")
        }
    }

    static func changes(from a: Entry, to b: Entry) -> [String] {
        var names: [String] = []
        if a.title != b.title { names.append("title") }
        if a.body != b.body { names.append("text") }
        if a.created != b.created { names.append("date") }
        if a.journal != b.journal { names.append("journal") }
        if a.tags != b.tags { names.append("tags") }
        if a.starred != b.starred { names.append("star") }
        return names
    }
}

/// The entry in the person's editor: a file in the store's own folder (0600, beside the
/// journal it holds, never in a shared temporary folder), the title on its first line, a
/// blank line, the text; read back after the editor exits.
struct EditorSession {
    let context: Context
    let store: Store

    /// The new title and text, or nil when the file came back unchanged.
    /// - Throws: when there is no terminal or editor, or the editor fails.
    func edit(_ entry: Entry) throws -> (String, String)? {
        let original = entry.title + "\n\n" + entry.body + (entry.body.hasSuffix("\n") ? "" : "\n")
        guard let edited = try edit(original, name: "edit-" + entry.id.prefix(8) + ".md", what: "edited entry") else { return nil }
        var lines = edited.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let title = lines.isEmpty ? "" : String(lines.removeFirst()).trimmingCharacters(in: .whitespaces)
        var text = lines.first.map(String.init) ?? ""
        if text.hasPrefix("\n") { text.removeFirst() }
        // The text keeps its own last line break only if it had one.
        if !entry.body.hasSuffix("\n"), text.hasSuffix("\n") { text.removeLast() }
        return (title, text)
    }

    /// `text` in the person's editor, in a file named `name` in the store's folder (0600,
    /// removed after); the text it came back with, or nil when unchanged.
    func edit(_ text: String, name: String, what: String) throws -> String? {
        // An editor the person named runs even without a terminal (a GUI editor, a script);
        // the machine's own terminal editors only on a terminal.
        let named = [context.environment["VISUAL"], context.environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty }
        guard named != nil || (isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1) else {
            throw CLIError.usage("say what to change (--title, --body, --add-tag …), or set EDITOR, or run on a terminal to edit in an editor")
        }
        let editor = named
            ?? ["/usr/bin/editor", "/usr/bin/nano", "/usr/bin/vi"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let editor else {
            throw CLIError.failure("no editor to open", hint: "set EDITOR (export EDITOR=nano), or give --title/--body")
        }
        let file = store.folder + "/" + name
        try FileIO.writeDurably(to: file, mode: 0o600, sync: false) { fd in
            try Array(text.utf8).withUnsafeBytes { try FileIO.writeAll(fd, $0, path: file) }
        }
        defer { unlink(file) }
        // The editor command may carry its own arguments (`code --wait`); the file is "$1".
        let status = try ChildProcess.runOnTerminal("/bin/sh", ["-c", editor + " \"$1\"", "quire-edit", file], environment: context.environment)
        guard status == 0 else {
            throw CLIError.failure("the editor (\(editor)) ended " + (status.map { "with status \($0)" } ?? "by a signal") + "; nothing was changed", hint: nil)
        }
        let edited = try context.readEditedText(file, what: what)
        return edited == text ? nil : edited
    }
}
