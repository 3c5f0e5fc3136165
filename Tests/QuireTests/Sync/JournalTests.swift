import Foundation
import Testing
@testable import QuireKit
@testable import QuireStore

/// QuireKit's entry point: what the CLI and an embedding app both go through. The refusals
/// that protect a journal live here, so an app gets them without reimplementing them.
@Suite struct JournalTests {
    let dir = TempDir()
    var address: RemoteAddress { RemoteAddress(url: "file://" + dir.path + "/repository") }

    func journal(_ name: String) throws -> Journal { try Journal(folder: dir.path + "/" + name, create: true) }

    func created(_ name: String) throws -> Journal {
        let journal = try journal(name)
        try journal.setRemote(address)
        try journal.createRepository(passphrase: try secret("pw"), cost: testCost)
        return journal
    }

    @Test func aJournalWithoutARemoteSaysSoBeforeAskingForAnything() throws {
        let journal = try journal("a")
        var asked = false
        func noRemote(_ error: Error) -> Bool { (error as? SyncError)?.kind == .noRemote }
        #expect { try journal.sync(.cachedKeyOr(passphrase: { asked = true; return try secret("pw") })) } throws: { noRemote($0) }
        #expect { try journal.createRepository(passphrase: try secret("pw"), cost: testCost) } throws: { noRemote($0) }
        #expect(!asked)
    }

    @Test func aJournalMakesOneRepositoryItsOwnAndSyncsWithTheCachedKey() throws {
        let journal = try created("a")
        #expect { try journal.createRepository(passphrase: try secret("pw"), cost: testCost) } throws: { (error: Error) in (error as? SyncError)?.kind == .alreadySyncs }
        _ = try journal.store.add(NewEntry(title: "Ἀρχή"))
        let report = try journal.sync(.cachedKeyOnly)  // no passphrase: the key was cached at creation
        #expect(report.segmentsPushed == 1)
        #expect(try journal.store.lastSync() != nil)
    }

    /// With the cached key a sync asks nothing before it lists `heads/`: a log this device
    /// wrote or merged, shown there as far as it has it, says the repository is still this
    /// one. Another repository put at the same address shows no such log, so the sync reads
    /// `quire-repo.json` and refuses it; so does a name in `heads/` this Quire does not know,
    /// which a newer format leaves there.
    @Test func aCachedKeySyncKnowsItsRepositoryByTheLogsItHas() throws {
        let journal = try created("a")
        _ = try journal.store.add(NewEntry(title: "first"))
        try journal.sync(.cachedKeyOnly)
        // A device that only reads knows the repository by the log it merged.
        let reader = try self.journal("reader")
        try reader.restore(from: address, .cachedKeyOr(passphrase: { try secret("pw") }))
        let repository = dir.path + "/repository"
        try FileManager.default.moveItem(atPath: repository, toPath: dir.path + "/kept")
        let stranger = try created("stranger")
        _ = try stranger.store.add(NewEntry(title: "theirs"))
        try stranger.sync(.cachedKeyOnly)
        #expect { try journal.sync(.cachedKeyOnly) } throws: { ($0 as? SyncError)?.kind == .wrongRepository }
        #expect { try reader.sync(.cachedKeyOnly) } throws: { ($0 as? SyncError)?.kind == .wrongRepository }
        #expect(try journal.store.entries().map(\.title) == ["first"] && reader.store.entries().map(\.title) == ["first"])

        try FileManager.default.removeItem(atPath: repository)
        try FileManager.default.moveItem(atPath: dir.path + "/kept", toPath: repository)
        _ = try journal.store.add(NewEntry(title: "second"))
        #expect(try journal.sync(.cachedKeyOnly).segmentsPushed == 1)
        #expect(try reader.sync(.cachedKeyOnly).segmentsPulled == 1)
        let config = repository + "/quire-repo.json"
        let newer = try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(of: "\"format\":3", with: "\"format\":9")
        try #require(newer.contains("\"format\":9"))
        try newer.write(toFile: config, atomically: true, encoding: .utf8)
        #expect(FileManager.default.createFile(atPath: repository + "/heads/format.9", contents: Data()))
        _ = try journal.store.add(NewEntry(title: "third"))
        #expect { try journal.sync(.cachedKeyOnly) } throws: {
            ($0 as? SyncError)?.kind == .badConfig && "\($0)".contains("upgrade Quire")
        }
    }

    @Test func aSecondSyncOfTheSameStoreIsRefusedWhileOneRuns() throws {
        let journal = try created("a")
        // Held by another thread (as another process would): refused here.
        let taken = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), ended = DispatchSemaphore(value: 0)
        let folder = journal.store.folder
        Thread.detachNewThread {
            do {
                let held = try? SyncLock(storeFolder: folder)
                taken.signal()
                release.wait()
                withExtendedLifetime(held) {}
            }  // given back here, before the main thread hears of it
            ended.signal()
        }
        #expect(taken.wait(timeout: .now() + Hang.limit) == .success)
        #expect { try journal.sync(.cachedKeyOnly) } throws: { ($0 as? SyncError)?.kind == .locked }
        release.signal()
        #expect(ended.wait(timeout: .now() + Hang.limit) == .success)
        #expect(throws: Never.self) { try journal.sync(.cachedKeyOnly) }
    }

    /// An app that drives `Syncer`s itself (progress, cancelling) holds the store's sync lock
    /// too: two syncers of one store, on two threads, never sync at once. The first is held
    /// at a named step while the second tries, so nothing here races the clock.
    @Test func twoSyncersOfOneStoreNeverOverlap() throws {
        let journal = try created("a")
        _ = try journal.store.add(NewEntry(title: "written here"))
        let first = try journal.syncer(.cachedKeyOnly), second = try journal.syncer(.cachedKeyOnly)
        let reached = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        first.installCheckpoints { point in
            guard point == .segmentsMade else { return }
            reached.signal()
            release.wait()
        }
        let outcome = Outcome()
        nonisolated(unsafe) let running = first  // used by that thread alone until `done`
        Thread.detachNewThread {
            do { outcome.set(try running.sync().segmentsPushed) } catch { outcome.set(error) }
            done.signal()
        }
        #expect(reached.wait(timeout: .now() + Hang.limit) == .success, "the first sync reached its segments")
        #expect { try second.sync() } throws: { ($0 as? SyncError)?.kind == .locked }
        #expect { try second.prune() } throws: { ($0 as? SyncError)?.kind == .locked }
        #expect { try journal.sync(.cachedKeyOnly) } throws: { ($0 as? SyncError)?.kind == .locked }
        release.signal()
        #expect(done.wait(timeout: .now() + Hang.limit) == .success)
        #expect(outcome.pushed == 1, "\(String(describing: outcome.error))")
        #expect(try second.sync().segmentsPushed == 0, "free again once the first is done")
    }

    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var _pushed: Int?, _error: Error?
        func set(_ pushed: Int) { lock.withLock { _pushed = pushed } }
        func set(_ error: Error) { lock.withLock { _error = error } }
        var pushed: Int? { lock.withLock { _pushed } }
        var error: Error? { lock.withLock { _error } }
    }

    /// Restoring over a journal would point it at another repository: refused before
    /// anything is written, and the store's remote is left as it was.
    @Test func restoreRefusesAStoreThatHoldsAJournalAndChangesNothing() throws {
        _ = try created("a")
        let other = try journal("b")
        _ = try other.store.add(NewEntry(title: "mine"))
        let before = try other.store.remoteSettings()
        #expect { try other.restore(from: self.address, .cachedKeyOr(passphrase: { try secret("pw") })) } throws: {
            ($0 as? SyncError)?.kind == .notEmpty
        }
        #expect(try other.store.remoteSettings() == before)
        #expect(try other.store.entries().map(\.title) == ["mine"])
    }

    @Test func aWatchThatCannotUnlockRecordsWhyForServiceStatus() throws {
        let first = try created("a")
        let laptop = try journal("b")
        try laptop.restore(from: address, .cachedKeyOr(passphrase: { try secret("pw") }))
        KeyCache.forget(storeFolder: laptop.store.folder)
        #expect(throws: SyncError.self) {
            try laptop.watch(.cachedKeyOnly, interval: 60, shouldStop: { true }) { _, _ in }
        }
        #expect(try laptop.store.lastSyncFailure()?.reason.contains("no key is cached") == true)
        withExtendedLifetime(first) {}
    }

    /// A watch started before a newer Quire upgraded its store (its migration may have
    /// rebuilt the search index with a tokenizer this one lacks) ends at its next round,
    /// writing nothing, and says why; the user service starts again with the newer Quire.
    @Test func aWatchEndsWhenANewerQuireUpgradesItsStore() throws {
        final class Flag: @unchecked Sendable { var raised = false }
        let journal = try created("a")
        _ = try journal.store.add(NewEntry(title: "pending"))
        try journal.store.database.execute("PRAGMA user_version = 999")
        let roundHeard = Flag()
        #expect {
            try journal.watch(.cachedKeyOnly, interval: 60, shouldStop: { roundHeard.raised }) { _, _ in roundHeard.raised = true }
        } throws: { ($0 as? StoreError)?.kind == .newerSchema && "\($0)".contains("while this one ran") }
        #expect(!roundHeard.raised)
        #expect(try journal.store.hasPendingChanges())
        #expect { _ = try journal.store.add(NewEntry(title: "after")) } throws: { ($0 as? StoreError)?.kind == .newerSchema }
        #expect(try journal.store.entries().map(\.title) == ["pending"])
    }

    @Test func connectionsAreWrappedAndTunedAsTheAppSays() throws {
        let journal = try created("a")
        var made = 0
        journal.connection.wrap = { made += 1; return $0 }
        journal.connection.workers = 2
        var prepared = false
        journal.prepare = { _ in prepared = true }
        _ = try journal.sync(.cachedKeyOnly)
        #expect(made == 3 && prepared)
    }
}
