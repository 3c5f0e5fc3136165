import Foundation
import QuireStore

/// Background downloads for a pull: worker connections fetch attachments while the pulling
/// thread merges, and (for more than one segment) a scout reads the segments ahead.
final class Downloads {
    let prefetcher: BlobPrefetcher
    private let scout: SegmentScout?
    private var stopped = false

    private init(prefetcher: BlobPrefetcher, scout: SegmentScout?) {
        self.prefetcher = prefetcher
        self.scout = scout
    }

    /// Starts background downloads over the worker connections, or nil without them.
    static func start(_ context: SyncContext, ahead plan: [PullPlan.Range]) -> Downloads? {
        guard !plan.isEmpty, context.workerBackends.count >= 2 else { return nil }
        let pool = WorkerPool(context.workerRepositories())
        // Segments are read ahead on a quarter of the threads (one, for a few workers); once
        // they are read, those threads download too. (More readers only contend for the same
        // cores: the first segments come in while the key derivation runs, `EarlySegments`,
        // and name the attachments first.)
        let segments = plan.reduce(0) { $0 + $1.seqs.count }
        let readers = segments > 1 ? min(segments, max(1, pool.width / 4)) : 0
        let prefetcher = prefetcher(context, on: pool)
        let scout = readers == 0 ? nil : SegmentScout(segments: plan, pool: pool, readers: readers, keptLimit: context.options.readAheadLimit,
                                                                early: context.earlySegments, prefetcher: prefetcher, blobs: context.store.blobs)
        return Downloads(prefetcher: prefetcher, scout: scout)
    }

    /// Background downloads on every worker connection (no scout), or nil without workers.
    static func prefetcher(_ context: SyncContext) -> BlobPrefetcher? {
        guard !context.workerBackends.isEmpty else { return nil }
        return prefetcher(context, on: WorkerPool(context.workerRepositories()))
    }

    /// Downloads on `pool` into the store's temporary files, counted by the sync's meter,
    /// reading the packs held since the key derivation first.
    private static func prefetcher(_ context: SyncContext, on pool: WorkerPool<Repository>) -> BlobPrefetcher {
        let blobs = context.store.blobs
        return BlobPrefetcher(pool: pool, meter: context.downloadMeter, held: context.earlyPacks?.window) { try blobs.temporaryPath() }
    }

    /// A segment the scout already read and decoded, if it did.
    func segment(_ path: String) -> SegmentScout.Read? { scout?.take(path) }

    func stop() {
        guard !stopped else { return }
        stopped = true
        scout?.stop()
        prefetcher.close()
    }
}
