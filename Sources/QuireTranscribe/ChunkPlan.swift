import Foundation
import QuireStore

/// How a recording is cut for an engine, decided from its length alone (tested without one):
/// pieces of `length` seconds, each overlapping the next by `overlap`, so a word cut at one
/// piece's edge is heard whole in the other. Each piece keeps the words whose middle falls in
/// its own share of the recording (from the middle of the overlap before it to the middle of
/// the one after it): the shares tile the recording, so no word is kept twice or dropped at
/// a seam. Times come back in the recording's clock.
package struct ChunkPlan: Equatable, Sendable {
    package static let defaultLength = 60.0
    package static let defaultOverlap = 4.0

    package struct Chunk: Equatable, Sendable {
        /// Where the piece starts in the recording, and how long it is (seconds).
        package var start: Double
        package var length: Double
        /// The share it keeps: words whose middle is in `keepFrom..<keepTo`.
        package var keepFrom: Double
        package var keepTo: Double
        /// Whether it is the recording's last piece.
        package var isLast: Bool
    }

    package let chunks: [Chunk]

    package init(duration: Double, length: Double = Self.defaultLength, overlap: Double = Self.defaultOverlap) {
        let duration = max(0, duration), overlap = min(max(0, overlap), length / 2)
        let step = length - overlap
        let count = duration <= length ? 1 : Int(((duration - overlap) / step).rounded(.up))
        chunks = (0..<count).map { i in
            let start = Double(i) * step
            let isLast = i == count - 1
            return Chunk(start: start, length: isLast ? max(0, duration - start) : length,
                         keepFrom: i == 0 ? 0 : start + overlap / 2,
                         keepTo: isLast ? .infinity : start + step + overlap / 2, isLast: isLast)
        }
    }

    /// The pieces still to do when an earlier run got as far as `done` seconds (the end of
    /// the share of the last piece it kept): the first of them keeps from `done` on.
    package func chunks(after done: Double) -> [Chunk] {
        var rest = chunks.filter { min($0.keepTo, $0.start + $0.length) > done + 0.001 }
        if !rest.isEmpty { rest[0].keepFrom = max(rest[0].keepFrom, done) }
        return rest
    }

    /// What `chunk` keeps of what the engine heard in it (times relative to the piece), in
    /// the recording's clock: segments cut down to their words in the piece's share (a
    /// segment without timed words is kept whole when its middle is in the share), emptied
    /// ones dropped, times kept in order after `previousEnd` and within the recording.
    package static func keep(_ heard: [EngineSegment], of chunk: Chunk, after previousEnd: Double = 0) -> [Segment] {
        var kept: [Segment] = []
        var floor = previousEnd
        let inShare = { (start: Double, end: Double) -> Bool in
            let middle = chunk.start + (start + end) / 2
            return middle >= chunk.keepFrom && middle < chunk.keepTo
        }
        let last = chunk.start + chunk.length
        for segment in heard.sorted(by: { $0.start < $1.start }) {
            var start: Double, end: Double, text: String
            if segment.words.isEmpty {
                guard inShare(segment.start, segment.end) else { continue }
                (start, end, text) = (segment.start, segment.end, segment.text)
            } else {
                let words = segment.words.filter { inShare($0.start, $0.end) }
                guard let first = words.first, let final = words.last else { continue }
                (start, end) = (first.start, final.end)
                text = words.count == segment.words.count && !segment.text.isEmpty ? segment.text : words.map(\.text).joined()
            }
            text = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, start.isFinite, end.isFinite else { continue }
            start = min(max(chunk.start + start, floor), last)
            end = min(max(chunk.start + end, start), max(last, start))
            kept.append(Segment(start: start, end: end, text: text))
            floor = end
        }
        return kept
    }
}
