import CLinux
import Glibc

/// Finding text in text byte for byte, as `memmem` does. With Foundation imported, a
/// `String`'s `contains(_:)` and `range(of:)` are Foundation's: they compare character by
/// character through CFString, folding as a locale would, which took a quarter of importing
/// a folder of 10,000 notes and a sixth of a Day One export. The importers look for
/// Markdown's and their formats' punctuation (`[[`, `![`, `.md)`, a closing marker), for
/// which the bytes are the answer: a match of valid UTF-8 in valid UTF-8 starts and ends on
/// a character's bytes, so its bounds are indices of the text.
extension StringProtocol {
    /// Whether `needle` stands in the text (an empty one always does).
    package func containsBytes(_ needle: String) -> Bool {
        firstRange(ofBytes: needle) != nil
    }

    /// Where `needle` first stands in the text, nil if nowhere (an empty one: at the start).
    package func firstRange(ofBytes needle: String) -> Range<Index>? {
        offsets(of: needle, last: false).map(range(ofOffsets:))
    }

    /// Where `needle` last stands in the text, nil if nowhere (an empty one: at the end).
    package func lastRange(ofBytes needle: String) -> Range<Index>? {
        offsets(of: needle, last: true).map(range(ofOffsets:))
    }

    private func range(ofOffsets offsets: Range<Int>) -> Range<Index> {
        let start = utf8.index(startIndex, offsetBy: offsets.lowerBound)
        return start..<utf8.index(start, offsetBy: offsets.count)
    }

    /// The byte offsets of the first (or last) match.
    private func offsets(of needle: String, last: Bool) -> Range<Int>? {
        var needle = needle
        return needle.withUTF8 { pattern in
            let search = { (text: UnsafeBufferPointer<UInt8>) -> Range<Int>? in
                Self.find(pattern, in: text, last: last)
            }
            if let found = utf8.withContiguousStorageIfAvailable(search) { return found }
            return Array(utf8).withUnsafeBufferPointer(search)
        }
    }

    private static func find(_ pattern: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>, last: Bool) -> Range<Int>? {
        guard let needle = pattern.baseAddress, !pattern.isEmpty else { return last ? text.count..<text.count : 0..<0 }
        guard let base = text.baseAddress, text.count >= pattern.count else { return nil }
        if !last {
            guard let hit = memmem(base, text.count, needle, pattern.count) else { return nil }
            let at = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
            return at..<(at + pattern.count)
        }
        var at = text.count - pattern.count
        while at >= 0 {
            if text[at] == pattern[0], memcmp(base + at, needle, pattern.count) == 0 { return at..<(at + pattern.count) }
            at -= 1
        }
        return nil
    }
}

/// Where `needle` first stands in what is left of one text, asked again and again as a
/// scan moves on (each `rest` a suffix of the same text, never moving back): the text is
/// searched again only once the scan has passed the place found. Looking for a closer at
/// each opener (`]]` at each `[[`) is then one pass over the text, however many openers
/// have none: 100,000 `[[` without a `]]` took an export 12 s, searching to the end each time.
package struct NextBytes {
    private let needle: String
    private var searchedFrom: String.Index?
    private var found: Range<String.Index>?

    package init(_ needle: String) { self.needle = needle }

    package mutating func first(in rest: Substring) -> Range<String.Index>? {
        if let from = searchedFrom, from <= rest.startIndex {
            guard let found else { return nil }  // none after `from`, so none after the scan
            if found.lowerBound >= rest.startIndex { return found }
        }
        searchedFrom = rest.startIndex
        found = rest.firstRange(ofBytes: needle)
        return found
    }
}

extension UTF8 {
    /// The byte order mark Windows tools (Notepad, PowerShell's `Out-File -Encoding utf8`)
    /// write first in a UTF-8 file: no part of its text.
    package static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
}
