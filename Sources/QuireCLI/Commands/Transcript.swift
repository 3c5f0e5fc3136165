import Foundation
import QuireKit

struct TranscriptCommand: Command {
    static let name = "transcript"
    static let abstract = "Set the transcript of a voice note (or any attachment)."
    static let usage = """
        Usage: quire transcript MEDIA_ID (--text TEXT | --file F | --srt F | --vtt F)

        A malformed subtitle file is refused with the line it fails on; nothing changes.
        """
    static let options: [OptionSpec] = [
        .value("text", "TEXT", "the transcript"),
        .value("file", "F", "the transcript from a UTF-8 text file"),
        .value("srt", "F", "a SubRip file: timed segments, text joined"),
        .value("vtt", "F", "a WebVTT file: timed segments, text joined"),
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        let id = try arguments.positionals("MEDIA_ID")[0]
        guard let (text, segments) = try Options.transcript(arguments, context: context, textOption: "text", fileOption: "file") else {
            throw CLIError.usage("give one of --text, --file, --srt or --vtt")
        }
        let store = try context.openStore()
        let media = try store.setTranscript(mediaID: try Options.mediaID(id, in: store), text: text, segments: segments)
        if context.stderrIsTerminal {
            context.printError("Set the transcript of \(media.kind == .voice ? "voice note" : media.kind.rawValue) \(Format.short(media.id)): "
                               + (segments.isEmpty ? Format.count(text.split(whereSeparator: \.isWhitespace).count, "word")
                                  : Format.count(segments.count, "timed segment")) + ".")
        }
    }
}
