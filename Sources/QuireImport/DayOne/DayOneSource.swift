import Foundation
import QuireStore

/// A Day One JSON export as it came: the zip (read in place) or the folder it unpacks to.
/// It holds one `<Journal name>.json` per journal and the media folders `photos/`, `audios/`,
/// `videos/` and `pdfs/`, whose files are named `<md5>.<type>`.
struct DayOneSource {
    private enum Storage {
        case zip(ZipArchive)
        case folder(String)
    }

    private let storage: Storage
    let path: String
    /// The journal files, sorted: `Journal.json`, `Travel.json`.
    let journals: [String]
    /// For each media folder, each file's name without extension (the md5) to its path.
    private let media: [String: [String: String]]

    static let mediaFolders = ["photos", "audios", "videos", "pdfs"]

    /// - Throws: `ImportError` for a damaged zip, an entry that escapes, a missing folder,
    ///   or an export that holds no journal.
    init(path: String) throws {
        self.path = path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw ImportError(path: path, detail: "no such file or folder")
        }
        var names: [String]
        if isFolder.boolValue {
            storage = .folder(path)
            names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".json") }
            for folder in Self.mediaFolders {
                for file in (try? FileManager.default.contentsOfDirectory(atPath: path + "/" + folder)) ?? [] {
                    names.append(folder + "/" + file)
                }
            }
        } else {
            let archive = try ZipArchive(path: path)
            storage = .zip(archive)
            names = Array(archive.names.keys)
        }
        journals = names.filter { !$0.contains("/") && $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
        var media: [String: [String: String]] = [:]
        for name in names {
            let parts = name.split(separator: "/")
            guard parts.count == 2, Self.mediaFolders.contains(String(parts[0])) else { continue }
            let stem = parts[1].split(separator: ".", maxSplits: 1).first.map(String.init) ?? String(parts[1])
            media[String(parts[0]), default: [:]][stem.lowercased()] = name
        }
        self.media = media
        guard !journals.isEmpty else {
            throw ImportError(path: path, detail: "holds no Day One journal (a <Journal name>.json beside photos/); is it Day One's JSON export?")
        }
    }

    /// The journal file `name`, parsed.
    func journal(_ name: String) throws -> JSONValue {
        let data: Data
        switch storage {
        case .zip(let archive):
            data = try archive.read(name, limit: 1 << 30)
        case .folder(let folder):
            do {
                data = try SourceFile.beneath(folder: folder, relative: name).read(limit: 1 << 30)
            } catch {
                throw ImportError(path: path, place: name, detail: "cannot be read (\(error))")
            }
        }
        return try JSONFile.parse(data, path: path, place: name)
    }

    /// The file of the media item with `md5` in `folder`, or nil when the export lacks it.
    func file(md5: String, in folder: String) -> (name: String, source: AttachmentSource)? {
        guard let name = media[folder]?[md5.lowercased()] else { return nil }
        switch storage {
        case .zip(let archive):
            return (name, AttachmentSource(key: "zip:" + name, shown: path + ": " + name) { try archive.open(name) })
        case .folder(let folder):
            return (name, .file(.beneath(folder: folder, relative: name)))
        }
    }
}
