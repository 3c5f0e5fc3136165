import Foundation
import QuireSupport
import QuireStore
#if canImport(Glibc)
import Glibc
#endif

/// A folder of notes, walked without following a single link: every file in it by its
/// path relative to the folder, and by name for Obsidian's `![[name.png]]`.
struct NoteFolder {
    let root: String
    /// Relative paths of regular files, sorted.
    let files: [String]
    /// Each relative path as it is on disk, found by any canonically equivalent spelling:
    /// Swift compares strings that way, so a link written in NFC finds a file a Mac named
    /// in NFD, and must be read by the name on disk.
    private let onDisk: [String: String]
    /// File name to the shortest relative path with that name.
    let byName: [String: String]

    /// - Throws: `ImportError` for a folder that cannot be read or holds a symbolic link.
    init(root: String) throws {
        self.root = root
        var files: [String] = []
        try Self.walk(root, relative: "", into: &files)
        self.files = files.sorted()
        onDisk = Dictionary(self.files.map { ($0, $0) }, uniquingKeysWith: { first, _ in first })
        var byName: [String: String] = [:]
        for file in self.files {
            let name = (file as NSString).lastPathComponent.lowercased()
            if let known = byName[name], known.count <= file.count { continue }
            byName[name] = file
        }
        self.byName = byName
    }

    private static func walk(_ root: String, relative: String, into files: inout [String]) throws {
        let folder = relative.isEmpty ? root : root + "/" + relative
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw ImportError(path: folder, detail: "cannot be read as a folder")
        }
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = relative.isEmpty ? name : relative + "/" + name
            var info = stat()
            guard lstat(root + "/" + path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                throw ImportError(path: root + "/" + path, detail: "is a symbolic link; links are not followed, so nothing outside the folder is read")
            case S_IFDIR:
                try walk(root, relative: path, into: &files)
            case S_IFREG:
                files.append(path)
            default:
                continue
            }
        }
    }

    /// `path` (relative to the folder of note `from`, or to the root when it starts with `/`
    /// or is not found beside the note) as a path inside the folder, or nil when it leaves it.
    func resolve(_ path: String, from note: String) -> String? {
        let noteFolder = (note as NSString).deletingLastPathComponent
        let candidates = path.hasPrefix("/") ? [String(path.dropFirst())] : [noteFolder.isEmpty ? path : noteFolder + "/" + path, path]
        for candidate in candidates {
            if let normal = Self.normalize(candidate), let file = onDisk[normal] { return file }
        }
        return nil
    }

    /// `a/./b/../c` as `a/c`; nil when `..` climbs above the folder.
    static func normalize(_ path: String) -> String? {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." {
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            } else {
                parts.append(part)
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: "/")
    }

    /// The note a `[[name]]` link means: `name.md` by path from the root when it has a
    /// folder, else the note of that name nearest the root (Obsidian's lookup).
    func note(named name: String) -> String? {
        let file = name.lowercased().hasSuffix(".md") ? name : name + ".md"
        if file.contains("/") { return resolve(file, from: "") }
        return byName[file.lowercased()]
    }

    /// For each note `quire export markdown` wrote, its entry id, read from the first line of
    /// its front matter (the export writes `id` first): links between exported notes come
    /// back as links between entries.
    func exportedNoteIDs() -> [String: String] {
        var ids: [String: String] = [:]
        for note in files where note.lowercased().hasSuffix(".md") {
            guard let head = try? SourceFile.beneath(folder: root, relative: note).head(64) else { continue }
            let text = String(decoding: head, as: UTF8.self)
            guard text.hasPrefix("---\nid: \"") else { continue }
            let id = String(text.dropFirst(9).prefix(36)).lowercased()
            if UUID(uuidString: id) != nil { ids[note] = id }
        }
        return ids
    }

    func source(_ relative: String) -> AttachmentSource {
        .file(.beneath(folder: root, relative: relative))
    }

    func read(_ relative: String) throws -> String {
        let data: Data
        do {
            data = try SourceFile.beneath(folder: root, relative: relative).read(limit: 64 << 20)
        } catch {
            throw ImportError(path: root + "/" + relative, detail: "cannot be read (\(error))")
        }
        guard let text = SourceText.decode(data) else {
            throw ImportError(path: root + "/" + relative, detail: "is not UTF-8 text")
        }
        return text
    }
}
