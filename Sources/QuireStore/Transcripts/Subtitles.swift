import Foundation

/// Reads timed transcript segments from SubRip (`.srt`) and WebVTT (`.vtt`) text.
/// A malformed cue is an error naming its line.
package enum Subtitles {
    package enum Format: String, Sendable { case srt, vtt }

    /// Parses `text`; `path` only names the file in errors.
    /// - Throws: `.malformed` with the 1-based line of the first problem.
    package static func parse(_ text: String, format: Format, path: String? = nil) throws -> [Segment] {
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        if let first = lines.first, first.hasPrefix("\u{FEFF}") { lines[0] = String(first.dropFirst()) }
        func fail(_ line: Int, _ reason: String) -> StoreError {
            StoreError(.malformed, path: path, line: line, detail: reason)
        }
        var i = 0
        if format == .vtt {
            guard let first = lines.first, first == "WEBVTT" || first.hasPrefix("WEBVTT ") || first.hasPrefix("WEBVTT\t") else {
                throw fail(1, "a WebVTT file must start with WEBVTT")
            }
            i = 1
            while i < lines.count && !lines[i].trimmingCharacters(in: .whitespaces).isEmpty { i += 1 }  // header lines
        }
        var segments: [Segment] = []
        while i < lines.count {
            if lines[i].trimmingCharacters(in: .whitespaces).isEmpty { i += 1; continue }
            let blockStart = i
            var block: [String] = []
            while i < lines.count && !lines[i].trimmingCharacters(in: .whitespaces).isEmpty {
                block.append(lines[i])
                i += 1
            }
            if format == .vtt, let head = block.first,
               head == "NOTE" || head.hasPrefix("NOTE ") || head.hasPrefix("NOTE\t") || head == "STYLE" || head == "REGION" {
                continue
            }
            // The timing line is the first (or, after a cue identifier / SRT index, the second).
            guard let timingOffset = block.prefix(2).firstIndex(where: { $0.contains("-->") }) else {
                throw fail(blockStart + 1, "expected a timing line like 00:00:01,000 --> 00:00:02,000")
            }
            if format == .srt && timingOffset == 1 {
                guard Int(block[0].trimmingCharacters(in: .whitespaces)) != nil else {
                    throw fail(blockStart + 1, "expected a cue number")
                }
            }
            let timingLine = blockStart + timingOffset + 1
            let parts = block[timingOffset].components(separatedBy: "-->")
            guard parts.count == 2 else { throw fail(timingLine, "expected one '-->' in the timing line") }
            let endField = parts[1].trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? ""
            guard let start = parseTime(parts[0].trimmingCharacters(in: .whitespaces), format: format) else {
                throw fail(timingLine, "bad start time")
            }
            guard let end = parseTime(endField, format: format) else { throw fail(timingLine, "bad end time") }
            guard end >= start else { throw fail(timingLine, "cue ends before it starts") }
            var cue = block[(timingOffset + 1)...].map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            if format == .vtt { cue = stripTags(cue) }
            segments.append(Segment(start: start, end: end, text: cue))
        }
        return segments
    }

    /// `segments` as SubRip text (`1`, `00:00:01,000 --> 00:00:02,500`, the words, a blank
    /// line), which `parse` reads back to the same segments, to the millisecond.
    package static func srt(_ segments: [Segment]) -> String {
        func time(_ seconds: Double) -> String {
            let millis = Int((max(0, seconds) * 1000).rounded())
            return String(format: "%02d:%02d:%02d,%03d", millis / 3_600_000, millis / 60_000 % 60, millis / 1000 % 60, millis % 1000)
        }
        return segments.enumerated().map { index, segment in
            "\(index + 1)\n\(time(segment.start)) --> \(time(segment.end))\n\(segment.text.split(whereSeparator: \.isNewline).joined(separator: " "))\n"
        }.joined(separator: "\n")
    }

    /// `HH:MM:SS,mmm` (SRT) or `[HH:]MM:SS.mmm` (VTT), in seconds.
    static func parseTime(_ text: String, format: Format) -> Double? {
        let separator: Character = format == .srt ? "," : "."
        let pieces = text.split(separator: separator, omittingEmptySubsequences: false)
        guard pieces.count == 2, pieces[1].count == 3, let millis = Int(pieces[1]), pieces[1].allSatisfy(\.isASCII) else { return nil }
        let clock = pieces[0].split(separator: ":", omittingEmptySubsequences: false)
        let numbers = clock.map { Int($0) }
        guard clock.allSatisfy({ $0.count >= 2 && $0.allSatisfy(\.isASCII) }) else { return nil }
        let values = numbers.compactMap { $0 }
        guard values.count == numbers.count, values.allSatisfy({ $0 >= 0 }) else { return nil }
        let h: Int, m: Int, s: Int
        switch (format, values.count) {
        case (.srt, 3), (.vtt, 3): (h, m, s) = (values[0], values[1], values[2])
        case (.vtt, 2): (h, m, s) = (0, values[0], values[1])
        default: return nil
        }
        // An hour field of 3e18 would overflow `h * 3600`: anything past Media.maxSeconds is refused.
        guard m < 60, s < 60, h <= Int(Media.maxSeconds) / 3600 else { return nil }
        return Double(h * 3600 + m * 60 + s) + Double(millis) / 1000
    }

    /// Removes WebVTT markup (`<v Anna>`, `<i>`, timestamps) and decodes its entities.
    static func stripTags(_ text: String) -> String {
        var out = ""
        var inTag = false
        for c in text {
            if c == "<" { inTag = true; continue }
            if c == ">" && inTag { inTag = false; continue }
            if !inTag { out.append(c) }
        }
        return out.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&nbsp;", with: "\u{00A0}").replacingOccurrences(of: "&amp;", with: "&")
    }
}
