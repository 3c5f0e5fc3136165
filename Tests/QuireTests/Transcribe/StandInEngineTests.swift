import Foundation
import Testing
@testable import QuireStore
@testable import QuireTranscribe

/// An engine for the `quire` binary's tests: a script that speaks the worker's JSON lines, put
/// where Quire looks for faster-whisper's Python. It hears one word a second of each piece
/// it is sent (`pNsT`: request N of the run, second T of the piece), timed in the piece,
/// logs each request's number to `QUIRE_TEST_LOG`, and on request `QUIRE_TEST_HANG_ON` hangs
/// until Quire is gone.
enum StandInEngine {
    static let worker = #"""
        #!/bin/bash
        echo '{"ready": true, "engine": "stand-in 1", "model": "words", "languages": ["en"]}'
        n=0
        while IFS= read -r line; do
            n=$((n + 1))
            if [ "$n" = "${QUIRE_TEST_HANG_ON:-0}" ]; then
                echo "$n" >> "$QUIRE_TEST_LOG"
                while IFS= read -r _; do :; done   # until Quire is gone and stdin closes
                exit 0
            fi
            audio=$(printf '%s' "$line" | sed -n 's/.*"audio": *"\([^"]*\)".*/\1/p')
            size=$(stat -c %s "$audio")
            seconds=$(( (size - 44 + 16000) / 32000 ))
            words=""
            for ((t = 0; t < seconds; t++)); do words+="${words:+,}[$t.25,$t.75,\" p${n}s$t\"]"; done
            echo "{\"segments\": [{\"start\": 0, \"end\": $seconds, \"text\": \"\", \"words\": [$words]}]}"
            echo "$n" >> "$QUIRE_TEST_LOG"
        done
        """#

    /// Puts the engine in `dir`; the folder to give as `QUIRE_FASTER_WHISPER`.
    static func install(in dir: TempDir) throws -> String {
        try FileManager.default.createDirectory(atPath: dir.path + "/engine/bin", withIntermediateDirectories: true)
        _ = dir.file("engine/bin/python3", worker)
        chmod(dir.path + "/engine/bin/python3", 0o755)
        return dir.path + "/engine"
    }

    /// The requests logged, in order.
    static func requests(_ log: String) -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    static var here: Bool { AudioDecoder.find("ffmpeg", in: ProcessInfo.processInfo.environment) != nil }
}

/// `quire transcribe` killed with SIGKILL in the middle of a recording, then run again: it
/// goes on from the last piece it committed, and the joined transcript has every second's
/// word once.
@Suite(.enabled(if: StandInEngine.here || ExternalTool.required))
struct TranscribeKillTests {
    let dir = TempDir()
    var store: String { dir.path + "/journal" }
    let home: String

    init() throws { home = try StandInEngine.install(in: dir) }

    private func requests(_ log: String) -> [String] { StandInEngine.requests(log) }

    @Test func aKilledRunResumesFromItsLastCommittedPiece() throws {
        let entry = try QuireBinary.run(["add", "--title", "Long", "A long note."], store: store).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // 150 s: pieces of 60 s overlapping by 4 start at 0, 56 and 112 and keep up to 58, 114, the end.
        let wav = silentWAV(dir, "long.wav", seconds: 150)
        let media = try QuireBinary.run(["attach", entry, wav, "--kind", "voice"], store: store).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)

        let firstLog = dir.path + "/first.log"
        let run = try WatchedProcess(["--store", store, "transcribe", "--pending"],
                                     environment: ["QUIRE_FASTER_WHISPER": home, "QUIRE_TEST_LOG": firstLog, "QUIRE_TEST_HANG_ON": "3"])
        // Wait for the third piece to reach the engine: the first two are committed by then.
        let limit = Date().addingTimeInterval(Hang.limit)
        while requests(firstLog).count < 3 && run.process.isRunning && Date() < limit { usleep(50_000) }
        try #require(requests(firstLog) == ["1", "2", "3"], "the engine was not reached: \(run.stderr)")
        kill(run.process.processIdentifier, SIGKILL)
        run.process.waitUntilExit()
        #expect(run.process.terminationReason == .uncaughtSignal)

        // Words heard: request n of a run, second t of its piece (`pNsT`). The first run's
        // pieces 1 and 2 start at 0 and 56, the second run's piece 1 at 112.
        let first = (0..<58).map { "p1s\($0)" } + (2..<58).map { "p2s\($0)" }
        let partial = try #require(try Store(folder: store).media(id: media))
        #expect(partial.transcribedTo == 114)
        #expect(partial.transcript.split(separator: " ").map(String.init) == first)
        #expect(partial.transcriber == "stand-in 1 words")

        let secondLog = dir.path + "/second.log"
        let again = try QuireBinary.run(["transcribe", "--pending", "--json"], store: store,
                                        environment: ["QUIRE_FASTER_WHISPER": home, "QUIRE_TEST_LOG": secondLog])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(requests(secondLog) == ["1"], "only the last piece is heard again")
        let done = try #require(try Store(folder: store).media(id: media))
        #expect(done.transcribedTo == nil)
        // Every second's word once, in order: the killed run's 114, then 114…149 from the last piece.
        #expect(done.transcript.split(separator: " ").map(String.init) == first + (2..<38).map { "p1s\($0)" })
        #expect(done.segments.map(\.start) == [0.25, 58.25, 114.25])
        #expect(done.segments.last?.end == 149.75)
        #expect(try QuireBinary.run(["transcribe", "--pending", "--json"], store: store,
                                    environment: ["QUIRE_FASTER_WHISPER": home, "QUIRE_TEST_LOG": secondLog]).stdout.isEmpty)
    }
}

/// `attach --transcribe` and `import --transcribe`: what came in is saved first, then heard;
/// without an engine it is saved all the same, and the command says so and fails.
@Suite(.enabled(if: StandInEngine.here || ExternalTool.required))
struct TranscribeOnArrivalTests {
    let dir = TempDir()
    var store: String { dir.path + "/journal" }
    let home: String
    var engine: [String: String] { ["QUIRE_FASTER_WHISPER": home, "QUIRE_TEST_LOG": dir.path + "/log"] }
    var noEngine: [String: String] { ["QUIRE_FASTER_WHISPER": dir.path + "/none"] }

    init() throws { home = try StandInEngine.install(in: dir) }

    private func entry() throws -> String {
        try QuireBinary.run(["add", "--title", "Notes", "A day."], store: store).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func anAttachedNoteIsHeardOnceSaved() throws {
        let run = try QuireBinary.run(["attach", try entry(), silentWAV(dir, "memo.wav", seconds: 5), "--kind", "voice", "--transcribe",
                                       "--language", "en"], store: store, environment: engine)
        #expect(run.status == 0, "\(run.stderr)")
        let id = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(run.stdout == id + "\n", "stdout is the id alone")
        let note = try #require(try Store(folder: store).media(id: id))
        #expect(note.transcript == "p1s0 p1s1 p1s2 p1s3 p1s4")
        #expect(note.hasMachineTranscript && note.transcribedTo == nil)
        // Attaching the same file again hears nothing more.
        let again = try QuireBinary.run(["attach", note.entryID, silentWAV(dir, "memo.wav", seconds: 5), "--kind", "voice", "--transcribe"],
                                        store: store, environment: engine)
        #expect(again.status == 0 && StandInEngine.requests(dir.path + "/log") == ["1"], "\(again.stderr)")
    }

    @Test func withoutAnEngineTheNoteIsSavedAndTheCommandSaysHowToHearItLater() throws {
        let run = try QuireBinary.run(["attach", try entry(), silentWAV(dir, "memo.wav", seconds: 3), "--kind", "voice", "--transcribe"],
                                      store: store, environment: noEngine)
        #expect(run.status == 1)
        let id = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(run.stderr.contains("memo.wav is attached, but not transcribed"), "\(run.stderr)")
        #expect(run.stderr.contains("install-whisper") && run.stderr.contains("quire transcribe --pending"), "\(run.stderr)")
        #expect(try Store(folder: store).pendingTranscriptions().map(\.id) == [id])
        // A photo asked to be heard is attached and named as not a recording.
        let photo = try QuireBinary.run(["attach", try entry(), dir.file("p.txt", "plain"), "--kind", "photo", "--transcribe"],
                                        store: store, environment: engine)
        #expect(photo.status == 1 && photo.stderr.contains("only voice and video notes are heard"), "\(photo.stderr)")
        #expect(!photo.stdout.isEmpty)
    }

    @Test func optionsThatDoNotGoTogetherAreUsageErrors() throws {
        let e = try entry(), wav = silentWAV(dir, "memo.wav", seconds: 1)
        for arguments in [["--transcribe", "--transcript", "said"], ["--language", "en"], ["--transcribe", "--language", "not a tag"]] {
            let run = try QuireBinary.run(["attach", e, wav, "--kind", "voice"] + arguments, store: store, environment: engine)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
        }
        #expect(try Store(folder: store).entry(id: e)?.media.isEmpty == true)
        #expect(try QuireBinary.run(["import", dir.file("x.jsonl", ""), "--engine", "faster-whisper"], store: store).status == 2)
    }

    @Test func anImportHearsTheNotesThatCameInWithoutText() throws {
        _ = silentWAV(dir, "media/a.wav", seconds: 2)
        _ = silentWAV(dir, "media/b.wav", seconds: 3)
        let file = dir.file("entries.jsonl", """
            {"id": "11111111-1111-4111-8111-111111111111", "created": "2025-03-01T10:00:00Z", "body": "one", "media": [{"kind": "voice", "path": "media/a.wav"}]}
            {"id": "22222222-2222-4222-8222-222222222222", "created": "2025-03-02T10:00:00Z", "body": "two", "media": [{"kind": "voice", "path": "media/b.wav", "transcript": "typed by me"}]}

            """)
        let run = try QuireBinary.run(["import", file, "--transcribe", "--json"], store: store, environment: engine)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try JSONValue.parse(run.stdout).object?["transcribed"]?.number == 1)
        let notes = try Store(folder: store).entries(matching: EntryFilter()).flatMap(\.media)
        #expect(Set(notes.map(\.transcript)) == ["p1s0 p1s1", "typed by me"])
        // The same file again brings nothing new to hear.
        let again = try QuireBinary.run(["import", file, "--transcribe", "--json"], store: store, environment: engine)
        #expect(try JSONValue.parse(again.stdout).object?["transcribed"]?.number == 0)
        #expect(StandInEngine.requests(dir.path + "/log") == ["1"])
        // Without an engine the entries come in all the same, and the command says so.
        let other = TempDir()
        let missing = try QuireBinary.run(["import", file, "--transcribe"], store: other.path + "/journal", environment: noEngine)
        #expect(missing.status == 1 && missing.stderr.contains("imported, but not transcribed"), "\(missing.stderr)")
        #expect(try Store(folder: other.path + "/journal").pendingTranscriptions().count == 1)
    }
}
