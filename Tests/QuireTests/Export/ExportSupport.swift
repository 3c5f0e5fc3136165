import CZip
import Foundation
@testable import QuireStore

/// A journal with what makes books hard: Russian, Japanese, Arabic (right to left), empty
/// and very long entries, raw HTML, footnotes, tables, remote and relative images, control
/// characters, photos in jpg and png (one shared by two entries), voice notes in m4a, mp3,
/// Ogg Opus and WAV (not a core type), hostile attachment names, entries near midnight in
/// far-apart zones, and a few hundred generated entries over three years.
enum VariedJournal {
    static let media = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/media").path

    static let arabicTitle = "صباح في المكتبة"
    static let longParagraph = String(repeating: "Долгий день. 長い一日。 A long day, written at length. ", count: 40)

    /// Writes the interchange file and media into `dir` and imports it into `dir/store`.
    /// - Returns: the store folder.
    @discardableResult
    static func make(in dir: TempDir, generated: Int = 240) throws -> String {
        let folder = dir.path + "/journal"
        try FileManager.default.createDirectory(atPath: folder + "/media", withIntermediateDirectories: true)
        for file in ["photo.jpg", "photo.png", "voice.m4a", "voice.mp3", "voice.ogg", "voice.wav"] {
            try FileManager.default.copyItem(atPath: media + "/" + file, toPath: folder + "/media/" + file)
        }
        let segments: [[String: Any]] = [
            ["start": 0.0, "end": 1.2, "text": "Первая фраза."],
            ["start": 1.2, "end": 2.5, "text": "二番目の文。"],
            ["start": 2.5, "end": 3.0, "text": "And the last <one> & done."],
        ]
        var lines: [[String: Any]] = [
            ["journal": "Travel", "created": "2025-03-01T21:14:05+03:00", "title": "Вечер в Москве",
             "body": "Гуляли по **Красной площади**.\n\n- купить открытки\n- [x] позвонить маме", "tags": ["путешествия", "москва"],
             "location": ["lat": 55.7539, "lon": 37.6208, "name": "Красная площадь"]],
            ["journal": "Travel", "created": "2025-04-12T09:30:00.250+09:00", "title": "東京の朝",
             "body": "今日は東京タワーに行きました。桜がとてもきれいでした。", "tags": ["旅行"]],
            ["journal": "Journal", "created": "2025-06-20T07:10:00+04:00", "title": arabicTitle,
             "body": "ذَهَبْتُ إلى المَكْتَبَةِ في الصباح وقرأت كتاباً عن تاريخ المدينة.", "tags": ["قراءة", "rtl"]],
            ["journal": "Journal", "created": "2025-06-24T19:00:00+03:00", "title": "مذكرة صوتية", "body": "سجلت ملاحظة في المساء.",
             "tags": ["rtl"], "media": [["kind": "voice", "path": "media/voice.m4a", "filename": "مذكرة.m4a", "duration": 3.0,
                                          "segments": [["start": 0.0, "end": 1.5, "text": "مرحبا بكم."], ["start": 1.5, "end": 3.0, "text": "إلى اللقاء."]]]]],
            ["journal": "Journal", "created": "2025-06-25T08:00:00+03:00", "title": "An English page", "body": "In a right-to-left book.", "tags": ["rtl"]],
            ["journal": "Journal", "created": "2025-06-21T00:00:00Z", "title": "", "body": ""],
            ["journal": "Journal", "created": "2025-06-22T12:00:00-03:00", "title": "A very long day",
             "body": Array(repeating: longParagraph, count: 100).joined(separator: "\n\n")],
            ["journal": "Journal", "created": "2025-06-23T12:00:00+02:00", "title": "Raw HTML & friends",
             "body": """
                # A heading inside

                <script>alert("x")</script>

                Inline <b onclick="x()">bold</b>&nbsp;and&nbsp;spaced, a control \u{1}character.

                | left | right |
                |:-----|------:|
                | 1    | 2     |

                A footnote[^1] and ![remote](https://example.org/x.png) and ![local](pic.png) and [notes](notes.md) and https://example.org.

                [^1]: The note.
                """],
            ["journal": "Journal", "created": "2025-07-01T10:00:00+01:00", "title": "Photos",
             "body": "Two photos.", "media": [["kind": "photo", "path": "media/photo.jpg", "filename": "IMG_0001.jpg"],
                                              ["kind": "photo", "path": "media/photo.png", "filename": "CON.png"]]],
            ["journal": "Journal", "created": "2025-07-02T10:00:00+01:00", "title": "The same photo again",
             "body": "", "media": [["kind": "photo", "path": "media/photo.jpg", "filename": "again.jpg"]]],
            ["journal": "Journal", "created": "2025-07-03T10:00:00+01:00", "title": "Voice notes",
             "body": "Four recordings.", "tags": ["voice"], "media": [
                ["kind": "voice", "path": "media/voice.m4a", "filename": "Voice 014.m4a", "duration": 3.0, "segments": segments],
                ["kind": "voice", "path": "media/voice.mp3", "filename": "Memo 2.mp3", "duration": 3.0,
                 "transcript": "A transcript without times.\n\nSecond paragraph."],
                ["kind": "voice", "path": "media/voice.ogg", "filename": "opus.ogg", "duration": 3.0, "segments": segments],
                ["kind": "voice", "path": "media/voice.wav", "filename": "old.wav", "duration": 1.0, "segments": segments],
            ]],
            ["journal": "Journal", "created": "2025-07-04T10:00:00+01:00", "title": "Hostile names",
             "body": "", "media": [["kind": "file", "path": "media/notes.txt", "filename": "../../etc/passwd", "mime": "text/plain"]]],
            ["journal": "Journal", "created": "2025-07-05T10:00:00+01:00", "title": "Title: with \"quotes\" # and *stars* ---",
             "body": "---\nnot: front matter\n---", "tags": ["a:b", "- dash"]],
            ["journal": "Journal", "created": "2025-07-06T09:00:00+01:00", "title": "Same title", "body": "first"],
            ["journal": "Journal", "created": "2025-07-06T10:00:00+01:00", "title": "Same title", "body": "second"],
            ["journal": "Journal", "created": "2025-07-06T11:00:00+01:00", "title": "SAME TITLE", "body": "third"],
            // Near midnight, far apart: the instant order and the local months disagree.
            ["journal": "Journal", "created": "2025-03-31T23:30:00-10:00", "title": "Last night of March in Hawaii", "body": ""],
            ["journal": "Journal", "created": "2025-04-01T00:30:00+14:00", "title": "First hour of April in Kiribati", "body": ""],
        ]
        let languages = ["Сегодня был обычный день.", "今日は普通の日でした。", "Hoy fue un día normal.", "كان اليوم يوماً عادياً.", "An ordinary day."]
        for i in 0..<generated {
            let day = i * 4
            let month = 1 + (day / 28) % 12, year = 2023 + day / 336, dom = 1 + day % 28
            let created = String(format: "%04d-%02d-%02dT%02d:%02d:00+0%d:00", year, month, dom, 6 + i % 15, i % 60, i % 10)
            lines.append(["journal": i % 3 == 0 ? "Dreams" : "Journal", "created": created, "title": "Day \(i)",
                          "body": languages[i % languages.count] + "\n\nEntry number \(i).", "tags": i % 5 == 0 ? ["weekly"] : []])
        }
        _ = dir.file("journal/media/notes.txt", "root:x:0:0\n")
        var text = ""
        for line in lines {
            let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
            text += String(decoding: data, as: UTF8.self) + "\n"
        }
        _ = dir.file("journal/entries.jsonl", text)
        let store = try makeStore(dir)
        _ = try store.importJSONLines(at: folder + "/entries.jsonl")
        return dir.path + "/store"
    }
}

/// Reads a zip archive with libzip, for checking what a book holds.
struct ZipArchive {
    let names: [String]
    private let contents: [String: Data]

    init(_ path: String) throws {
        var code: Int32 = 0
        guard let archive = zip_open(path, ZIP_RDONLY, &code) else { throw ZipReadError(reason: "cannot open \(path): \(code)") }
        defer { zip_discard(archive) }
        var names: [String] = []
        var contents: [String: Data] = [:]
        for index in 0..<max(0, zip_get_num_entries(archive, 0)) {
            guard let cName = zip_get_name(archive, zip_uint64_t(index), 0) else { continue }
            let name = String(cString: cName)
            var info = zip_stat_t()
            zip_stat_init(&info)
            guard zip_stat_index(archive, zip_uint64_t(index), 0, &info) == 0, let file = zip_fopen_index(archive, zip_uint64_t(index), 0) else {
                throw ZipReadError(reason: "cannot read \(name)")
            }
            var data = Data(count: Int(info.size))
            let read = data.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress, info.size) }
            zip_fclose(file)
            guard read == Int64(info.size) else { throw ZipReadError(reason: "short read of \(name)") }
            names.append(name)
            contents[name] = data
        }
        self.names = names
        self.contents = contents
    }

    func text(_ name: String) -> String { contents[name].map { String(decoding: $0, as: UTF8.self) } ?? "" }
    func data(_ name: String) -> Data? { contents[name] }
}

struct ZipReadError: Error { let reason: String }

/// An outside program a test drives (epubcheck, pandoc). `./scripts/test` installs them and
/// sets QUIRE_REQUIRE_TOOLS=1, so there a missing tool fails the test instead of skipping it.
enum ExternalTool {
    static func path(_ name: String) -> String? {
        if let given = ProcessInfo.processInfo.environment["QUIRE_" + name.uppercased()], FileManager.default.isExecutableFile(atPath: given) {
            return given
        }
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = String(folder) + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static var required: Bool { ProcessInfo.processInfo.environment["QUIRE_REQUIRE_TOOLS"] == "1" }

    /// True when the test can run with `name`, or when it must (and will then fail).
    static func available(_ name: String) -> Bool { path(name) != nil || required }

    /// Runs `name` with `arguments`; its status and what it wrote, as bytes (for binary output).
    static func runBytes(_ name: String, _ arguments: [String]) throws -> (status: Int32, stdout: Data, stderr: Data) {
        guard let path = path(name) else { throw ZipReadError(reason: "\(name) is not installed (./scripts/test installs it)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let box = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { box.set(err: err.fileHandleForReading.readDataToEndOfFile()); group.leave() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return (process.terminationStatus, outData, box.err)
    }

    /// Runs `name` with `arguments`; (status, stdout, stderr).
    static func run(_ name: String, _ arguments: [String]) throws -> QuireRun {
        let run = try runBytes(name, arguments)
        return QuireRun(status: run.status, stdout: String(decoding: run.stdout, as: UTF8.self), stderr: String(decoding: run.stderr, as: UTF8.self))
    }
}

/// EPUBCheck's verdict on a book: its fatal errors, errors and warnings, one line each, and
/// the whole JSON report.
enum EPUBCheck {
    static func problems(_ book: String, dir: TempDir) throws -> ([String], JSONValue) {
        let report = dir.path + "/report-" + UUID().uuidString + ".json"
        _ = try ExternalTool.run("epubcheck", [book, "--json", report])
        let json = try JSONValue.parse((try? String(contentsOfFile: report, encoding: .utf8)) ?? "")
        let problems = (json.object?["messages"]?.array ?? []).compactMap { message -> String? in
            let o = message.object
            let severity = o?["severity"]?.string ?? ""
            guard ["FATAL", "ERROR", "WARNING"].contains(severity) else { return nil }
            let where_ = o?["locations"]?.array?.first?.object.map { "\($0["path"]?.string ?? ""):\($0["line"]?.number ?? 0)" } ?? ""
            return "\(severity) \(o?["ID"]?.string ?? "") \(where_) \(o?["message"]?.string ?? "")"
        }
        return (problems, json)
    }
}
