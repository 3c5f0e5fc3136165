import Foundation
import Testing
@testable import QuireStore
@testable import QuireTranscribe

/// `quire transcribe` through the real engine (faster-whisper, Whisper tiny.en), hearing
/// speech espeak-ng made. `./scripts/test` installs both; elsewhere the suite runs when they
/// are there.
enum RealEngine {
    static let home = Engines.fasterWhisperHome(environment: ProcessInfo.processInfo.environment)
    static var here: Bool {
        FileManager.default.isExecutableFile(atPath: home + "/bin/python3") && ExternalTool.path("espeak-ng") != nil
    }
}

@Suite(.enabled(if: RealEngine.here || ExternalTool.required), .serialized)
struct TranscribeCLITests {
    static let sentence = "This morning I walked along the river and watched the sun come up over the old bridge. "
        + "Later I met my sister for coffee, and we talked about her new job in the city."

    let dir = TempDir()
    var store: String { dir.path + "/journal" }
    var env: [String: String] { ["QUIRE_FASTER_WHISPER": RealEngine.home] }

    private func quire(_ arguments: [String]) throws -> QuireRun {
        try QuireBinary.run(arguments, store: store, environment: env)
    }

    /// An entry with one spoken voice note (Ogg/Opus, as a phone records); its media id.
    private func spokenNote(_ sentence: String = Self.sentence, voice: String = "en-us") throws -> (entry: String, media: String) {
        let wav = dir.path + "/spoken-\(voice).wav", ogg = dir.path + "/memo-\(voice).ogg"
        #expect(try ExternalTool.run("espeak-ng", ["-v", voice, "-s", "150", "-w", wav, sentence]).status == 0)
        #expect(try ExternalTool.run("ffmpeg", ["-nostdin", "-v", "error", "-i", wav, "-c:a", "libopus", ogg]).status == 0)
        let entry = try quire(["add", "--title", "Morning", "A walk."]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let media = try quire(["attach", entry, ogg, "--kind", "voice"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return (entry, media)
    }

    /// How many of `spoken`'s words `heard` has, as a share.
    private static func recall(_ spoken: String, _ heard: String) -> Double {
        let said = words(spoken), found = Set(words(heard))
        return Double(said.filter { found.contains($0) }.count) / Double(max(1, said.count))
    }

    private static func words(_ text: String) -> [String] {
        text.lowercased().split { !$0.isLetter }.map(String.init)
    }

    /// The worker runs isolated, in its own folder: a `json.py` (which it imports first of
    /// all) where the user stands is never run, and no secret of Quire's reaches it.
    @Test func theWorkerRunsNoCodeFromTheFolderTheUserStandsIn() throws {
        let here = dir.path + "/here"
        try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: true)
        let marker = dir.path + "/imported"
        for module in ["json", "faster_whisper", "os"] {
            _ = dir.file("here/\(module).py", "open('\(marker)', 'a').write('\(module) ran\\n')\nraise SystemExit(3)\n")
        }
        let engines = try QuireBinary.run(["transcribe", "--engines"], store: store,
                                          environment: env.merging(["QUIRE_PASSPHRASE": "secret words", "PYTHONPATH": here]) { $1 }, cwd: here)
        #expect(engines.status == 0, "\(engines.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker), "\((try? String(contentsOfFile: marker, encoding: .utf8)) ?? "")")
    }

    @Test func aSpokenNoteComesBackSearchableAndInTheBooks() throws {
        let (_, media) = try spokenNote()
        let run = try quire(["transcribe", "--pending", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try JSONValue.parse(run.stdout).object
        #expect(line?["media"]?.string == media)
        #expect(line?["status"]?.string == "transcribed")

        let opened = try Store(folder: store)
        let note = try #require(try opened.media(id: media))
        #expect(Self.recall(Self.sentence, note.transcript) >= 0.8, "heard: \(note.transcript)")
        #expect(note.transcriber.hasPrefix("faster-whisper"))
        #expect(!note.segments.isEmpty)
        for (a, b) in zip(note.segments, note.segments.dropFirst()) { #expect(a.start <= b.start && a.end <= b.start + 0.001) }
        let length = try AudioDecoder().duration(of: opened.blobs.path(for: note.blobID))
        #expect(note.segments.allSatisfy { $0.start >= 0 && $0.end <= length + 0.01 })

        #expect(try quire(["search", "bridge"]).stdout.contains("Morning"))
        // A second --pending hears nothing.
        let again = try quire(["transcribe", "--pending", "--json"])
        #expect(again.status == 0 && again.stdout.isEmpty)

        let epub = dir.path + "/book.epub", pdf = dir.path + "/book.pdf"
        #expect(try quire(["export", "epub", epub]).status == 0)
        let archive = try ZipArchive(epub)
        #expect(archive.names.contains { archive.text($0).contains("sister for coffee") })
        #expect(try quire(["export", "pdf", pdf]).status == 0)
        let text = try ExternalTool.run("pdftotext", ["-enc", "UTF-8", pdf, "-"]).stdout
        // (The book hyphenates: soft hyphens and line ends are not the text.)
        let flat = text.replacingOccurrences(of: "\u{AD}", with: "").replacingOccurrences(of: "\n", with: " ")
        #expect(flat.contains("sister for coffee"))
    }

    @Test func theModelsAreListedAndALanguageNeitherKnowsIsLeftAlone() throws {
        let list = try quire(["transcribe", "--engines"])
        #expect(list.status == 0)
        #expect(list.stdout.contains("faster-whisper: available: faster-whisper 1.2.1 tiny.en (en)"), "\(list.stdout)")
        #expect(list.stdout.contains("faster-whisper: available: faster-whisper 1.2.1 base ("), "\(list.stdout)")
        let (_, media) = try spokenNote()
        let klingon = try quire(["transcribe", media, "--language", "tlh"])
        #expect(klingon.status == 0)
        #expect(klingon.stdout.contains("skipped") && klingon.stdout.contains("'tlh'"), "\(klingon.stdout)")
        #expect(try Store(folder: store).media(id: media)?.transcript == "")
    }

    /// Spanish and Russian are heard by the multilingual model, Russian written in its own
    /// script. (Told the language: espeak-ng's Russian is robotic enough that the model,
    /// left to tell it, hears Latvian.)
    @Test func otherLanguagesAreHeardByTheMultilingualModel() throws {
        let spanish = "Esta mañana caminé junto al río y vi salir el sol sobre el puente viejo. "
            + "Más tarde me encontré con mi hermana para tomar un café y hablamos de su nuevo trabajo en la ciudad."
        let (_, es) = try spokenNote(spanish, voice: "es")
        let run = try quire(["transcribe", es, "--language", "es", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let heard = try #require(try Store(folder: store).media(id: es))
        #expect(heard.transcriber.hasSuffix(" base"), "\(heard.transcriber)")
        #expect(Self.recall(spanish, heard.transcript) >= 0.7, "heard: \(heard.transcript)")

        let russian = "Потом я встретился с сестрой за чашкой кофе, и мы говорили о её новой работе в городе."
        let (_, ru) = try spokenNote(russian, voice: "ru")
        #expect(try quire(["transcribe", ru, "--language", "ru"]).status == 0)
        let text = try #require(try Store(folder: store).media(id: ru)).transcript
        let letters = text.unicodeScalars.filter { $0.properties.isAlphabetic }
        let cyrillic = letters.filter { (0x0400...0x04FF).contains($0.value) }
        #expect(!letters.isEmpty && Double(cyrillic.count) >= 0.9 * Double(letters.count), "heard: \(text)")
        #expect(try quire(["search", "городе"]).stdout.contains("Morning"), "heard: \(text)")
    }

    @Test func withoutAnEngineNothingChangesAndTheErrorSaysHowToInstallOne() throws {
        let (_, media) = try spokenNote()
        let run = try QuireBinary.run(["transcribe", "--pending"], store: store, environment: ["QUIRE_FASTER_WHISPER": dir.path + "/none"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("install-whisper"))
        #expect(run.stderr.split(separator: "\n").count <= 2)
        let listed = try QuireBinary.run(["transcribe", "--engines"], store: store, environment: ["QUIRE_FASTER_WHISPER": dir.path + "/none"])
        #expect(listed.stdout.contains("not available"))
        #expect(try Store(folder: store).media(id: media)?.transcript == "")
        #expect(try quire(["transcribe"]).status == 2)
        #expect(try quire(["transcribe", media, "--language", "not a tag"]).status == 2)
    }
}
