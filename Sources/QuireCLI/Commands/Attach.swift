import Foundation
import QuireKit

struct AttachCommand: Command {
    static let name = "attach"
    static let abstract = "Attach a file (voice note, photo, video, any file) and print its id."
    static let usage = """
        Usage: quire attach ENTRY_ID FILE [--kind voice|photo|video|file]
                            [--transcript TEXT | --transcript-file F | --srt F | --vtt F] [--duration SECONDS]

        The file is copied into the store (streamed; the same bytes are stored once, and the
        same file attached to the same entry again is not added twice).
        """
    static let options: [OptionSpec] = [
        .value("kind", "K", "what it is: voice, photo, video or file (default: guessed from the file type)"),
        .value("transcript", "TEXT", "what is said in a voice note"),
        .value("transcript-file", "F", "the transcript from a UTF-8 text file"),
        .value("srt", "F", "a SubRip file: a timed transcript, its text the cues' text joined"),
        .value("vtt", "F", "a WebVTT file: the same"),
        .value("duration", "SECONDS", "length of a recording (default: read from the file, for WAV, FLAC,\nM4A/MP4, Ogg and MP3)"),
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        let positionals = try arguments.positionals("ENTRY_ID", "FILE")
        var kind: MediaKind?
        if let k = arguments.value("kind") {
            guard let parsed = MediaKind(rawValue: k) else { throw CLIError.usage("--kind must be voice, photo, video or file") }
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
        let store = try context.openStore()
        let entryID = try Options.entryID(positionals[0], in: store)
        let before = Set(try store.entry(id: entryID)?.media.map(\.id) ?? [])
        let media = try store.attach(to: entryID, NewAttachment(path: positionals[1], kind: kind, duration: duration,
                                                                transcript: transcript?.0 ?? "", segments: transcript?.1 ?? []))
        context.print(media.id)
        if before.contains(media.id) {
            context.printError("\(positionals[1]) is attached to this entry already (as \(Format.short(media.id))); nothing was added.")
            return
        }
        if let length = media.duration, let end = media.segments.map(\.end).max(), end > length + 1 {
            context.printError("warning: the transcript runs to \(Format.seconds(end)), past the end of the recording "
                               + "(\(Format.seconds(length))): is it the transcript of this recording?")
        }
        if context.stderrIsTerminal {
            context.printError("Attached \(media.kind.rawValue) \(Format.short(media.id)) (\(media.filename), \(Format.size(media.size))"
                               + (media.duration.map { ", " + Format.seconds($0) } ?? "") + ") to \(Format.short(entryID)).")
        }
    }
}
