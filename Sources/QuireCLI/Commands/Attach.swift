import Foundation
import QuireKit

struct AttachCommand: Command {
    static let name = "attach"
    static let abstract = "Attach a file (voice note, photo, video, any file) and print its id."
    static let usage = """
        Usage: quire attach ENTRY_ID FILE [--kind voice|photo|video|file]
                            [--transcript TEXT | --transcript-file F | --srt F | --vtt F] [--duration SECONDS]
                            [--transcribe [--language TAG] [--engine NAME]]

        The file is copied into the store (streamed; the same bytes are stored once, and the
        same file attached to the same entry again is not added twice).
        With --transcribe, a voice or video note is then heard on this machine, as `quire
        transcribe` does: its transcript becomes a draft you may correct. The note is saved
        first whatever happens; if it cannot be heard (no engine installed, say), the command
        says why and exits 1, and `quire transcribe --pending` hears it later.
        """
    static let options: [OptionSpec] = [
        .value("kind", "K", "what it is: voice, photo, video or file (default: guessed from the file type)"),
        .value("transcript", "TEXT", "what is said in a voice note"),
        .value("transcript-file", "F", "the transcript from a UTF-8 text file"),
        .value("srt", "F", "a SubRip file: a timed transcript, its text the cues' text joined"),
        .value("vtt", "F", "a WebVTT file: the same"),
        .value("duration", "SECONDS", "length of a recording (default: read from the file, for WAV, FLAC,\nM4A/MP4, Ogg and MP3)"),
        .flag("transcribe", "hear the voice or video note on this machine once it is saved"),
        .value("language", "TAG", "with --transcribe: the note's language (en, es-MX…)"),
        .value("engine", "NAME", "with --transcribe: the engine (\(Engines.names.joined(separator: ", ")))"),
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        let positionals = try arguments.positionals("ENTRY_ID", "FILE")
        var kind: MediaKind?
        if let k = arguments.value("kind") {
            guard let parsed = MediaKind(name: k) else { throw CLIError.usage("--kind must be voice, photo, video or file") }
            kind = parsed
        }
        var duration: Double?
        if let d = arguments.value("duration") {
            guard let parsed = Double(d), Media.isValidSeconds(parsed) else {
                throw CLIError.usage("--duration must be seconds from 0 to \(Int(Media.maxSeconds))")
            }
            duration = parsed
        }
        let transcript = try Options.transcript(arguments, context: context, textOption: "transcript", fileOption: "transcript-file")
        let transcribe = try Hearing.asked(arguments)
        if transcribe && transcript != nil { throw CLIError.usage("--transcribe hears a note that has no transcript; you gave one") }
        let store = try context.openStore()
        let entryID = try Options.entryID(positionals[0], in: store)
        let before = Set(try store.entry(id: entryID)?.media.map(\.id) ?? [])
        let media = try store.attach(to: entryID, NewAttachment(path: positionals[1], kind: kind, duration: duration,
                                                                transcript: transcript?.0 ?? "", segments: transcript?.1 ?? []))
        context.print(media.id)
        if before.contains(media.id) {
            context.printError("\(positionals[1]) is attached to this entry already (as \(Format.short(media.id))); nothing was added.")
            if transcribe, try store.pendingTranscriptions().contains(where: { $0.id == media.id }) {
                try Hearing.tell(try Hearing.hear([media.id], journal: Journal(store: store), arguments: arguments, context: context),
                                 what: "\(positionals[1]) is attached", context: context)
            }
            return
        }
        if let length = media.duration, let end = media.segments.map(\.end).max(), end > length + 1 {
            context.printError("warning: the transcript runs to \(Format.seconds(end)), past the end of the recording "
                               + "(\(Format.seconds(length))): is it the transcript of this recording?")
        }
        if context.stderrIsTerminal {
            context.printError("Attached \(media.kind.name) \(Format.short(media.id)) (\(media.filename), \(Format.size(media.size))"
                               + (media.duration.map { ", " + Format.seconds($0) } ?? "") + ") to \(Format.short(entryID)).")
        }
        if transcribe {
            guard media.kind == .voice || media.kind == .video else {
                throw CLIError.failure("\(positionals[1]) is attached, but as a \(media.kind.name): only voice and video notes are heard",
                                       hint: "attach it again with --kind voice if it is a recording")
            }
            try Hearing.tell(try Hearing.hear([media.id], journal: Journal(store: store), arguments: arguments, context: context),
                             what: "\(positionals[1]) is attached", context: context)
        }
    }
}
