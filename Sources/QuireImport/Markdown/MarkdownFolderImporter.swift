import Foundation
import QuireStore

/// Brings in a folder of Markdown notes (`quire import markdown FOLDER`): what `quire export
/// markdown` wrote (read back exactly, see `QuireNote`) and Obsidian notes (`ObsidianNote`).
/// Notes with neither Quire's front matter nor a date are passed over and listed in the
/// summary's `skipped`. Nothing outside FOLDER is read: links are refused, and attachment
/// paths are resolved inside it.
package struct MarkdownFolderImporter {
    let path: String
    let zone: TimeZone

    package init(path: String, zone: TimeZone = .current) {
        self.path = path
        self.zone = zone
    }

    /// - Throws: `ImportError` naming the note (and the front matter's line).
    package func run(into store: Store, journal: String? = nil, progress: ProgressHandler? = nil) throws -> ImportSummary {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
            throw ImportError(path: path, detail: "is not a folder")
        }
        let folder = try NoteFolder(root: path)
        let notes = folder.files.filter { $0.lowercased().hasSuffix(".md") }
        let exported = folder.exportedNoteIDs()
        var missing: [String] = []
        var skipped: [String] = []
        var summary = try store.importEntries(journal: journal) { emit in
            for (index, note) in notes.enumerated() {
                let shown = path + "/" + note
                let text = try folder.read(note)
                let (yamlText, rest) = FrontMatter.split(text)
                var yaml: YAMLNode?
                if let yamlText {
                    do {
                        yaml = try FrontMatter.parse(yamlText)
                    } catch let error as FrontMatterError {
                        throw ImportError(path: shown, place: "line \(error.line)", detail: "front matter " + error.detail)
                    }
                }
                let item: ImportedEntry
                let lacking: [String]
                if let yaml, QuireNote.matches(yaml) {
                    (item, lacking) = try QuireNote.entry(yaml, rest: rest, note: note, folder: folder, exported: exported) {
                        ImportError(path: shown, place: "front matter", detail: $0)
                    }
                } else if let created = ObsidianNote.date(yaml, note: note, zone: zone) {
                    (item, lacking) = ObsidianNote.entry(yaml, rest: rest, created: created, note: note, folder: folder)
                } else {
                    if note != "index.md" { skipped.append(note) }
                    continue
                }
                missing += lacking.map { note + ": " + $0 }
                do {
                    try emit(item)
                } catch let error as StoreError {
                    throw ImportError(path: shown, detail: error.description)
                }
                if index % 200 == 0 { progress?(Int64(index), Int64(notes.count)) }
            }
            progress?(Int64(notes.count), Int64(notes.count))
        }
        summary.missing = missing
        summary.skipped = skipped
        return summary
    }
}
