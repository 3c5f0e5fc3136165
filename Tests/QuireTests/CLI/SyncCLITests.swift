import Foundation
import Testing
@testable import QuireStore

/// `quire sync`, `restore`, `verify`, `status` as a person runs them, and a sync killed at
/// every step of the way.
@Suite struct SyncCLITests {
    static let env = ["QUIRE_KDF_COST": "1,8192", "QUIRE_PASSPHRASE": "pw"]

    /// Device A with the sample journal and an extra big attachment, a repository, device B.
    func setUp(_ dir: TempDir) throws -> (a: String, b: String, repo: String) {
        let (a, b, repo) = (dir.path + "/a", dir.path + "/b", "file://" + dir.path + "/repo")
        let file = InterchangeTests.sampleFile(in: dir)
        #expect(try QuireBinary.run(["import", file], store: a).status == 0)
        let id = try QuireBinary.run(["add", "--title", "big", "--body", "x"], store: a).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = dir.file("big.bin", bytes: (0..<400_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        #expect(try QuireBinary.run(["attach", id, dir.path + "/big.bin", "--transcript", "a long recording"], store: a).status == 0)
        for store in [a, b] { #expect(try QuireBinary.run(["remote", "set", repo], store: store).status == 0) }
        #expect(try QuireBinary.run(["remote", "init"], store: a, environment: Self.env).status == 0)
        return (a, b, repo)
    }

    func dump(_ store: String, _ dir: TempDir) throws -> String {
        let out = dir.path + "/dump-" + UUID().uuidString
        let run = try QuireBinary.run(["export", "json", out], store: store)
        #expect(run.status == 0, "\(run.stderr)")
        return (try? String(contentsOfFile: out + "/entries.jsonl", encoding: .utf8)) ?? ""
    }

    func sync(_ store: String, _ extra: [String: String] = [:]) throws -> QuireRun {
        try QuireBinary.run(["sync", "--json"], store: store, environment: Self.env.merging(extra) { $1 })
    }

    /// A new device sees how fresh its restore is: the newest change's time and device, in
    /// the restore's last line, its JSON and `status`; with --not-before a later date, the
    /// repository is refused (exit 1) and nothing is left behind, in a new folder or an
    /// empty one given.
    @Test func aRestoreSaysHowFreshItIsAndRefusesAnOlderOne() throws {
        let dir = TempDir()
        let (a, _, repo) = try setUp(dir)
        #expect(try sync(a).status == 0)
        let newest = try #require(try Store(folder: a).newestChange())
        #expect(newest.device == (try Store(folder: a).deviceID))
        let plain = try QuireBinary.run(["restore", repo], store: dir.path + "/c", environment: Self.env)
        #expect(plain.status == 0 && plain.stderr.contains("The newest change is from ") && plain.stderr.contains(String(newest.device.prefix(8))),
                "\(plain.stderr)")
        let json = try QuireBinary.run(["restore", repo, "--json", "--not-before", "2020-01-01"], store: dir.path + "/d", environment: Self.env)
        let found = try #require(try JSONValue.parse(json.stdout).object?["newest_change"]?.object)
        #expect(json.status == 0 && found["time"]?.string == newest.timestamp.text && found["device"]?.string == newest.device)
        let status = try #require(try JSONValue.parse(try QuireBinary.run(["status", "--json"], store: dir.path + "/d").stdout).object)
        #expect(status["newest_change"]?.object?["time"]?.string == newest.timestamp.text)
        #expect(try QuireBinary.run(["status"], store: dir.path + "/d").stdout.contains("newest:     "))

        let later = Timestamp(microseconds: newest.timestamp.microseconds + 86_400_000_000, offsetSeconds: 0).text
        let refused = try QuireBinary.run(["restore", repo, "--not-before", later], store: dir.path + "/e", environment: Self.env)
        #expect(refused.status == 1 && refused.stderr.contains("before the date asked for"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/e"))
        try FileManager.default.createDirectory(atPath: dir.path + "/f", withIntermediateDirectories: false)
        let intoEmpty = try QuireBinary.run(["restore", repo, "--not-before", later], store: dir.path + "/f", environment: Self.env)
        #expect(intoEmpty.status == 1)
        #expect((try FileManager.default.contentsOfDirectory(atPath: dir.path + "/f")).isEmpty)
    }

    @Test func syncRestoreVerifyStatus() throws {
        let dir = TempDir()
        let (a, b, repo) = try setUp(dir)
        let first = try sync(a)
        #expect(first.status == 0, "\(first.stderr)")
        let report = try #require(try JSONValue.parse(first.stdout).object)
        #expect(report["segments_pushed"]?.number == 1 && report["blobs_uploaded"]?.number == 3)
        #expect(try sync(b).status == 0)
        #expect(try dump(a, dir) == dump(b, dir))
        // Without a passphrase now: the key is kept on each machine after the first unlock.
        // B has pushed nothing, but the listing shows A's log as far as B merged it, so it
        // alone says the repository is B's: a sync that finds nothing new is one request.
        let noop = try QuireBinary.run(["sync", "--json"], store: b, environment: ["QUIRE_KDF_COST": "1,8192"])
        #expect(noop.status == 0, "\(noop.stderr)")
        #expect(try JSONValue.parse(noop.stdout).object?["requests"]?.number == 1)

        let restore = try QuireBinary.run(["restore", repo], store: dir.path + "/c", environment: Self.env)
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(try dump(dir.path + "/c", dir) == dump(a, dir))
        let verify = try QuireBinary.run(["verify", "--read-data"], store: dir.path + "/c", environment: Self.env)
        #expect(verify.status == 0 && verify.stdout.contains("all present and authentic"), "\(verify.stdout)\(verify.stderr)")
        let again = try QuireBinary.run(["restore", repo], store: a, environment: Self.env)
        #expect(again.status == 1 && again.stderr.contains("already holds a journal"))

        let status = try QuireBinary.run(["status", "--json"], store: b)
        let s = try #require(try JSONValue.parse(status.stdout).object)
        #expect(s["pending"]?.number == 0 && s["entries"]?.number == 5 && s["remote"]?.string == repo)
        #expect(try QuireBinary.run(["edit", String(try #require(try Store(folder: b).entries().first?.id).prefix(8)), "--title", "new"], store: b).status == 0)
        #expect(try JSONValue.parse(try QuireBinary.run(["status", "--json"], store: b).stdout).object?["pending"]?.number == 1)
        // B's first push makes its log's folder; after that, one edited entry goes up in three
        // requests: heads (which also show the repository is still this one), segment, head.
        #expect(try sync(b).status == 0)
        #expect(try QuireBinary.run(["edit", String(try #require(try Store(folder: b).entries().first?.id).prefix(8)), "--title", "newer"], store: b).status == 0)
        let edited = try sync(b)
        let editRequests = try JSONValue.parse(edited.stdout).object?["requests"]?.number ?? 99
        #expect(edited.status == 0 && editRequests == 3, "\(edited.stdout)")
        // And after its own push, still the one listing.
        let quiet = try QuireBinary.run(["sync", "--json"], store: b, environment: ["QUIRE_KDF_COST": "1,8192"])
        let quietRequests = try JSONValue.parse(quiet.stdout).object?["requests"]?.number
        #expect(quiet.status == 0 && quietRequests == 1, "\(quiet.stdout)")

        // Prune through the command line; a restore afterwards still brings everything back.
        let pruned = try QuireBinary.run(["prune", "--json"], store: a, environment: Self.env)
        #expect(pruned.status == 0, "\(pruned.stderr)")
        let fromSnapshot = try QuireBinary.run(["restore", repo, "--json"], store: dir.path + "/d", environment: Self.env)
        #expect(fromSnapshot.status == 0, "\(fromSnapshot.stderr)")
        #expect(try dump(dir.path + "/d", dir) == dump(a, dir))
        // The report counts what came from the snapshot, and the background connections' traffic.
        let counts = try #require(try JSONValue.parse(fromSnapshot.stdout).object)
        #expect(counts["attachments"]?.number == 3 && counts["segments"]?.number == 0, "\(counts)")
        #expect((counts["requests"]?.number ?? 0) >= 4 && (counts["bytes_down"]?.number ?? 0) > 0, "\(counts)")

        // Damage on the server: verify --read-data names the pack and the attachment a damaged
        // byte belongs to, and exits 1; a pack gone is named by verify alone.
        let packs = try FileManager.default.subpathsOfDirectory(atPath: dir.path + "/repo/packs").filter { $0.count > 40 }.sorted()
        try #require(packs.count == 1, "the three attachments share one pack")
        let damaged = dir.path + "/repo/packs/" + packs[0]
        var bytes = try Data(contentsOf: URL(fileURLWithPath: damaged))
        bytes[100] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let read = try QuireBinary.run(["verify", "--read-data"], store: a, environment: Self.env)
        #expect(read.status == 1 && read.stdout.contains("problem: packs/" + packs[0]) && read.stdout.contains("attachment "), "\(read.stdout)")
        try FileManager.default.removeItem(atPath: damaged)
        let broken = try QuireBinary.run(["verify"], store: a, environment: Self.env)
        #expect(broken.status == 1 && broken.stdout.contains("problem: packs/" + packs[0]), "\(broken.stdout)")
    }

    /// Each round's report is read as it comes: a change made after the first round goes up
    /// in a later one, and SIGTERM ends the watch with exit 0. No step waits on the clock.
    @Test func watchSyncsUntilTerminatedAndStopsCleanly() throws {
        let dir = TempDir()
        let (a, b, _) = try setUp(dir)
        let watch = try WatchedProcess(["--store", a, "sync", "--watch", "--interval", "1", "--json"], environment: Self.env)
        try #require(watch.nextLine() != nil, "no first round: \(watch.stderr)")
        #expect(try QuireBinary.run(["add", "--title", "while watching"], store: a, stdin: "").status == 0)
        let pushed = watch.nextLine { (try? JSONValue.parse($0).object?["changes_pushed"]?.integer).flatMap { $0 } ?? 0 > 0 }
        #expect(pushed != nil, "no round pushed the change: \(watch.stderr)")
        watch.terminate()
        #expect(watch.process.terminationReason == .exit && watch.process.terminationStatus == 0)
        #expect(try sync(b).status == 0)
        #expect(try QuireBinary.run(["list"], store: b).stdout.contains("while watching"))
    }

    @Test func twoSyncsOfOneStoreNeverRunAtOnce() throws {
        let dir = TempDir()
        let (a, _, _) = try setUp(dir)
        let lock = open(a + "/sync.lock", O_RDWR | O_CREAT, 0o600)
        defer { close(lock) }
        #expect(flock(lock, LOCK_EX) == 0)
        let run = try sync(a)
        #expect(run.status == 1 && run.stderr.contains("another quire is syncing"))
    }

    /// A crash point the code does not have is refused at once, before any work: a test can
    /// never wait for a kill that will not come.
    @Test(arguments: ["segment-pubished", "head-published:0", "head-published:x", ""])
    func aCrashPointThatNamesNoStepIsAUsageError(point: String) throws {
        let dir = TempDir()
        let (a, _, _) = try setUp(dir)
        let pending = try Store(folder: a).pendingCount()
        let run = try sync(a, ["QUIRE_CRASH_AT": point])
        #expect(run.status == 2 && run.signal == nil, "\(point): \(run.status) \(run.stderr)")
        #expect(run.stderr.contains("names no step") && run.stderr.contains("segment-published"), "\(run.stderr)")
        #expect(try Store(folder: a).pendingCount() == pending, "nothing was pushed")
    }

    /// Ctrl-C during a sync or a restore: one line says it stopped and that the same command
    /// continues, and it does. (The press comes at a named step, never raced against the clock.)
    @Test func aCtrlCDuringSyncOrRestoreSaysTheSameCommandContinues() throws {
        let dir = TempDir()
        let (a, _, repo) = try setUp(dir)
        let stopped = try sync(a, ["QUIRE_CRASH_AT": "segment-published:1:INT", "QUIRE_SEGMENT_CHANGES": "25"])
        #expect(stopped.signal == SIGINT, "\(stopped.status) \(stopped.stderr)")
        #expect(stopped.stderr.hasSuffix("quire: stopped. What was synced is kept; `quire sync` continues from there.\n"), "\(stopped.stderr)")
        #expect(try sync(a).status == 0)
        #expect(try Store(folder: a).pendingCount() == 0)

        let c = dir.path + "/c"
        let restore = { (extra: [String: String]) in
            try QuireBinary.run(["restore", repo], store: c, environment: Self.env.merging(extra) { $1 })
        }
        let halfway = try restore(["QUIRE_CRASH_AT": "blob-downloaded:1:INT"])
        #expect(halfway.signal == SIGINT, "\(halfway.status) \(halfway.stderr)")
        #expect(halfway.stderr.hasSuffix("quire: stopped. What was restored is kept; the same command continues the restore.\n"),
                "\(halfway.stderr)")
        let again = try restore([:])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try dump(a, dir) == dump(c, dir))
    }

    /// The client SIGKILLed at each step: the next sync converges, nothing is lost, and the
    /// database is intact.
    @Test(arguments: [
        "blob-upload-chunk:1", "blob-upload-chunk:4", "blob-upload-chunk:9", "pack-uploaded:1",
        "segment-publish-start:1", "segment-publish-start:3", "segment-published:1", "segment-publish-start:2",
        "segment-published:2", "segment-published:3", "head-published:1", "heads-cleaned:1",
    ])
    func aPushKilledAnywhereConvergesOnTheNextSync(point: String) throws {
        let dir = TempDir()
        let (a, b, _) = try setUp(dir)
        let killed = try sync(a, ["QUIRE_CRASH_AT": point, "QUIRE_SEGMENT_CHANGES": "25"])
        // The kill must have happened at the named point: a run that never reached it proves nothing.
        #expect(killed.signal == SIGKILL, "\(point) was never reached: \(killed.status) \(killed.stderr)")
        let resumed = try sync(a, ["QUIRE_SEGMENT_CHANGES": "25"])
        #expect(resumed.status == 0, "\(point): \(resumed.stderr)")
        let pulled = try sync(b)
        #expect(pulled.status == 0, "\(point): \(pulled.stderr)")
        #expect(try dump(a, dir) == dump(b, dir), "\(point)")
        #expect(try Store(folder: a).integrityCheck() == "ok")
        #expect(try Store(folder: a).pendingCount() == 0)
        let verify = try QuireBinary.run(["verify", "--read-data"], store: b, environment: Self.env)
        #expect(verify.status == 0, "\(point): \(verify.stdout)")
    }

    /// A large voice note whose sync is killed at about 60 % resumes from the parts already
    /// on the server: it sends again at most the parts in flight at the kill (one per upload
    /// connection) and the rest it had not sent.
    @Test func anInterruptedLargeUploadResumesFromItsParts() throws {
        let dir = TempDir()
        _ = dir.file("voice.ogg", bytes: pseudoRandomBytes(4 << 20, seed: 42))
        func store(_ name: String) throws -> String {
            let path = dir.path + "/" + name
            let id = try QuireBinary.run(["add", "--title", "long voice note"], store: path, stdin: "")
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try QuireBinary.run(["attach", id, dir.path + "/voice.ogg", "--kind", "voice"], store: path).status == 0)
            #expect(try QuireBinary.run(["remote", "set", "file://" + dir.path + "/repo-" + name, "--max-object-size", "256K"], store: path).status == 0)
            #expect(try QuireBinary.run(["remote", "init"], store: path, environment: Self.env).status == 0)
            return path
        }
        func bytesUp(_ run: QuireRun) throws -> Int64 {
            Int64(try #require(try JSONValue.parse(run.stdout).object?["bytes_up"]?.integer))
        }
        // The whole upload, uninterrupted, for reference.
        let whole = try sync(try store("whole"))
        try #require(whole.status == 0, "\(whole.stderr)")
        let total = try bytesUp(whole)
        let parts = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/repo-whole/packs").flatMap {
            try FileManager.default.contentsOfDirectory(atPath: dir.path + "/repo-whole/packs/" + $0)
        }.count
        #expect(parts >= 16, "4 MiB in parts under 256 KiB")
        let part = total / Int64(parts)
        let killedAt = parts * 6 / 10
        let a = try store("a")
        let killed = try sync(a, ["QUIRE_CRASH_AT": "pack-uploaded:\(killedAt)"])
        #expect(killed.signal == SIGKILL, "\(killed.stderr)")
        let resumed = try sync(a)
        try #require(resumed.status == 0, "\(resumed.stderr)")
        let sentAgain = try bytesUp(resumed) - (total - Int64(killedAt) * part)
        #expect(sentAgain <= 4 * part + total / 10, "re-sent \(sentAgain) bytes; a part is \(part)")
        let restored = try QuireBinary.run(["restore", "file://" + dir.path + "/repo-a"], store: dir.path + "/r", environment: Self.env)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try dump(dir.path + "/r", dir) == dump(a, dir))
        #expect(try QuireBinary.run(["verify", "--read-data"], store: dir.path + "/r", environment: Self.env).status == 0)
    }

    /// `prune` SIGKILLed while repacking a pack mostly garbage (after the new pack is up,
    /// after the move is announced): the next prune finishes, and nothing is lost.
    @Test(arguments: ["repack-uploaded:1", "segment-published:1", "repack-announced:1"])
    func aPruneKilledWhileRepackingConverges(point: String) throws {
        let dir = TempDir()
        let (a, b, repo) = try setUp(dir)
        // The photos go up in a pack of their own, after what setUp attached.
        #expect(try sync(a).status == 0)
        var ids: [String] = []
        for i in 0..<10 {
            let id = try QuireBinary.run(["add", "--title", "снимок \(i)"], store: a, stdin: "").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            _ = dir.file("p\(i).jpg", bytes: pseudoRandomBytes(5000, seed: UInt64(i)))
            #expect(try QuireBinary.run(["attach", id, dir.path + "/p\(i).jpg"], store: a).status == 0)
            ids.append(id)
        }
        #expect(try sync(a).status == 0)
        for id in ids.prefix(8) { #expect(try QuireBinary.run(["rm", id], store: a).status == 0) }
        #expect(try sync(a).status == 0 && sync(b).status == 0)
        #expect(try QuireBinary.run(["add", "--title", "b's head"], store: b, stdin: "").status == 0)
        #expect(try sync(b).status == 0 && sync(a).status == 0)
        let killed = try QuireBinary.run(["prune"], store: a, environment: Self.env.merging(["QUIRE_CRASH_AT": point]) { $1 })
        #expect(killed.signal == SIGKILL, "\(point) was never reached: \(killed.status) \(killed.stderr)")
        #expect(try Store(folder: a).integrityCheck() == "ok")
        let again = try QuireBinary.run(["prune", "--json"], store: a, environment: Self.env)
        #expect(again.status == 0, "\(point): \(again.stderr)")
        #expect(try sync(b).status == 0 && sync(a).status == 0)
        #expect(try dump(a, dir) == dump(b, dir), "\(point)")
        #expect(try QuireBinary.run(["verify", "--read-data"], store: b, environment: Self.env).status == 0, "\(point)")
        let restored = try QuireBinary.run(["restore", repo], store: dir.path + "/r", environment: Self.env)
        #expect(restored.status == 0, "\(point): \(restored.stderr)")
        #expect(try dump(dir.path + "/r", dir) == dump(a, dir), "\(point)")
    }

    @Test(arguments: ["blob-downloaded:1", "blob-downloaded:2", "merge-before-commit:1", "merge-before-commit:2",
                      "pull-after-merge:1", "pull-before-merge:2"])
    func aPullKilledAnywhereConvergesOnTheNextSync(point: String) throws {
        let dir = TempDir()
        let (a, b, _) = try setUp(dir)
        #expect(try sync(a, ["QUIRE_SEGMENT_CHANGES": "25"]).status == 0)
        // Two segments to a transaction: a kill falls between batches and inside one.
        let killed = try sync(b, ["QUIRE_CRASH_AT": point, "QUIRE_MERGE_CHANGES": "50"])
        #expect(killed.signal == SIGKILL, "\(point) was never reached: \(killed.status) \(killed.stderr)")
        #expect(try Store(folder: b).integrityCheck() == "ok")
        let pulled = try sync(b)
        #expect(pulled.status == 0, "\(point): \(pulled.stderr)")
        #expect(try dump(a, dir) == dump(b, dir), "\(point)")
    }

    /// `restore` SIGKILLed while it merges (before a batch commits, after one) or while the
    /// attachments come in (carried ones before a merge, downloaded ones at the end): the
    /// same `restore` run again finishes, with every attachment in and the index whole.
    @Test(arguments: ["merge-before-commit:2", "pull-after-merge:1", "blob-downloaded:1", "blob-downloaded:4"])
    func aRestoreKilledAnywhereFinishesWhenRunAgain(point: String) throws {
        let dir = TempDir()
        let (a, _, repo) = try setUp(dir)
        for i in 0..<4 {
            let id = try QuireBinary.run(["add", "--title", "фото \(i)"], store: a, stdin: "").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            _ = dir.file("p\(i).jpg", bytes: pseudoRandomBytes(i % 2 == 0 ? 3000 : 300_000, seed: UInt64(40 + i)))
            #expect(try QuireBinary.run(["attach", id, dir.path + "/p\(i).jpg"], store: a).status == 0)
        }
        #expect(try sync(a, ["QUIRE_SEGMENT_CHANGES": "25"]).status == 0)
        let r = dir.path + "/r"
        let killed = try QuireBinary.run(["restore", repo], store: r,
                                         environment: Self.env.merging(["QUIRE_CRASH_AT": point, "QUIRE_MERGE_CHANGES": "50"]) { $1 })
        #expect(killed.signal == SIGKILL, "\(point) was never reached: \(killed.status) \(killed.stderr)")
        #expect(try Store(folder: r).integrityCheck() == "ok")
        let again = try QuireBinary.run(["restore", repo], store: r, environment: Self.env)
        #expect(again.status == 0, "\(point): \(again.stderr)")
        #expect(try dump(r, dir) == dump(a, dir), "\(point)")
        let restored = try Store(folder: r)
        #expect(try restored.lackingRemoteBlobs().isEmpty, "\(point)")
        #expect(try restored.restoringFrom() == nil)
        #expect(try restored.search("фото").count == 4, "\(point)")
    }
}
