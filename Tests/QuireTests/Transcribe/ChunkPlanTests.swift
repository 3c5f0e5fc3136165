import Testing
@testable import QuireStore
@testable import QuireTranscribe

/// How a recording is cut and joined, decided without an engine.
@Suite struct ChunkPlanTests {
    @Test func piecesOverlapAndTheirSharesTileTheRecording() {
        let plan = ChunkPlan(duration: 25, length: 10, overlap: 4)
        #expect(plan.chunks.map(\.start) == [0, 6, 12, 18])
        #expect(plan.chunks.map(\.length) == [10, 10, 10, 7])
        #expect(plan.chunks.map(\.keepFrom) == [0, 8, 14, 20])
        #expect(plan.chunks.dropLast().map(\.keepTo) == [8, 14, 20])
        #expect(plan.chunks.last?.keepTo == .infinity)
        #expect(plan.chunks.map(\.isLast) == [false, false, false, true])
        // Each share begins where the one before it ends.
        for (a, b) in zip(plan.chunks, plan.chunks.dropFirst()) { #expect(a.keepTo == b.keepFrom) }
    }

    @Test func aShortOrEmptyRecordingIsOnePiece() {
        #expect(ChunkPlan(duration: 3, length: 10, overlap: 4).chunks == [.init(start: 0, length: 3, keepFrom: 0, keepTo: .infinity, isLast: true)])
        #expect(ChunkPlan(duration: 0).chunks.count == 1)
        #expect(ChunkPlan(duration: 10, length: 10, overlap: 4).chunks.count == 1)
        #expect(ChunkPlan(duration: 10.5, length: 10, overlap: 4).chunks.count == 2)
    }

    @Test func aWordHeardInBothPiecesAtASeamIsKeptOnce() {
        let plan = ChunkPlan(duration: 16, length: 10, overlap: 4)
        // "seam" is at 7.5–8.3 s of the recording: 7.5–8.3 in the first piece, 1.5–2.3 in the second.
        let first = [EngineSegment(start: 6, end: 9, text: "before seam after", words: [
            Segment(start: 6.0, end: 7.0, text: " before"), Segment(start: 7.5, end: 8.3, text: " seam"), Segment(start: 8.6, end: 9.0, text: " after"),
        ])]
        let second = [EngineSegment(start: 0.5, end: 3, text: "before seam after", words: [
            Segment(start: 0.5, end: 1.0, text: " before"), Segment(start: 1.5, end: 2.3, text: " seam"), Segment(start: 2.6, end: 3.0, text: " after"),
        ])]
        let a = ChunkPlan.keep(first, of: plan.chunks[0])
        let b = ChunkPlan.keep(second, of: plan.chunks[1], after: a.last?.end ?? 0)
        #expect(Segment.transcript(of: a + b) == "before seam after")
        // The middle of "seam" is 7.9 s: the first piece's share ends at 8, so it keeps it.
        #expect(a.map(\.text) == ["before seam"])
        #expect(b.map(\.text) == ["after"])
        #expect(a[0].start == 6 && a[0].end == 8.3)
        #expect(b[0].start == 8.6 && b[0].end == 9.0)
    }

    @Test func segmentsWithoutWordTimesAreKeptByTheirMiddleAndTimesStayInOrder() {
        let plan = ChunkPlan(duration: 16, length: 10, overlap: 4)
        let heard = [EngineSegment(start: 0, end: 1, text: " one "), EngineSegment(start: 1.5, end: 3, text: "two"),
                     EngineSegment(start: 3, end: 3, text: "   ")]
        let kept = ChunkPlan.keep(heard, of: plan.chunks[1], after: 8.5)
        // "one" (middle 6.5 s) is the first piece's; "two" (8.25 s) this one's, moved after 8.5.
        #expect(kept == [Segment(start: 8.5, end: 9, text: "two")])
    }

    @Test func aResumedRunStartsAtThePieceThatHoldsWhereTheLastOneStopped() {
        let plan = ChunkPlan(duration: 25, length: 10, overlap: 4)
        #expect(plan.chunks(after: 0).count == 4)
        let rest = plan.chunks(after: 14)
        #expect(rest.map(\.start) == [12, 18])
        #expect(rest.first?.keepFrom == 14)
        #expect(plan.chunks(after: 100).isEmpty)
    }
}
