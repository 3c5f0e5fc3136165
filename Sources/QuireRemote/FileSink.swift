import CLinux
import Foundation
import Synchronization

/// Writes a local file; `reset` truncates it.
///
/// A cached file (the default) goes through the page cache. Each `flushStep` bytes written
/// are handed to the disk at once, without waiting (the way PostgreSQL's
/// `backend_flush_after` does it): a large download is written back while it arrives, so
/// its `sync` finds little left to write instead of stalling the download's connection for
/// the whole file.
///
/// An uncached file (a restored attachment, which nothing reads soon) is written with direct
/// I/O where the filesystem takes it, a whole number of blocks at a time from an aligned
/// buffer, the last partial block through the page cache at `sync`. Copying bytes into the
/// page cache and writing them back costs the CPU about as much as decrypting them: 512 MB
/// written and fsynced took 1.0–1.3 s of system time on this project's machines, against
/// 0.06 s with O_DIRECT (`dd`, 1 MiB writes), and a restore of 1 GB of attachments is
/// CPU-bound. Where O_DIRECT is refused (tmpfs before Linux 6.6, some FUSE filesystems, a
/// device whose blocks are larger than `DirectStage.alignment`), the file is written as a
/// cached one is, then dropped from the cache.
package final class FileSink: ByteSink {
    private let fd: Int32
    private let path: String
    /// Bytes in the file, those still staged included.
    package private(set) var written: Int64 = 0
    /// Where the bytes not yet handed to the disk start.
    private var unflushed: Int64 = 0
    static let flushStep: Int64 = 8 << 20

    private let cached: Bool
    /// While the file is written with direct I/O: the bytes not yet written (up to a MiB).
    private var stage: DirectStage?

    package init(path: String, cached: Bool = true) throws {
        self.cached = cached
        self.path = path
        let flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC
        var fd: Int32 = -1
        if !cached {
            fd = open(path, flags | quire_o_direct(), 0o600)
            if fd >= 0 { stage = DirectStage.take() }
        }
        if fd < 0 { fd = open(path, flags, 0o600) }
        guard fd >= 0 else { throw RemoteError(.localIO, detail: "cannot write \(path): \(String(cString: strerror(errno)))") }
        self.fd = fd
    }

    deinit {
        if let stage { DirectStage.give(stage) }
        close(fd)
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        var rest = bytes
        while let stage, !rest.isEmpty {
            let before = rest.count
            rest = stage.append(rest)
            written += Int64(before - rest.count)
            if stage.isFull { try writeStaged(whole: true) }
        }
        guard !rest.isEmpty else { return }
        try writeAll(rest)
        written += Int64(rest.count)
        if written - unflushed >= Self.flushStep {
            // Only a hint: `sync` still waits for every byte, so a failure here is not one.
            _ = quire_start_writeback(fd, unflushed, written - unflushed)
            if !cached { _ = posix_fadvise(fd, 0, off_t(unflushed), POSIX_FADV_DONTNEED) }
            unflushed = written
        }
    }

    package func reset() throws { try reset(to: 0) }

    /// Drops everything after the first `length` bytes (a part downloaded again).
    package func reset(to length: Int64) throws {
        if let stage {
            let onDisk = written - Int64(stage.count)
            if length >= onDisk {  // only staged bytes go
                stage.count = Int(length - onDisk)
                written = length
                return
            }
            try leaveDirectIO(keepingStaged: false)
        }
        guard ftruncate(fd, off_t(length)) == 0, lseek(fd, off_t(length), SEEK_SET) == length else {
            throw RemoteError(.localIO, detail: "cannot rewrite \(path)")
        }
        written = length
        unflushed = min(unflushed, length)
    }

    /// Flushes the file to disk. The file is written through the page cache afterwards.
    package func sync() throws {
        if stage != nil {
            try writeStaged(whole: false)
            try leaveDirectIO(keepingStaged: true)  // the partial block left
        }
        guard fsync(fd) == 0 else { throw RemoteError(.localIO, detail: "cannot sync \(path)") }
        if !cached { _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) }
    }

    /// Writes the staged whole blocks with direct I/O (all of the stage when `whole`), keeping
    /// the partial block after them staged. A write refused as unaligned (EINVAL) leaves
    /// direct I/O for good and writes the bytes through the page cache.
    private func writeStaged(whole: Bool) throws {
        guard let stage else { return }
        let length = whole ? stage.count : stage.count / DirectStage.alignment * DirectStage.alignment
        guard length > 0 else { return }
        let blocks = UnsafeRawBufferPointer(rebasing: stage.buffer[0..<length])
        var done = 0
        while done < length {
            let n = Glibc.write(fd, blocks.baseAddress.map { $0 + done }, length - done)
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EINVAL && done == 0 { return try leaveDirectIO(keepingStaged: true) }
            guard n > 0 else { throw RemoteError(.localIO, detail: "cannot write \(path): \(String(cString: strerror(errno)))") }
            done += n
        }
        stage.drop(first: length)
    }

    /// Turns direct I/O off; with `keepingStaged`, the staged bytes are written first,
    /// through the page cache.
    private func leaveDirectIO(keepingStaged: Bool) throws {
        guard let stage else { return }
        self.stage = nil
        defer { DirectStage.give(stage) }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags & ~quire_o_direct()) == 0 else {
            throw RemoteError(.localIO, detail: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        if keepingStaged { try writeAll(UnsafeRawBufferPointer(rebasing: stage.buffer[0..<stage.count])) }
        unflushed = written - Int64(stage.count)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        guard var p = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = Glibc.write(fd, p, left)
            if n < 0 {
                if errno == EINTR { continue }
                throw RemoteError(.localIO, detail: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            p += n
            left -= n
        }
    }
}

/// An aligned buffer for direct writes, and the few kept for the next file: a restore
/// writes a thousand files on eight threads, and a fresh MiB for each would cost its page
/// faults every time.
final class DirectStage: @unchecked Sendable {  // used by one FileSink at a time, or kept
    /// Of the buffer's address, of every direct write's length and so of its offset: a page,
    /// which covers the logical block of the disks Linux runs on (512 or 4,096 bytes).
    static let alignment = 4096
    static let size = 1 << 20
    private static let kept = Mutex<[DirectStage]>([])
    /// As many as a sync has download connections (`Syncer.defaultWorkers`): a watching
    /// service keeps at most that much, 8 MiB, between its syncs.
    private static let keptAtMost = 8

    let buffer: UnsafeMutableRawBufferPointer
    /// Bytes staged, from the buffer's start.
    var count = 0

    private init() {
        buffer = .allocate(byteCount: Self.size, alignment: Self.alignment)
    }

    deinit { buffer.deallocate() }

    static func take() -> DirectStage {
        kept.withLock { $0.popLast() } ?? DirectStage()
    }

    static func give(_ stage: DirectStage) {
        stage.count = 0
        kept.withLock { if $0.count < keptAtMost { $0.append(stage) } }
    }

    var isFull: Bool { count == buffer.count }

    /// Copies as much of `bytes` as fits; what did not fit.
    func append(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let n = min(bytes.count, buffer.count - count)
        if n > 0, let source = bytes.baseAddress, let target = buffer.baseAddress {
            (target + count).copyMemory(from: source, byteCount: n)
        }
        count += n
        return UnsafeRawBufferPointer(rebasing: bytes[n...])
    }

    /// Forgets the first `length` bytes, moving the rest to the start.
    func drop(first length: Int) {
        if let base = buffer.baseAddress, count > length {
            base.copyMemory(from: base + length, byteCount: count - length)
        }
        count -= length
    }
}
