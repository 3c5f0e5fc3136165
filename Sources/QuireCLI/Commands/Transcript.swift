import Foundation
import QuireKit

struct TranscriptCommand: Command {
    static let name = "transcript"
    static let abstract = "Set the transcript of a voice note (or any attachment)."
    static let usage = """
        Usage: quire transcript MEDIA_ID (--text TEXT | --file F | --srt F | --vtt F | --edit)

        --edit opens the transcript in $VISUAL or $EDITOR: as SubRip (SRT) when it is timed,
        so a correction keeps every segment's time; as plain text when it is not. --text and
        --file keep the timing too: each new word takes the time of the old word it matches
        (a word that matches none goes with the word before it), so correcting a few words of
        a voice note never loses where they were said. A malformed subtitle file is refused
        with the line it fails on; nothing changes.
        """
    static let options: [OptionSpec] = [
        .value("text", "TEXT", "the transcript (its words keep the old segments' times where they match)"),
        .value("file", "F", "the transcript from a UTF-8 text file (timed as --text)"),
        .value("srt", "F", "a SubRip file: timed segments, text joined"),
        .value("vtt", "F", "a WebVTT file: timed segments, text joined"),
        .flag("edit", "open the transcript (SRT when timed) in $VISUAL or $EDITOR"),
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        let id = try arguments.positionals("MEDIA_ID")[0]
        let given = try Options.transcript(arguments, context: context, textOption: "text", fileOption: "file")
        if given != nil && arguments.flag("edit") { throw CLIError.usage("--edit opens the editor: give it alone") }
        let store = try context.openStore()
        let mediaID = try Options.mediaID(id, in: store)
        guard let current = try store.media(id: mediaID) else { throw CLIError.failure("no attachment with id \(id)", hint: nil) }
        var (text, segments): (String, [Segment])
        if arguments.flag("edit") {
            let timed = !current.segments.isEmpty
            let shown = timed ? Subtitles.srt(current.segments) : current.transcript + "\n"
            let session = EditorSession(context: context, store: store)
            guard let edited = try session.edit(shown, name: "transcript-" + mediaID.prefix(8) + (timed ? ".srt" : ".txt"), what: "edited transcript") else {
                context.printError("No change: the transcript of \(Format.short(mediaID)) is as it was.")
                return
            }
            if timed {
                do {
                    segments = try Subtitles.parse(edited, format: .srt, path: "the edited transcript")
                } catch {
                    throw CLIError.failure(Messages.text(of: error), hint: "nothing was changed; `quire transcript \(id) --edit` opens it again")
                }
                text = Segment.transcript(of: segments)
            } else {
                (text, segments) = (edited.trimmingCharacters(in: .whitespacesAndNewlines), [])
            }
        } else {
            guard let given else { throw CLIError.usage("give one of --text, --file, --srt, --vtt or --edit") }
            (text, segments) = given
            // Plain words for a timed transcript: aligned to the old times where they match.
            if segments.isEmpty, !current.segments.isEmpty, arguments.value("srt") == nil, arguments.value("vtt") == nil {
                segments = Segment.aligned(text, to: current.segments)
                if !segments.isEmpty { text = Segment.transcript(of: segments) }
            }
        }
        let media = try store.setTranscript(mediaID: mediaID, text: text, segments: segments)
        if context.stderrIsTerminal || arguments.flag("edit") {
            context.printError("Set the transcript of \(media.kind == .voice ? "voice note" : media.kind.name) \(Format.short(media.id)): "
                               + (segments.isEmpty ? Format.count(text.split(whereSeparator: \.isWhitespace).count, "word")
                                  : Format.count(segments.count, "timed segment")) + ".")
        }
    }
}
