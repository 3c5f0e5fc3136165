/// The words of Markdown as a person reads them, for one-line uses (a title made from an
/// untitled entry's first line, a search snippet): an image or attachment reference goes,
/// a link leaves its words, a leading heading or list mark and emphasis marks go. Not a
/// renderer (books use cmark-gfm): a cheap, total pass over the text.
package enum PlainText {
    package static func of(_ markdown: String) -> String {
        var markdown = markdown
        return markdown.withUTF8 { String(decoding: of(utf8: $0), as: UTF8.self) }
    }

    /// The same pass over UTF-8 bytes (search indexes every entry's text with it, so it is
    /// the restore's hot loop): every mark it looks for is ASCII, and no byte of a multi-byte
    /// UTF-8 sequence is, so it never splits a character.
    package static func of(utf8 text: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        append(text[...], to: &out)
        return out
    }

    private static func append(_ text: Slice<UnsafeBufferPointer<UInt8>>, to out: inout [UInt8]) {
        var closes = NextByte(UInt8(ascii: "]")), parens = NextByte(UInt8(ascii: ")"))
        var i = text.startIndex
        while i < text.endIndex {
            // Bytes that mark nothing go over as one run (most of a text is such bytes).
            var run = i
            while run < text.endIndex, !isMark(text[run]) { run += 1 }
            if run > i {
                out.append(contentsOf: text[i..<run])
                i = run
                continue
            }
            let c = text[i]
            if c == UInt8(ascii: "!"), i + 1 < text.endIndex, text[i + 1] == UInt8(ascii: "["),
               let (_, after) = link(in: text, at: i + 1, &closes, &parens) {
                i = after  // an image: nothing of it is words of the text
                continue
            }
            if c == UInt8(ascii: "["), let (words, after) = link(in: text, at: i, &closes, &parens) {
                append(text[words], to: &out)
                i = after
                continue
            }
            if c == UInt8(ascii: "*") || c == UInt8(ascii: "_") || c == UInt8(ascii: "`") || c == UInt8(ascii: "~") {
                // Emphasis, code and strikethrough marks; a lone `_` inside a word stays.
                let inWord = c == UInt8(ascii: "_") && isWord(lastScalar(of: out[...])) && isWord(firstScalar(of: text[(i + 1)...]))
                if !inWord {
                    i += 1
                    continue
                }
            }
            out.append(c)
            i += 1
        }
    }

    /// The bytes `append` looks at: where an image, a link or an emphasis may begin.
    @inline(__always)
    private static func isMark(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "!"), UInt8(ascii: "["), UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "~"): return true
        default: return false
        }
    }

    /// `[words](target)` starting at `start` (a `[`): the range of its words and the index
    /// just past it.
    private static func link(in text: Slice<UnsafeBufferPointer<UInt8>>, at start: Int,
                             _ closes: inout NextByte, _ parens: inout NextByte) -> (Range<Int>, Int)? {
        guard let close = closes.next(in: text, from: start) else { return nil }
        let target = close + 1
        guard target < text.endIndex, text[target] == UInt8(ascii: "("),
              let end = parens.next(in: text, from: target) else { return nil }
        return ((start + 1)..<close, end + 1)
    }

    /// Where a byte next occurs, remembered: the pass asks from one place after another, and
    /// a text of 100,000 `[` with its `]` at the end must not be read to its end for each
    /// (that took minutes, on every device the entry reached).
    private struct NextByte {
        let byte: UInt8
        private var from = Int.max, found: Int?

        init(_ byte: UInt8) { self.byte = byte }

        /// The first index at or after `start` holding the byte.
        mutating func next(in text: Slice<UnsafeBufferPointer<UInt8>>, from start: Int) -> Int? {
            // The last answer holds for any start between where it was asked and what it found.
            if start >= from, found.map({ start <= $0 }) ?? true { return found }
            from = start
            found = text[start...].firstIndex(of: byte)
            return found
        }
    }

    /// A letter or a digit, as `Character.isLetter`/`isNumber` judge one.
    private static func isWord(_ scalar: Unicode.Scalar?) -> Bool {
        guard let properties = scalar?.properties else { return false }
        return properties.isAlphabetic || properties.numericType != nil
    }

    private static func firstScalar<C: Collection<UInt8>>(of bytes: C) -> Unicode.Scalar? {
        var iterator = bytes.makeIterator()
        var decoder = Unicode.UTF8()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) { return scalar }
        return nil
    }

    /// The last character's first scalar: combining marks after a letter still make a letter.
    /// Looks back over 32 marks at most: a letter under thousands of them, each `_` after
    /// it asking again, was a pass that never ended.
    private static func lastScalar(of bytes: ArraySlice<UInt8>) -> Unicode.Scalar? {
        var end = bytes.endIndex
        var marks = 0
        while end > bytes.startIndex, marks <= 32 {
            marks += 1
            var start = end - 1
            while start > bytes.startIndex && end - start < 4 && bytes[start] & 0xC0 == 0x80 { start -= 1 }
            guard let scalar = firstScalar(of: bytes[start..<end]) else { return nil }
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: end = start
            default: return scalar
            }
        }
        return nil
    }

    /// One line's words: leading `#`, `>`, `-`, `*` or `1.` marks dropped too.
    package static func line(_ markdown: Substring) -> String {
        var line = markdown.drop { $0 == " " || $0 == "\t" }
        while let first = line.first, first == "#" || first == ">" { line = line.dropFirst().drop { $0 == " " || $0 == "#" || $0 == ">" } }
        if line.hasPrefix("- ") || line.hasPrefix("+ ") || line.hasPrefix("* ") { line = line.dropFirst(2) }
        if line.hasPrefix("- [ ] ") || line.hasPrefix("- [x] ") { line = line.dropFirst(6) }
        return of(String(line)).trimmingCharacters(in: .whitespaces)
    }

}
