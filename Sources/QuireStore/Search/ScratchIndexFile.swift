import Foundation
import Glibc

/// The file a search index built on a second thread lives in (`SearchBuild`), in the store's
/// folder, so that the store's connection can attach it and copy its tables in page by page
/// (`Store.installSearch(attached:)`) rather than row by row through Swift: at 100,000
/// entries 185 MB in 0.26 s of the writing thread against 0.71 s.
///
/// Named with the process's id: a process that dies (a crash, a power cut) leaves its file,
/// and the next one to make such a file in the folder removes every one whose process is
/// gone. `remove` takes it away when the copy is done or not wanted.
struct ScratchIndexFile {
    let path: String

    static let prefix = ".search-build-"
    /// The name the store's connection attaches it under.
    static let schema = "search_build"

    /// A new name in `folder`, after the files of processes gone are removed.
    init(in folder: String) {
        Self.removeLeftovers(in: folder)
        path = folder + "/" + Self.prefix + "\(getpid())-" + UUID().uuidString.prefix(8).lowercased() + ".sqlite"
    }

    func remove() {
        for suffix in ["", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Attaches the file to `database`, outside any transaction (SQLite refuses one inside);
    /// false when it cannot be, and the caller copies row by row instead.
    func attach(to database: Database) -> Bool {
        (try? database.prepare("ATTACH DATABASE ? AS \(Self.schema)").run([.text(path)])) != nil
    }

    func detach(from database: Database) {
        try? database.execute("DETACH DATABASE \(Self.schema)")
    }

    /// Removes the files in `folder` whose process no longer runs.
    static func removeLeftovers(in folder: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for name in names where name.hasPrefix(prefix) {
            let pid = name.dropFirst(prefix.count).prefix { $0.isNumber }
            guard let pid = Int32(pid), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }
}
