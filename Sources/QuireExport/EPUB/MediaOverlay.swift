import QuireStore

/// An EPUB 3 Media Overlay for one page: each timed transcript segment of each embedded
/// voice note, in page order, paired with its stretch of the recording, so a reader that
/// supports overlays highlights the words while they play.
struct MediaOverlay {
    struct Cue {
        /// Id of the segment's element on the page.
        let textID: String
        /// Audio file, relative to the package folder.
        let audio: String
        let begin: Double
        let end: Double
    }

    private(set) var cues: [Cue] = []

    var isEmpty: Bool { cues.isEmpty }

    /// Adds the usable segments of a recording: a clip must have a positive length and not
    /// start before the previous clip of the same recording ended (cues stay in order).
    /// - Returns: for each segment, the id its element should carry, or nil when it has no cue.
    mutating func add(segments: [Segment], audio: String, idPrefix: String) -> [String?] {
        var lastEnd = 0.0
        var ids: [String?] = []
        for (index, segment) in segments.enumerated() {
            guard segment.start.isFinite, segment.end.isFinite, segment.start >= lastEnd, segment.end > segment.start,
                  !segment.text.isEmpty else {
                ids.append(nil)
                continue
            }
            let id = idPrefix + "-s\(index + 1)"
            cues.append(Cue(textID: id, audio: audio, begin: segment.start, end: segment.end))
            lastEnd = segment.end
            ids.append(id)
        }
        return ids
    }

    /// Total playing time of the cues.
    var duration: Double { cues.reduce(0) { $0 + ($1.end - $1.begin) } }

    /// SMIL clock value `h:mm:ss.fff`.
    static func clock(_ seconds: Double) -> String {
        let bounded = seconds.isFinite ? min(max(0, seconds), Media.maxSeconds) : 0
        let millis = Int64((bounded * 1000).rounded())
        let h = millis / 3_600_000, m = millis / 60_000 % 60, s = millis / 1000 % 60, ms = millis % 1000
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let frac = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
        return "\(h):" + two(m) + ":" + two(s) + "." + frac
    }

    /// Template data: `{pars: [{id, text, audio, begin, end}]}` with paths relative to the
    /// overlay file (`overlays/` beside `text/`).
    func data(page: String) -> MustacheValue {
        .object(["pars": .list(cues.enumerated().map { index, cue in
            .object(["id": .string("par\(index + 1)"), "text": .string("../" + page + "#" + cue.textID),
                     "audio": .string("../" + cue.audio), "begin": .string(Self.clock(cue.begin)),
                     "end": .string(Self.clock(cue.end))])
        })])
    }
}
