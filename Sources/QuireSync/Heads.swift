import Foundation
import QuireRemote
import QuireStore

/// `heads/`: one empty object per device, `<device>.<seq>`, naming its newest segment. One
/// listing tells every device's position; the first listing of a sync also confirms that the
/// repository at the URL is this store's.
struct Heads {
    let context: SyncContext
    static let folder = "heads"

    /// The heads listed, and how many other files `heads/` holds.
    typealias Listed = (heads: [String: [Int]], strangers: Int)

    /// Every device's newest segment number, from the names in `heads/` (or from `listed`,
    /// a listing made earlier in this sync); the first listing also confirms the repository
    /// (`confirm`).
    func read(listed: Listed? = nil) throws -> [String: [Int]] {
        let (heads, strangers) = try listed ?? Self.list(over: context.backend)
        if !context.repositoryConfirmed { try confirm(heads: heads, strangers: strangers) }
        return heads
    }

    /// The listing itself, over any connection (`EarlySegments` lists them before the
    /// repository is open).
    static func list(over backend: Backend) throws -> Listed {
        let entries: [RemoteEntry]
        do {
            entries = try backend.list(folder)
        } catch let error as RemoteError where error.kind == .notFound {
            entries = []
        }
        var heads: [String: [Int]] = [:], strangers = 0
        for entry in entries where !entry.isFolder {
            if let head = Head(name: entry.name) { heads[head.device, default: []].append(head.seq) } else { strangers += 1 }
        }
        return (heads, strangers)
    }

    /// Makes sure the repository at the URL is the one this store syncs with, before anything
    /// is taken from it or written to it. Opened with a cached key, nothing was asked yet: the
    /// heads listing answers when it shows a log this store knows (its own, or one it merged)
    /// at least as far as this store has it, and no name this Quire does not know (a newer
    /// Quire's, whose format it may not write into). Device ids are random: only this
    /// repository, or a copy of it, holds those names. Otherwise `quire-repo.json` is read, as
    /// an unlock does: a different or missing repository, or one of a newer format, is a
    /// hard error. Without `heads`, that file is read.
    func confirm(heads: [String: [Int]]? = nil, strangers: Int = 0) throws {
        guard !context.repositoryConfirmed else { return }
        if let heads, strangers == 0,
           try context.store.syncLogs().contains(where: { device, log in log.seq > 0 && (heads[device]?.max() ?? 0) >= log.seq }) {
            context.repositoryConfirmed = true
            return
        }
        try context.repository.confirmIdentity()
        context.repositoryConfirmed = true
    }

    /// The head names this device's newest segment, and its name is all it says: an empty
    /// object, one request of header bytes. (Quires before this sealed the segment's hash and
    /// how far the device merged the other logs into it; the positions now travel in every
    /// segment, where a prune reads them, and a pull never read the hash: each segment is
    /// authenticated, and chained by the next.)
    func publish(seq: Int, previous: [Int]) throws {
        let me = context.store.deviceID
        // Read by name alone: a plain PUT will do.
        try context.backend.putData(Self.path(device: me, seq: seq), Data())
        // Old heads go a few at a time (the newest counts), to keep a sync after an edit at 3 requests.
        let stale = previous.filter { $0 < seq }
        if stale.count >= 3 {
            for old in stale { try? context.backend.delete(Self.path(device: me, seq: old)) }
        }
        context.checkpoint(.headsCleaned)
    }

    static func path(device: String, seq: Int) -> String { folder + "/" + Head(device: device, seq: seq).name }
}
