import Foundation
import Synchronization
import QuireStore

/// What a transfer has done, for a line a person reads on a terminal the way restic shows it:
/// objects and bytes done out of the total, the rate, and the time left.
package final class TransferProgress {
    private let verb: String
    private let report: (String) -> Void
    private let started = Date()
    private var lastReport = Date.distantPast
    private(set) var objects = 0, totalObjects = 0
    private(set) var bytes: Int64 = 0, totalBytes: Int64 = 0

    /// - Parameter report: called with a fresh line at most five times a second.
    package init(_ verb: String, report: @escaping (String) -> Void) {
        self.verb = verb
        self.report = report
    }

    func expect(objects: Int, bytes: Int64) {
        totalObjects += objects
        totalBytes += bytes
        show(force: true)
    }

    func advance(objects: Int = 0, bytes: Int64 = 0) {
        self.objects += objects
        self.bytes += bytes
        show(force: objects > 0 && self.objects == totalObjects)
    }

    package var line: String {
        let elapsed = max(Date().timeIntervalSince(started), 0.001)
        let rate = Double(bytes) / elapsed
        var text = "\(verb) \(objects)/\(totalObjects) objects, \(ByteCount.text(bytes))/\(ByteCount.text(totalBytes))"
        if elapsed >= 1 && rate > 0 { text += ", \(ByteCount.text(Int64(rate)))/s" }
        return text + (Self.timeLeft(since: started, done: Double(bytes), of: Double(totalBytes)) ?? "")
    }

    private func show(force: Bool) {
        let now = Date()
        guard force || now.timeIntervalSince(lastReport) >= 0.2 else { return }
        lastReport = now
        report(line)
    }

    /// `", m:ss left"` at the pace since `started`, once a second has passed and something
    /// is done; nil before that, or when the time left is under a second or absurd.
    package static func timeLeft(since started: Date, now: Date = Date(), done: Double, of total: Double) -> String? {
        let elapsed = now.timeIntervalSince(started)
        guard elapsed >= 1, done > 0 else { return nil }
        let left = elapsed / done * max(0, total - done)
        return left >= 1 && left < 1e7 ? ", " + clockText(left) + " left" : nil
    }
}

/// Bytes counted from several threads (the download connections), read by the one showing
/// progress.
final class ByteMeter: Sendable {
    private let count = Mutex<Int64>(0)
    private let next: ByteMeter?
    private let heard: (@Sendable (Int) -> Void)?

    init() {
        next = nil
        heard = nil
    }

    /// A meter that also adds to `next`, and tells `heard` of each addition.
    init(forwardingTo next: ByteMeter, heard: @escaping @Sendable (Int) -> Void) {
        self.next = next
        self.heard = heard
    }

    func add(_ n: Int) {
        count.withLock { $0 += Int64(n) }
        next?.add(n)
        heard?(n)
    }

    var total: Int64 { count.withLock { $0 } }
}

/// A pull's progress line: segments merged out of those to pull, attachments taken in with
/// the bytes downloaded and their rate, and the time left at the pace so far. Shown before
/// each segment and, while the pull waits for an attachment, every half second.
final class PullProgress {
    private let total: Int
    private let report: ((String) -> Void)?
    private let meter: ByteMeter
    private let started = Date()
    private var done = 0
    private var attachments = 0
    private var lastRefresh = Date.distantPast

    /// The meter's count when this pull began (a watch's syncer pulls many times).
    private let baseline: Int64

    init(segments: Int, meter: ByteMeter, report: ((String) -> Void)?) {
        total = segments
        self.meter = meter
        self.report = report
        baseline = meter.total
    }

    /// Called before each segment: those before it are merged.
    func show(_ sync: SyncReport) {
        defer { done += 1 }
        attachments = sync.blobsDownloaded
        refresh(force: true)
    }

    /// Shows the line again with the bytes downloaded since (at most twice a second).
    func refresh(force: Bool = false) {
        guard let report, total > 0 else { return }
        let now = Date()
        guard force || now.timeIntervalSince(lastRefresh) >= 0.5 else { return }
        lastRefresh = now
        let bytes = meter.total - baseline
        var line = "pulling \(min(done, total))/\(total) segment\(total == 1 ? "" : "s"), \(attachments) attachment\(attachments == 1 ? "" : "s") in"
        let elapsed = now.timeIntervalSince(started)
        if bytes > 0 {
            line += ", \(ByteCount.text(bytes)) down"
            if elapsed >= 1 { line += " at \(ByteCount.text(Int64(Double(bytes) / elapsed)))/s" }
        }
        report(line + (TransferProgress.timeLeft(since: started, now: now, done: Double(done), of: Double(total)) ?? ""))
    }
}
