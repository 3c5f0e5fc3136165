import Foundation
import QuireSupport
import QuireStore

/// The sources Quire imports, and the one way each is run (`run`): the CLI's `import` and
/// `Journal.importEntries` both go through it. A source's kind is also read from its first
/// bytes (and, for a folder, its files: `guess`), so a person who named the wrong importer
/// is told the right one: a jrnl text file given as JSON lines, an Obsidian folder given as
/// a file.
public enum ImportFormat: NamedCases, Sendable {
    /// Quire's own JSON lines (`quire export json`).
    case jsonLines
    /// A Day One export: its zip, or the folder it unpacks to.
    case dayOne
    /// jrnl's JSON export or its plain text file.
    case jrnl
    /// A folder of Markdown notes (Obsidian's vault, a Quire Markdown export).
    case markdown

    /// The name `quire import` takes.
    package var name: String {
        switch self {
        case .jsonLines: "jsonl"
        case .dayOne: "dayone"
        case .jrnl: "jrnl"
        case .markdown: "markdown"
        }
    }
}

extension ImportFormat {
    /// Imports `path` into `store` with this format's importer, every entry into `journal`
    /// when one is named; one transaction, so a refused source leaves the store as it was.
    package func run(_ path: String, into store: Store, journal: String? = nil, progress: ProgressHandler? = nil) throws -> ImportSummary {
        switch self {
        case .jsonLines: try store.importJSONLines(at: path, journal: journal, progress: progress)
        case .dayOne: try DayOneImporter(path: path).run(into: store, journal: journal, progress: progress)
        case .jrnl: try JrnlImporter(path: path).run(into: store, journal: journal, progress: progress)
        case .markdown: try MarkdownFolderImporter(path: path).run(into: store, journal: journal, progress: progress)
        }
    }

    /// The importer `path` looks like it needs, or nil when nothing tells.
    package static func guess(_ path: String) -> ImportFormat? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return nil }
        if isFolder.boolValue {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            if names.contains(where: { $0.hasSuffix(".json") }) && names.contains(where: { ["photos", "audios"].contains($0) }) { return .dayOne }
            if names.contains(where: { $0.hasSuffix(".md") || $0 == ".obsidian" }) { return .markdown }
            if let sub = FileManager.default.enumerator(atPath: path), sub.contains(where: { ($0 as? String)?.hasSuffix(".md") == true }) {
                return .markdown
            }
            return nil
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 4096)) ?? Data()
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return .dayOne }  // a zip: Day One exports one
        let text = String(decoding: SourceText.withoutByteOrderMark(head), as: UTF8.self)
        let start = text.drop { $0.isWhitespace }
        if start.hasPrefix("{") {
            // One object on the first line is Quire's JSON lines; a document with "entries"
            // is jrnl's JSON export, or Day One's with "metadata".
            let firstLine = start.prefix { !$0.isNewline }
            if firstLine.hasSuffix("}") { return .jsonLines }
            if text.contains("\"metadata\"") { return .dayOne }
            if text.contains("\"entries\"") { return .jrnl }
            return .jsonLines
        }
        // jrnl's text: `[2025-03-01 21:14] Title` or `2025-03-01 21:14 Title` lines.
        let pattern = #"^\[?\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}"#
        if start.split(whereSeparator: \.isNewline).prefix(20).contains(where: { $0.range(of: pattern, options: .regularExpression) != nil }) {
            return .jrnl
        }
        if path.hasSuffix(".md") || start.hasPrefix("---") || start.hasPrefix("#") { return .markdown }
        return nil
    }

    /// Whether `path` is a folder.
    package static func isFolder(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
    }

    /// What such a source is, in words ("jrnl journal"), as `path` shows it.
    package func description(of path: String) -> String {
        switch self {
        case .jsonLines: return "file of Quire's JSON lines"
        case .dayOne: return "Day One export"
        case .jrnl: return "jrnl journal"
        case .markdown:
            return Self.isFolder(path) ? "folder of Markdown notes (Obsidian's, or a Quire export)" : "Markdown note, which comes in with its folder"
        }
    }

    /// The command that imports such a source.
    package func command(for path: String) -> String {
        let quoted = path.contains(" ") ? "'\(path)'" : path
        switch self {
        case .jsonLines: return "quire import \(quoted)"
        case .markdown:
            if Self.isFolder(path) { return "quire import markdown \(quoted)" }
            let parent = (path as NSString).deletingLastPathComponent
            return "quire import markdown " + (parent.isEmpty ? "." : parent.contains(" ") ? "'\(parent)'" : parent)
        default: return "quire import \(name) \(quoted)"
        }
    }
}
