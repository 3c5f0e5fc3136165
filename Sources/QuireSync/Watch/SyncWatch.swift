import Foundation
import QuireStore

/// How one round of a watch (`Journal.watch`) ended.
public enum WatchRound {
    case synced(SyncReport)
    case failed(Error)
}

/// Keeps a store in step with its repository (`quire sync --watch`, the user service): a
/// sync every `interval`, and one soon after a local change (another process writing the
/// store, seen by inotify: `settle` seconds later, if it left something to push). While the server fails, the next try waits longer each time (15 s, 30 s, 1 min …
/// up to the larger of `interval` and 30 min), and the failure is recorded in the store for
/// `quire service status`. A failed round ends the watch only when a newer Quire has
/// upgraded the store (it throws; the user service starts again, with the new Quire).
package final class SyncWatch {
    package typealias Round = WatchRound

    let syncer: Syncer
    let interval: TimeInterval
    package var settle: TimeInterval = 2

    package init(syncer: Syncer, interval: TimeInterval) {
        self.syncer = syncer
        self.interval = interval
    }

    /// How long to wait after `failures` failed rounds in a row.
    package static func backoff(failures: Int, interval: TimeInterval) -> TimeInterval {
        let cap = max(interval, 1800)
        return min(cap, 15 * pow(2, Double(max(0, min(failures - 1, 20)))))
    }

    /// Syncs until `shouldStop` says so (checked at least every 200 ms between rounds).
    /// `round` hears of each round and when the next one is due.
    /// - Throws: `StoreError.newerSchema`.
    package func run(progress: ((String) -> Void)? = nil, shouldStop: @escaping @Sendable () -> Bool,
                    round: (Round, _ next: TimeInterval) -> Void) throws {
        let store = syncer.store
        let watcher = FolderWatcher(folder: store.folder)
        // A stop asked for in the middle of a long round ends it at its next step.
        let previous = syncer.isCancelled
        syncer.isCancelled = { shouldStop() || previous() }
        defer { syncer.isCancelled = previous }
        var failures = 0
        while !shouldStop() {
            let wait: TimeInterval
            do {
                try store.checkSchemaIsOurs()  // also checked by every write
                let report = try syncer.sync(progress: progress)
                try store.recordSync(at: Timestamp.now())
                failures = 0
                wait = interval
                round(.synced(report), wait)
            } catch let error as SyncError where error.kind == .cancelled {
                break  // stopping: no failure to record
            } catch let error as StoreError where error.kind == .newerSchema {
                try? store.recordSyncFailure("\(error)", at: Timestamp.now())
                throw error
            } catch {
                failures += 1
                try? store.recordSyncFailure("\(error)", at: Timestamp.now())
                wait = Self.backoff(failures: failures, interval: interval)
                round(.failed(error), wait)
            }
            watcher?.drain()  // what this round wrote itself
            let due = Date().addingTimeInterval(wait)
            // A change made while the round ran is still pending: it goes soon too.
            var changedAt: Date? = (try? store.hasPendingChanges()) == true ? Date() : nil
            while !shouldStop() && Date() < due {
                if watcher?.wait(0.2) == true {
                    // The first event of a burst: readers touch the files too (`quire list`
                    // checkpoints the WAL), so events are only a hint to look.
                    if changedAt == nil { changedAt = Date() }
                } else if watcher == nil {
                    usleep(200_000)
                }
                // `settle` after a change, with something to push: sync now (while the server
                // fails, the backoff still holds).
                if let at = changedAt, failures == 0, Date().timeIntervalSince(at) >= settle {
                    if (try? store.hasPendingChanges()) == true { break }
                    changedAt = nil
                }
            }
        }
    }
}

