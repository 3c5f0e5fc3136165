import Foundation
import QuireSupport
import Testing
@testable import QuireStore
@testable import QuireTranscribe

/// An engine for the `quire` binary's tests: a script that speaks the worker's JSON lines, put
/// where Quire looks for faster-whisper's Python. It hears one word a second of each piece
/// it is sent (`pNsT`: request N of the run, second T of the piece), timed in the piece,
/// logs each request's number to `QUIRE_ENGINE_TEST_LOG`, and on request `QUIRE_ENGINE_TEST_HANG_ON` hangs
/// until Quire is gone.
enum StandInEngine {
    static let worker = #"""
        #!/bin/bash
        echo '{"ready": true, "engine": "stand-in 1", "model": "words", "languages": ["en"]}'
        n=0
        while IFS= read -r line; do
            n=$((n + 1))
            if [ "$n" = "${QUIRE_ENGINE_TEST_HANG_ON:-0}" ]; then
                echo "$n" >> "$QUIRE_ENGINE_TEST_LOG"
                while IFS= read -r _; do :; done   # until Quire is gone and stdin closes
                exit 0
            fi
            audio=$(printf '%s' "$line" | sed -n 's/.*"audio": *"\([^"]*\)".*/\1/p')
            size=$(stat -c %s "$audio")
            seconds=$(( (size - 44 + 16000) / 32000 ))
            words=""
            for ((t = 0; t < seconds; t++)); do words+="${words:+,}[$t.25,$t.75,\" p${n}s$t\"]"; done
            echo "{\"segments\": [{\"start\": 0, \"end\": $seconds, \"text\": \"\", \"words\": [$words]}]}"
            echo "$n" >> "$QUIRE_ENGINE_TEST_LOG"
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

    static var here: Bool { Executables.find("ffmpeg") != nil }
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

    private func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? 0) & 0o777
    }

    /// A note whose container claims a length its bytes cannot hold, and a playlist that
    /// would make ffmpeg open another file: each is named and passed over, never a trap, and
    /// the other notes are heard.
    @Test func aLyingOrStrangeRecordingIsNamedAndPassedOver() throws {
        let entry = try QuireBinary.run(["add", "--title", "Notes", "Three."], store: store).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // Two seconds of Matroska whose Segment Info claims 10¹² s (its Duration, ID 0x4489).
        let mkv = dir.path + "/liar.mkv"
        #expect(try ExternalTool.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "2",
                                                "-c:a", "pcm_s16le", mkv]).status == 0)
        var liar = [UInt8](try Data(contentsOf: URL(fileURLWithPath: mkv)))
        let at = try #require((0..<(liar.count - 11)).first { liar[$0] == 0x44 && liar[$0 + 1] == 0x89 && liar[$0 + 2] == 0x88 })
        liar.replaceSubrange((at + 3)..<(at + 11), with: withUnsafeBytes(of: (1e15 as Double).bitPattern.bigEndian, Array.init))
        // Written beside the honest file, and read back: once in a full run the note attached
        // was heard as the honest two seconds, as if the patched bytes had never been written.
        let liarPath = dir.file("liar-patched.mkv", bytes: liar)
        try #require(FileManager.default.contents(atPath: liarPath) == Data(liar), "the patched recording was not written")
        let lying = try QuireBinary.run(["attach", entry, liarPath, "--kind", "voice"], store: store).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let playlist = try QuireBinary.run(["attach", entry, dir.file("list.m3u8", "#EXTM3U\n#EXTINF:10,\n\(silentWAV(dir, "other.wav", seconds: 3))\n#EXT-X-ENDLIST\n"),
                                            "--kind", "voice"], store: store).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let good = try QuireBinary.run(["attach", entry, silentWAV(dir, "good.wav", seconds: 2), "--kind", "voice"], store: store).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let run = try QuireBinary.run(["transcribe", "--pending", "--json"], store: store,
                                      environment: ["QUIRE_FASTER_WHISPER": home, "QUIRE_ENGINE_TEST_LOG": dir.path + "/log"])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)).object }
        func outcome(_ id: String) -> [String: JSONValue]? { lines.first { $0["media"]?.string == id } }
        #expect(outcome(lying)?["status"]?.string == "failed" && outcome(lying)?["reason"]?.string?.contains("claims to last") == true, "\(lines)")
        #expect(outcome(playlist)?["status"]?.string == "failed" && outcome(playlist)?["reason"]?.string?.contains("not a recording Quire reads") == true)
        #expect(outcome(good)?["status"]?.string == "transcribed")
        #expect(requests(dir.path + "/log") == ["1"], "only the good note reached the engine")
    }

    @Test func aKilledRunResumesFromItsLastCommittedPiece() throws {
        let entry = try QuireBinary.run(["add", "--title", "Long", "A long note."], store: store).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // 150 s: pieces of 60 s overlapping by 4 start at 0, 56 and 112 and keep up to 58, 114, the end.
        let wav = silentWAV(dir, "long.wav", seconds: 150)
        let media = try QuireBinary.run(["attach", entry, wav, "--kind", "voice"], store: store).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)

        let firstLog = dir.path + "/first.log"
        let run = try WatchedProcess(["--store", store, "transcribe", "--pending"],
                                     environment: ["QUIRE_FASTER_WHISPER": home, "QUIRE_ENGINE_TEST_LOG": firstLog, "QUIRE_ENGINE_TEST_HANG_ON": "3"])
        // Wait for the third piece to reach the engine: the first two are committed by then.
        let limit = Date().addingTimeInterval(Hang.limit)
        while requests(firstLog).count < 3 && run.process.isRunning && Date() < limit { usleep(50_000) }
        try #require(requests(firstLog) == ["1", "2", "3"], "the engine was not reached: \(run.stderr)")
        // The piece being heard is the store's own: a 0600 file in a 0700 folder, nothing in /tmp.
        let pieces = store + "/blobs/tmp/audio"
        let piece = try #require(try FileManager.default.contentsOfDirectory(atPath: pieces).first)
        #expect(mode(pieces) == 0o700 && mode(pieces + "/" + piece) == 0o600)
        let pid = run.process.processIdentifier
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())).contains { $0.hasPrefix("quire-piece-\(pid)-") })
        kill(run.process.processIdentifier, SIGKILL)
        run.process.waitUntilExit()
        #expect(run.process.terminationReason == .uncaughtSignal)
        #expect(FileManager.default.fileExists(atPath: pieces + "/" + piece), "a killed run cannot clean up")

        // Words heard: request n of a run, second t of its piece (`pNsT`). The first run's
        // pieces 1 and 2 start at 0 and 56, the second run's piece 1 at 112.
        let first = (0..<58).map { "p1s\($0)" } + (2..<58).map { "p2s\($0)" }
        let partial = try #require(try Store(folder: store).media(id: media))
        #expect(partial.transcribedTo == 114)
        #expect(partial.transcript.split(separator: " ").map(String.init) == first)
        #expect(partial.transcriber == "stand-in 1 words")

        let secondLog = dir.path + "/second.log"
        let again = try QuireBinary.run(["transcribe", "--pending", "--json"], store: store,
                                        environment: ["QUIRE_FASTER_WHISPER": home, "QUIRE_ENGINE_TEST_LOG": secondLog])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(requests(secondLog) == ["1"], "only the last piece is heard again")
        #expect(try FileManager.default.contentsOfDirectory(atPath: pieces).isEmpty, "the killed run's piece is gone, and this run's")
        let done = try #require(try Store(folder: store).media(id: media))
        #expect(done.transcribedTo == nil)
        // Every second's word once, in order: the killed run's 114, then 114…149 from the last piece.
        #expect(done.transcript.split(separator: " ").map(String.init) == first + (2..<38).map { "p1s\($0)" })
        #expect(done.segments.map(\.start) == [0.25, 58.25, 114.25])
        #expect(done.segments.last?.end == 149.75)
        #expect(try QuireBinary.run(["transcribe", "--pending", "--json"], store: store,
                                    environment: ["QUIRE_FASTER_WHISPER": home, "QUIRE_ENGINE_TEST_LOG": secondLog]).stdout.isEmpty)
    }
}

/// `attach --transcribe` and `import --transcribe`: what came in is saved first, then heard;
/// without an engine it is saved all the same, and the command says so and fails.
@Suite(.enabled(if: StandInEngine.here || ExternalTool.required))
struct TranscribeOnArrivalTests {
    let dir = TempDir()
    var store: String { dir.path + "/journal" }
    let home: String
    var engine: [String: String] { ["QUIRE_FASTER_WHISPER": home, "QUIRE_ENGINE_TEST_LOG": dir.path + "/log"] }
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

/// What an engine writes back is read in time linear in its length and within a bound: an
/// answer line longer than `WorkerEngine.maxLine` ends the run with one error, never a hang
/// or gigabytes held; and the engine's environment holds nothing of Quire's.
@Suite struct WorkerAnswerTests {
    @Test func anAnswerLineOverTheBoundIsAnError() throws {
        let engine = WorkerEngine(name: "talker", executable: "/bin/bash", arguments: ["-c", """
            echo '{"ready": true}'
            read -r _
            head -c \(WorkerEngine.maxLine + (1 << 20)) /dev/zero | tr '\\0' 'x'
            echo
            """])
        try engine.start()
        defer { engine.stop() }
        #expect {
            _ = try engine.transcribe(wav: "/dev/null", language: nil)
        } throws: { "\($0)".contains("a line over 16 MiB") }
    }

    @Test func theEngineSeesOnlyItsOwnSettings() throws {
        let dir = TempDir()
        let out = dir.path + "/env"
        let engine = WorkerEngine(name: "env", executable: "/bin/bash", arguments: ["-c", "env > \(out); pwd >> \(out); echo '{\"ready\": true}'"],
                                  environment: Engines.workerEnvironment(["QUIRE_PASSPHRASE": "secret", "QUIRE_WEBDAV_PASSWORD": "pw",
                                                                          "PYTHONPATH": "/tmp", "QUIRE_WHISPER_THREADS": "2"]),
                                  folder: dir.path)
        try engine.start()
        engine.stop()
        let seen = try String(contentsOfFile: out, encoding: .utf8)
        #expect(!seen.contains("secret") && !seen.contains("QUIRE_WEBDAV_PASSWORD") && !seen.contains("PYTHONPATH"))
        #expect(seen.contains("QUIRE_WHISPER_THREADS=2") && seen.hasSuffix(dir.path + "\n"))
    }
}
