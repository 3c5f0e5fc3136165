import Foundation
import QuireSupport
import Testing
@testable import QuireStore
@testable import QuireTranscribe

/// An engine that hears one word a second, named by its second in the recording
/// (`w0 w1 …`): joined pieces must give each exactly once, in order. It is told which piece
/// comes next (a resumed run starts later), and may be made to fail on one.
final class CountingEngine: TranscriptionEngine {
    var info = EngineInfo(engine: "counting 1", model: "words", languages: ["en"])
    let step: Double
    var nextPiece = 0
    var failOnPiece: Int?
    private(set) var calls = 0
    private(set) var languages: [String?] = []

    init(step: Double) { self.step = step }

    func start() throws {}
    func stop() {}

    func transcribe(wav path: String, language: String?) throws -> [EngineSegment] {
        defer { nextPiece += 1 }
        calls += 1
        languages.append(language)
        if nextPiece == failOnPiece { throw TranscribeError(.engineFailed, "counting: failed on purpose") }
        // 16 kHz mono 16-bit: 32,000 bytes a second after the 44-byte header ffmpeg writes (or more).
        let size = Double((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        let seconds = Int((max(0, size - 44) / 32000).rounded())
        let start = Double(nextPiece) * step
        let words = (0..<seconds).map { t in
            Segment(start: Double(t) + 0.25, end: Double(t) + 0.75, text: " w\(Int(start) + t)")
        }
        return [EngineSegment(start: 0, end: Double(seconds), text: "", words: words)]
    }
}

/// A WAV file of `seconds` of silence, 16 kHz mono 16-bit.
func silentWAV(_ dir: TempDir, _ name: String, seconds: Int) -> String {
    var bytes: [UInt8] = []
    func u32(_ v: UInt32) { bytes += withUnsafeBytes(of: v.littleEndian, Array.init) }
    func u16(_ v: UInt16) { bytes += withUnsafeBytes(of: v.littleEndian, Array.init) }
    let data = UInt32(seconds * 32000)
    bytes += Array("RIFF".utf8); u32(36 + data); bytes += Array("WAVEfmt ".utf8)
    u32(16); u16(1); u16(1); u32(16000); u32(32000); u16(2); u16(16)
    bytes += Array("data".utf8); u32(data)
    bytes += [UInt8](repeating: 0, count: Int(data))
    return dir.file(name, bytes: bytes)
}

@Suite(.enabled(if: Executables.find("ffmpeg") != nil || ExternalTool.required))
struct TranscriberTests {
    let dir = TempDir()
    let store: Store
    let entry: String

    init() throws {
        store = try makeStore(dir)
        entry = try store.add(NewEntry(title: "Notes", body: "")).id
    }

    private func note(seconds: Int = 25, kind: MediaKind = .voice, transcript: String = "") throws -> Media {
        try store.attach(to: entry, NewAttachment(path: silentWAV(dir, "n\(UUID().uuidString).wav", seconds: seconds),
                                                  kind: kind, transcript: transcript))
    }

    private func transcriber(_ engine: CountingEngine) throws -> Transcriber {
        try Transcriber(store: store, engine: engine)
    }

    private var options: Transcriber.Options {
        var o = Transcriber.Options()
        (o.chunkLength, o.chunkOverlap) = (10, 4)
        return o
    }

    private static func words(_ n: Int) -> String { (0..<n).map { "w\($0)" }.joined(separator: " ") }

    @Test func piecesAreJoinedWithoutADoubledOrDroppedWordAndTimesInTheRecordingsClock() throws {
        let media = try note(seconds: 25)
        let engine = CountingEngine(step: 6)
        let outcome = try transcriber(engine).transcribe([media.id], options: options)
        #expect(outcome.map(\.status) == [.transcribed])
        #expect(engine.calls == 4)
        let done = try #require(try store.media(id: media.id))
        #expect(done.transcript == Self.words(25))
        #expect(done.transcriber == "counting 1 words")
        #expect(done.transcribedTo == nil)
        let starts = done.segments.map(\.start)
        #expect(starts == starts.sorted())
        #expect((done.segments.last?.end ?? 0) <= 25)
        #expect(done.segments.first?.start == 0.25)
    }

    @Test func pendingTwiceHearsNothingTheSecondTime() throws {
        let a = try note(seconds: 5), b = try note(seconds: 3)
        _ = try note(seconds: 2, kind: .photo)
        #expect(Set(try store.pendingTranscriptions().map(\.id)) == [a.id, b.id])
        let engine = CountingEngine(step: 6)
        let first = try transcriber(engine).transcribe(try store.pendingTranscriptions().map(\.id), options: options)
        #expect(first.map(\.status) == [.transcribed, .transcribed])
        #expect(try store.pendingTranscriptions().isEmpty)
        let again = CountingEngine(step: 6)
        #expect(try transcriber(again).transcribe(try store.pendingTranscriptions().map(\.id), options: options).isEmpty)
        #expect(again.calls == 0)
    }

    @Test func theUsersCorrectionSurvivesAndForceReplacesIt() throws {
        let media = try note(seconds: 5)
        _ = try transcriber(CountingEngine(step: 6)).transcribe([media.id], options: options)
        try store.setTranscript(mediaID: media.id, text: "what I really said")
        #expect(try store.pendingTranscriptions().isEmpty)
        let engine = CountingEngine(step: 6)
        let left = try transcriber(engine).transcribe([media.id], options: options)
        #expect(left.map(\.status) == [.skipped])
        #expect(left.first?.reason.contains("your own") == true)
        #expect(engine.calls == 0)
        #expect(try store.media(id: media.id)?.transcript == "what I really said")
        var force = options
        force.force = true
        _ = try transcriber(CountingEngine(step: 6)).transcribe([media.id], options: force)
        #expect(try store.media(id: media.id)?.transcript == Self.words(5))
        #expect(try store.media(id: media.id)?.hasMachineTranscript == true)
        // A transcript brought in with the note is the user's too.
        let brought = try note(seconds: 5, transcript: "typed in")
        #expect(try transcriber(CountingEngine(step: 6)).transcribe([brought.id], options: options).map(\.status) == [.skipped])
    }

    @Test func aRunStoppedMidwayResumesWhereItWas() throws {
        let media = try note(seconds: 25)
        let engine = CountingEngine(step: 6)
        engine.failOnPiece = 2
        let stopped = try transcriber(engine).transcribe([media.id], options: options)
        #expect(stopped.map(\.status) == [.failed])
        let partial = try #require(try store.media(id: media.id))
        // Pieces 0 and 1 were committed: their shares end at 14 s.
        #expect(partial.transcribedTo == 14)
        #expect(partial.transcript == Self.words(14))
        #expect(try store.pendingTranscriptions().map(\.id) == [media.id])
        let resumed = CountingEngine(step: 6)
        resumed.nextPiece = 2
        _ = try transcriber(resumed).transcribe([media.id], options: options)
        #expect(resumed.calls == 2)
        #expect(try store.media(id: media.id)?.transcript == Self.words(25))
        #expect(try store.media(id: media.id)?.transcribedTo == nil)
    }

    @Test func aLanguageTheEngineDoesNotKnowIsLeftForTheUser() throws {
        let media = try note(seconds: 3)
        let engine = CountingEngine(step: 6)
        var spanish = options
        spanish.language = "es-MX"
        let outcome = try transcriber(engine).transcribe([media.id], options: spanish)
        #expect(outcome.map(\.status) == [.skipped])
        #expect(outcome.first?.reason.contains("'es-MX'") == true)
        #expect(engine.calls == 0)
        #expect(try store.media(id: media.id)?.transcript == "")
        var english = options
        english.language = "en-GB"
        _ = try transcriber(engine).transcribe([media.id], options: english)
        #expect(engine.languages == ["en-GB"])
    }

    @Test func anUndecodableNoteIsNamedAndPassedOver() throws {
        let bad = try store.attach(to: entry, NewAttachment(path: dir.file("memo.m4a", "not audio at all"), kind: .voice))
        let good = try note(seconds: 3)
        let outcome = try transcriber(CountingEngine(step: 6)).transcribe([bad.id, good.id], options: options)
        #expect(outcome.map(\.status) == [.failed, .transcribed])
        #expect(outcome.first?.reason.hasPrefix("memo.m4a") == true)
        #expect(try store.media(id: bad.id)?.transcriber == "")
    }

    @Test func noEngineChangesNothing() throws {
        let media = try note(seconds: 3)
        let missing = WorkerEngine(name: "faster-whisper", executable: dir.path + "/no/python3", arguments: [])
        #expect {
            _ = try Transcriber(store: store, engine: missing)
        } throws: { error in
            guard let error = error as? TranscribeError else { return false }
            return error.kind == .noEngine && error.detail == "faster-whisper: \(dir.path)/no/python3 is not there"
        }
        #expect(try store.media(id: media.id) == media)
    }
}
