// Transcript segments in the store's canonical JSON (an array of start, end and text).

extension JSONValue {
    /// Segments stored in the canonical form written by `JSONWriter.segments`.
    static func parseSegments(_ text: String) throws -> [Segment] {
        guard let items = try parse(text).array else { return [] }
        return items.compactMap { item in
            guard let o = item.object, let start = o["start"]?.number, let end = o["end"]?.number else { return nil }
            return Segment(start: start, end: end, text: o["text"]?.string ?? "")
        }
    }
}

extension JSONWriter {
    /// The canonical stored form of transcript segments.
    static func segments(_ segments: [Segment]) -> String {
        var w = JSONWriter()
        w.array(segments) { w, s in
            w.object { o in
                o.number("start", s.start)
                o.number("end", s.end)
                o.string("text", s.text)
            }
        }
        return w.text
    }
}
