import Foundation
import QuireRemote

/// Sends a push's sealed segments. A plain PUT each: the names are this device's alone and
/// no head names them yet, so a crash mid-upload leaves nothing anyone reads, and the next
/// push rewrites them. A lone segment (a sync after one edit) goes over the sync's own
/// connection, already past any auth challenge; so does a device's first, after its log's
/// folder is made, which the others would each find missing at once. Any more go over
/// `connections` while the pushing thread makes the next ones (a `WorkerPool`); while packs
/// still hold those (`hold`), over the sync's own connection on a thread of its own, until
/// `release`. A segment may name a pack still uploading: no head names the segment before
/// every pack is stored (`PackUploader`, invariant 2).
final class SegmentSender {
    private let context: SyncContext
    private let progress: ((String) -> Void)?
    private let connections: [Backend]
    private var holding = false
    private var held: SealedSegment?
    private var lanes: WorkerPool<Backend>?

    /// Bytes of sealed segments waiting or under way at once.
    static let budget = 8 << 20

    init(_ context: SyncContext, connections: [Backend], progress: ((String) -> Void)?) {
        self.context = context
        self.connections = connections
        self.progress = progress
    }

    /// Packs hold `connections` until `release`: segments go over the sync's own meanwhile.
    func hold() {
        precondition(lanes == nil && held == nil, "hold before the first segment")
        holding = true
    }

    func send(_ segment: SealedSegment) throws {
        // While packs upload, their line (objects, bytes, rate, time left) is the one shown.
        if !holding { progress?("pushing \(segment.path)") }
        context.checkpoint(.segmentPublishStart)
        if segment.seq == 1 {
            // Its folder is new: made first, not found missing by a PUT of the whole segment.
            try context.backend.makeFolder(LogSegment.folder + "/" + context.store.deviceID)
            try putHere(segment)
        } else if let lanes {
            try queue(segment, on: lanes)
        } else if let first = held {
            // Over one connection and not holding, each goes on this thread, one by one.
            let lanes = holding ? WorkerPool([context.backend], budget: Self.budget)
                                : WorkerPool(connections, budget: Self.budget, inline: connections.count == 1)
            self.lanes = lanes
            held = nil
            try queue(first, on: lanes)
            try queue(segment, on: lanes)
        } else {
            held = segment
        }
    }

    /// Returns once every segment sent so far is on the server.
    func drain() throws {
        if let segment = held {
            held = nil
            try putHere(segment)
        }
        guard let lanes else { return }
        defer {
            reportPublished()
            self.lanes = nil
        }
        try lanes.finish()
    }

    /// The packs are stored and `connections` free: the segments still waiting for the sync's
    /// own connection, and all later ones, go over `connections`.
    func release() throws {
        guard holding else { return }
        holding = false
        guard let own = lanes else { return }
        let left = try own.handBack()
        reportPublished()
        let spread = WorkerPool(connections, budget: Self.budget, inline: connections.count == 1)
        lanes = spread
        for (job, bytes) in left { try spread.submit(bytes: bytes, job) }
    }

    /// After a failure: waits for the uploads under way (their connections are then free).
    func abandon() {
        held = nil
        try? lanes?.finish()
        lanes = nil
    }

    /// Over the sync's own connection, now.
    private func putHere(_ segment: SealedSegment) throws {
        try Self.put(segment, over: context.backend)
        context.checkpoint(.segmentPublished)
    }

    private func queue(_ segment: SealedSegment, on lanes: WorkerPool<Backend>) throws {
        try lanes.submit(bytes: segment.data.count) { try Self.put(segment, over: $0) }
        reportPublished()
    }

    /// Hears of the segments the lanes stored since last asked (checkpoints run on this thread).
    private func reportPublished() {
        for _ in 0..<(lanes?.takeCompleted() ?? 0) { context.checkpoint(.segmentPublished) }
    }

    private static func put(_ segment: SealedSegment, over backend: Backend) throws {
        do {
            try backend.putData(segment.path, segment.data)
        } catch let error as RemoteError where error.kind == .tooLarge {
            throw PackUploader.TooLarge(size: Int64(segment.data.count), error: error)
        }
    }
}
