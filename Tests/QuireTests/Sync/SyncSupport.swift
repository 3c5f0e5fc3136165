import Foundation
@testable import QuireCrypto
@testable import QuireRemote
@testable import QuireStore
@testable import QuireSync

/// A repository in a temporary folder and any number of stores (devices) syncing with it.
final class SyncWorld {
    let dir = TempDir()
    let backend: Backend
    let repositoryID: String
    var stores: [Store] = []

    init(devices: Int, backend: Backend? = nil) throws {
        let backend = backend ?? LocalBackend(root: dir.path + "/repo")
        self.backend = backend
        repositoryID = try Repository.initialize(backend: backend, passphrase: try secret("pw"), cost: testCost).id
        for i in 0..<devices { stores.append(try makeDevice("d\(i)")) }
    }

    func makeDevice(_ name: String, clock: ManualClock? = nil) throws -> Store {
        var options = Store.Options(create: true)
        if let clock { options.clock = clock.wallClock }
        let store = try Store(folder: dir.path + "/" + name, options: options)
        try store.setRemote(url: "file://" + dir.path + "/repo", user: nil, passwordFile: nil)
        try store.setRepositoryID(repositoryID)
        return store
    }

    func syncer(_ store: Store, backend: Backend? = nil) throws -> Syncer {
        let repository = try Repository.open(backend: backend ?? self.backend, passphrase: try secret("pw"), expectedID: repositoryID)
        return Syncer(store: store, repository: repository)
    }

    @discardableResult
    func sync(_ store: Store) throws -> SyncReport { try syncer(store).sync() }

    func dump(_ store: Store) throws -> String {
        let out = dir.path + "/dump-" + UUID().uuidString
        try store.exportJSON(to: out)
        defer { try? FileManager.default.removeItem(atPath: out) }
        return (try? String(contentsOfFile: out + "/entries.jsonl", encoding: .utf8)) ?? ""
    }

    func file(_ name: String, _ bytes: [UInt8]) -> String { dir.file(name, bytes: bytes) }

    /// The conflicts `store` lists, each as its id, field and text, sorted.
    func conflictList(_ store: Store) throws -> [String] {
        try store.conflicts().map { "\($0.id) \($0.field) \($0.value)" }.sorted()
    }

    /// The full-text index's rows, every column, by entry id (rowids differ between stores).
    /// An entry's transcripts are compared as a set of lines: `search_source` joins them in
    /// the order its store holds the attachments, which is the order they arrived in there.
    func searchRows(_ store: Store) throws -> [String] {
        try store.database.prepare("""
            SELECT e.id, s.title, s.body, s.transcripts, s.tags, s.place FROM search s JOIN entries e ON e.rowid = s.rowid ORDER BY e.id
            """).rows { row in
            let transcripts = row.text(3).split(separator: "\n", omittingEmptySubsequences: false).sorted().joined(separator: "\n")
            return [row.text(0), row.text(1), row.text(2), transcripts, row.text(4), row.text(5)].joined(separator: "|")
        }
    }
}

extension SyncWorld {
    /// Where local blob `local` is on the server, as `store` knows it.
    func remote(of local: String, in store: Store) throws -> RemoteBlob? {
        try store.remoteBlobRecord(local).map { RemoteBlob(id: $0.id, location: BlobLocation(text: $0.location)) }
    }

    /// The server objects holding local blob `local` (its packs, or a format-1 blob object).
    func objects(of local: String, in store: Store) throws -> [String] {
        guard let remote = try remote(of: local, in: store) else { return [] }
        return remote.location.map { Array(Set($0.extents.map(\.pack))).sorted() } ?? [Repository.blobPath(remote.id)]
    }
}

/// A frozen repository of `Tests/QuireTests/Fixtures` (written with the passphrase
/// `fixture`), copied into a temporary folder so tests may move it forward.
struct FixtureRepository {
    let fixture: String
    let dir = TempDir()
    let backend: LocalBackend

    init(_ name: String, file: String = #filePath) throws {
        fixture = URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/" + name).path
        try FileManager.default.copyItem(atPath: fixture + "/repo", toPath: dir.path + "/repo")
        backend = LocalBackend(root: dir.path + "/repo")
    }

    func open() throws -> Repository { try Repository.open(backend: backend, passphrase: try secret("fixture"), expectedID: nil) }

    /// The files of `expected/media`: what the store that wrote the repository held.
    func expectedMedia() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: fixture + "/expected/media").sorted() }

    /// The files of `expected/` (entries.jsonl and each attachment) that `store`'s JSON
    /// export does not reproduce byte for byte; empty when it is the journal as written.
    func differencesFromExpected(_ store: Store) throws -> [String] {
        let out = dir.path + "/dump-" + UUID().uuidString
        try store.exportJSON(to: out)
        return try (["entries.jsonl"] + expectedMedia().map { "media/" + $0 }).filter {
            !FileManager.default.contentsEqual(atPath: fixture + "/expected/" + $0, andPath: out + "/" + $0)
        }
    }

    /// A new store named `name`, restored from the repository.
    func restore(_ name: String) throws -> Store {
        let store = try makeStore(dir, name: name)
        try store.setRemote(url: "file://" + dir.path + "/repo", user: nil, passwordFile: nil)
        let repository = try open()
        try store.setRepositoryID(repository.id)
        _ = try Syncer(store: store, repository: repository).restore()
        return store
    }
}
