import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// Reading snapshots: the newest, its positions (for verify), and merging one in.
extension Snapshots {
    /// The newest snapshot (the one that has merged the most), or nil; of `listed` when
    /// `snapshots/` was listed earlier in this sync.
    func newest(listed: [(device: String, seq: Int)]? = nil) throws -> (device: String, seq: Int)? {
        // Any snapshot is a valid starting point; the one written latest covers the most.
        try (listed ?? Snapshot.list(context.backend)).max { ($0.seq, $0.device) < ($1.seq, $1.device) }
    }

    /// Merges a snapshot and moves this store's log positions forward to it; returns what it
    /// merged and took in.
    func adopt(_ snapshot: (device: String, seq: Int), progress: ((String) -> Void)?) throws -> SyncReport {
        // The snapshot names its attachments before its records: they download meanwhile.
        let prefetcher = Downloads.prefetcher(context)
        defer { prefetcher?.close() }
        let (positions, report) = try load(device: snapshot.device, seq: snapshot.seq, downloads: prefetcher, progress: progress)
        let logs = try store.syncLogs()
        for (device, position) in positions where position.seq > (logs[device]?.seq ?? 0) && device != store.deviceID {
            try store.setSyncLog(device, seq: position.seq, hash: position.hash)
        }
        return report
    }

    /// Downloads a snapshot, authenticating every chunk, into a private temporary file in the
    /// store (deleted by the caller); constant memory.
    private func decryptSnapshot(_ path: String) throws -> String {
        let temp = try store.blobs.temporaryPath()
        do {
            let file = try FileSink(path: temp)
            let decryptor = try BlobCipher.Decryptor(keys: context.repository.keys, blobID: Snapshot.streamID(path), object: path) { try file.write($0) }
            try context.backend.get(path, range: nil, into: SnapshotSink(decryptor))
            try decryptor.finish()
            return temp
        } catch let error as CryptoError {
            unlink(temp)
            throw SyncError(.damaged, object: path, detail: error.detail)
        } catch {
            unlink(temp)
            throw error
        }
    }

    /// Downloads and authenticates a snapshot in full and returns only its log positions
    /// (for `verify`, which changes nothing locally).
    func positions(device: String, seq: Int) throws -> (positions: [String: (seq: Int, hash: String)], blobs: [RemoteBlob]) {
        let path = Snapshot.path(device: device, seq: seq)
        let temp = try decryptSnapshot(path)
        defer { unlink(temp) }
        var positions: [String: (seq: Int, hash: String)] = [:]
        var blobs: [RemoteBlob] = []
        let reader = try LineReader(path: temp)
        while try reader.next({ bytes in
            guard let o = (try? JSONValue.parse(bytes))?.object else { return }
            if let b = o["b"]?.array, b.count == 2, let remote = b[1].string {
                blobs.append(RemoteBlob(id: remote, location: o["p"].flatMap(BlobLocation.init(json:))))
            }
            guard o["device"]?.string == device, o["positions"] != nil else { return }
            try WireFormat.snapshot.check(o, path: path)
            guard let read = Snapshot.positions(in: o) else { throw SyncError(.damaged, object: path, detail: "not a valid snapshot (bad positions)") }
            positions = read
        }) {}
        return (positions, blobs)
    }

    /// Downloads, authenticates and merges a snapshot; returns its log positions and what it
    /// merged and took in. Streams: decrypted into a private file, then read line by line,
    /// merged in batches. With `downloads`, every attachment is asked for as soon as the map
    /// names it.
    func load(device: String, seq: Int, downloads: BlobPrefetcher? = nil,
              progress: ((String) -> Void)? = nil) throws -> (positions: [String: (seq: Int, hash: String)], report: SyncReport) {
        var report = SyncReport()
        let intake = BlobIntake(context: context)
        let path = Snapshot.path(device: device, seq: seq)
        progress?("reading \(path)")
        let temp = try decryptSnapshot(path)
        defer { unlink(temp) }
        func bad(_ why: String) -> SyncError { SyncError(.damaged, object: path, detail: "not a valid snapshot (\(why))") }
        let reader = try LineReader(path: temp)
        var positions: [String: (seq: Int, hash: String)] = [:]
        var header = true
        var batch: [SyncChange] = []
        var map: [String: RemoteBlob] = [:]
        // Where each named blob lives, recorded with the next batch (one commit, not one each).
        var known: [(local: String, remote: String, location: String?)] = []
        // Small attachments the snapshot holds, each written to a temporary file as it is read
        // (memory stays constant), taken in with the batch that names it.
        var carried: [String: String] = [:]
        defer { for temp in carried.values { unlink(temp) } }
        var failure: SyncError?
        // Attachments first, then the state, in batches: constant memory, and a record never
        // points at a blob we lack (the blob map comes before the changes in the file).
        func flush() throws {
            try store.setRemoteBlobs(known, confirmed: true)
            known.removeAll()
            var needed: [(local: String, remote: RemoteBlob)] = []
            var written: [DownloadedBlob] = []
            defer { for blob in written { unlink(blob.path) } }  // gone once adopted
            var seen = Set<String>()
            for change in batch {
                guard let local = change.namedBlob, !store.hasBlob(local), let remote = map[local], seen.insert(local).inserted else { continue }
                if let temp = carried.removeValue(forKey: local) {
                    written.append(DownloadedBlob(path: temp, id: local, remoteID: remote.id))
                } else {
                    needed.append((local, remote))
                }
            }
            report.blobsDownloaded += try intake.takeInWritten(written)
            report.blobsDownloaded += try intake.takeIn(needed, using: downloads)
            let merged = try context.naming(path) { try store.merge(batch) { try intake.checkAttachments(after: batch) { map[$0] } } }
            report.fieldsMerged += merged.applied
            report.conflicts += merged.conflicts
            batch.removeAll(keepingCapacity: true)
        }
        while try reader.next({ bytes in
            guard failure == nil, !bytes.isEmpty else { return }
            guard let value = try? JSONValue.parse(bytes), let o = value.object else { failure = bad("a line is not JSON"); return }
            if header {
                header = false
                do { try WireFormat.snapshot.check(o, path: path) } catch { failure = error as? SyncError; return }
                guard o["device"]?.string == device, o["seq"]?.number == Double(seq), o["positions"] != nil else {
                    failure = bad("it is not the snapshot its name says"); return
                }
                guard let read = Snapshot.positions(in: o) else { failure = bad("bad positions"); return }
                positions = read
            } else if let row = o["c"] {
                guard let change = ChangeRow.decode(row) else { failure = bad("a malformed change"); return }
                batch.append(change)
                if batch.count >= 20_000 { try flush() }
            } else if let b = o["b"]?.array, b.count == 2, let local = b[0].string, let id = b[1].string {
                var location: BlobLocation?
                if let p = o["p"] {
                    guard let parsed = BlobLocation(json: p) else { failure = bad("a malformed attachment location"); return }
                    location = parsed
                }
                let remote = RemoteBlob(id: id, location: location)
                map[local] = remote
                known.append((local, id, location?.text))
                if store.hasBlob(local) {
                } else if let text = o["d"]?.string {
                    guard let bytes = Data(base64Encoded: text) else { failure = bad("a malformed inline attachment"); return }
                    do { try BlobIntake.checkCarried(bytes, local: local, object: path) } catch { failure = error as? SyncError; return }
                    let temp = try store.blobs.temporaryPath()
                    carried[local] = temp
                    try FileIO.writeNewFile(temp, bytes)
                } else if !BlobPrefetcher.readsAlong(remote) {
                    // Small ones are asked for together once the snapshot is in (`askForLacking`).
                    downloads?.request(local: local, remote: remote)
                }
            }
        }) {}
        if let failure { throw failure }
        guard !header else { throw bad("it is empty") }
        try flush()
        return (positions, report)
    }
}

private final class SnapshotSink: ByteSink {
    let decryptor: BlobCipher.Decryptor
    init(_ decryptor: BlobCipher.Decryptor) { self.decryptor = decryptor }
    func write(_ bytes: UnsafeRawBufferPointer) throws { try decryptor.feed(bytes) }
    func reset() throws { throw RemoteError(.protocolError, detail: "a snapshot download restarts from the beginning") }
}
