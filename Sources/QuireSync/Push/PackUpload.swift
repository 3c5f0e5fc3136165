import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// Packs under way: their names are chosen before they upload, so where each attachment will
/// live is known at once (a push makes and sends the segments naming them meanwhile, and
/// publishes the head naming those only once the packs are stored: `PackUploader`,
/// invariant 2), and what each stored pack completes is recorded as it is.
final class PackUpload {
    private let context: SyncContext
    let uploader: PackUploader
    let jobs: [PackPlan.Pack]
    let paths: [String]
    let partSize: Int64
    let progress: TransferProgress?
    /// The parts of each attachment stored so far, by part number.
    var stored: [String: [Int: BlobLocation.Extent]]
    /// The generation each attachment is recorded under.
    var generations: [String: Int] = [:]
    /// Attachments in parts that are complete (their part records go at the end).
    var complete: [String] = []
    /// Attachments whose every part is stored and recorded, so far.
    private(set) var uploaded = 0

    init(_ context: SyncContext, uploader: PackUploader, jobs: [PackPlan.Pack], paths: [String], partSize: Int64,
         stored: [String: [Int: BlobLocation.Extent]], progress: TransferProgress?) {
        self.context = context
        self.uploader = uploader
        self.jobs = jobs
        self.paths = paths
        self.partSize = partSize
        self.stored = stored
        self.progress = progress
    }

    /// Where each piece of pack `index` lies in it.
    func extents(of index: Int) -> [(piece: PackPlan.Piece, extent: BlobLocation.Extent)] {
        var offset: Int64 = 0
        return jobs[index].pieces.map { piece in
            defer { offset += piece.sealed }
            return (piece, BlobLocation.Extent(pack: paths[index], offset: offset, length: piece.sealed))
        }
    }

    /// Records what the packs stored since the last call complete, without waiting.
    func collect() {
        uploader.collect(progress: { [progress] in progress?.advance(bytes: $0) }) { try stored($0) }
    }

    /// Waits for every pack, recording each as it is stored.
    /// - Throws: the first failure (`PackUploader.TooLarge` when the server refused a pack).
    func finish() throws {
        try uploader.finish(progress: { [progress] in progress?.advance(bytes: $0) }) { try stored($0) }
        try context.store.forgetUploadedParts(of: complete)
    }

    /// Records what stored pack `index` holds, in one commit.
    private func stored(_ index: Int) throws {
        var parts: [(blob: String, part: UploadedPart)] = []
        var whole: [PackPlan.Piece] = []
        for (piece, extent) in extents(of: index) {
            stored[piece.local, default: [:]][piece.part] = extent
            if piece.resumable {
                parts.append((piece.local, UploadedPart(part: piece.part, pack: extent.pack, offset: extent.offset, length: extent.length)))
            }
            if stored[piece.local]?.count == piece.parts { whole.append(piece) }
        }
        try record(whole, parts: parts)
        progress?.advance(objects: 1)
        context.checkpoint(.packUploaded)
    }

    /// Records the parts just stored and where each attachment whose every part is stored
    /// lives (unconfirmed until a head names a segment naming it).
    func record(_ whole: [PackPlan.Piece], parts: [(blob: String, part: UploadedPart)] = []) throws {
        let located = whole.map { piece in
            let extents = stored[piece.local] ?? [:]
            let location = BlobLocation(extents: (0..<piece.parts).compactMap { extents[$0] }, generation: generations[piece.local] ?? 0)
            return (piece.local, piece.remote, Optional(location.text))
        }
        try context.store.recordStoredPack(parts: parts, partSize: partSize, completing: located)
        uploaded += whole.count
        complete += whole.filter { $0.parts > 1 }.map(\.local)
    }
}
