import Foundation
import QuireRemote
import QuireStore

/// The knobs of a sync, each with a default fit for any real journal; tests and the
/// `QUIRE_*` variables of the CLI turn them down to reach the hard paths with little data.
package struct SyncOptions: Sendable {
    /// Changes per segment: large first syncs become several segments of bounded size.
    package var changesPerSegment = 5000
    /// Changes merged in one transaction at most (unless one segment holds more): a pull of
    /// many segments (a restore, a device long away) merges several per commit.
    package var changesPerMerge = 20_000
    /// The same for a restore, whose store no one else writes meanwhile: fewer, larger
    /// commits write the pages of the clocks' and entries' indexes (random keys) fewer times.
    /// 100,000 entries, a file:// repository, four alternating pairs: 5.74 s against 6.04 s
    /// at 20,000 (the merges 4.43 s against 4.77), resident memory while merging 168 MiB
    /// against 162 (the peak, the key derivation's, the same).
    package var changesPerRestoreMerge = 60_000
    /// How long prune lets an unreferenced attachment wait before collecting it (seconds).
    package var collectionGrace: Double = 24 * 3600
    /// Plaintext bytes of segments read ahead and not yet merged, at most (`SegmentScout`).
    package var readAheadLimit = 16 << 20
    /// The most segments one pull takes from one device's log: far beyond any real device
    /// (a segment per sync, every five minutes for ninety years), far below a forged head.
    static let maxNewSegments = 10_000_000

    package init() {}
}

/// What every engine of a sync works with (`PullEngine`, `PushEngine`, `PruneEngine`,
/// `RepackEngine`, `VerifyEngine`, `RepairEngine`): the store, the repository and its
/// connections, the options, and the hooks a caller sets (cancel, checkpoints). It lives as
/// long as its `Syncer` (a watch syncs many times over one); what one run did is each
/// engine's own, returned as a `SyncReport`.
package final class SyncContext {
    package let store: Store
    package let repository: Repository
    package var backend: Backend { repository.backend }
    package var options = SyncOptions()
    /// Extra connections for downloading attachments in the background and uploading packs,
    /// each used by one thread.
    package var workerBackends: [Backend] = []
    /// Segments fetched while the key derivation ran (`Syncer.open`), taken before fetching one.
    var earlySegments: EarlySegments?
    /// Packs fetched meanwhile for a device that has merged nothing yet: the downloads read
    /// them before asking the server. The first pull alone uses them (`PullEngine`).
    var earlyPacks: EarlyPacks?
    /// Asked between steps; once it returns true, the work stops with `SyncError.cancelled`
    /// at the next step. May be called from upload threads.
    package var isCancelled: @Sendable () -> Bool = { false }
    /// Test hook: called at named points; a test may crash the process there.
    package var checkpoint: (SyncCheckpoint) -> Void = { _ in }
    /// Whether the repository at the URL is known to be this store's (`Heads.confirm`).
    var repositoryConfirmed = true
    /// Segments are written compressed (repository format 3) once the repository is known to
    /// be at that format (`BlobUploads.moveRepositoryForward`); before, as format 2 wrote them.
    var writesCompressed = false
    /// Bytes of attachments downloaded, and the line that shows them while a pull runs.
    let downloadMeter = ByteMeter()
    var pullProgress: PullProgress?

    package init(store: Store, repository: Repository) {
        self.store = store
        self.repository = repository
    }

    /// Throws `.cancelled` once the caller asked to stop.
    func stopIfCancelled() throws {
        if isCancelled() { throw SyncError(.cancelled, detail: "cancelled; the next sync continues where this one stopped") }
    }

    /// What a download reads before asking the server: a pack fetched while the key was derived.
    func heldPack(_ pack: String) -> HeldBytes? { earlyPacks?.window(pack) }

    /// One repository handle per worker connection.
    func workerRepositories() -> [Repository] {
        workerBackends.map { Repository(backend: $0, id: repository.id, keys: repository.keys, keyName: repository.keyName) }
    }

    /// The connections uploads go over: the worker connections when there are some (each
    /// then used by one upload thread), else this sync's own.
    func uploadConnections() -> [Backend] {
        workerBackends.count >= 2 ? Array(workerBackends.prefix(8)) : [backend]
    }

    /// Runs a merge of `object`'s changes; a value the store refuses (out of range, the wrong
    /// type) is damage of that object (or of the segment the store names), and the error names it.
    func naming<T>(_ object: String, _ merge: () throws -> T) throws -> T {
        do {
            return try merge()
        } catch let error as StoreError where error.kind == .malformed {
            throw SyncError(.damaged, object: error.path ?? object, detail: error.detail)
        }
    }
}
