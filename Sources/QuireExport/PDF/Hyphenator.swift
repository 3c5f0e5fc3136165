import CHyphen
import Foundation

/// Hyphenation points from libhyphen with Debian's `hyphen-*` dictionaries
/// (`/usr/share/hyphen/hyph_<lang>_<REGION>.dic`), given to Pango as soft hyphens (U+00AD),
/// which it breaks at and draws as a hyphen only there. Pango has no hyphenation of its own.
/// A language without a dictionary here is simply not hyphenated (Pango still breaks a
/// word too long for its line between characters, so nothing runs off the page).
/// The only file that talks to libhyphen.
final class Hyphenator {
    private let dictionary: UnsafeMutablePointer<HyphenDict>
    /// The dictionary's encoding (its first line): "UTF-8", or a single-byte one such as KOI8-R.
    private let encoding: String
    let language: String

    static let folders = ["/usr/share/hyphen"]
    /// Shorter words are never broken.
    static let shortest = 6
    /// Longer ones are no words of a language (a pasted hash, a word of one letter repeated):
    /// Pango breaks them between any two characters, and a soft hyphen inside such a word
    /// makes it draw a hyphen past the line's end.
    static let longest = 60

    /// The dictionary for the BCP 47 `language` ("en", "ru", "es-MX"), or nil if none is installed.
    init?(language: String) {
        guard let path = Self.dictionaryPath(for: language),
              let first = (try? String(contentsOfFile: path, encoding: .isoLatin1))?.prefix(40).split(separator: "\n").first,
              let dictionary = hnj_hyphen_load(path)
        else { return nil }
        self.dictionary = dictionary
        self.encoding = first.trimmingCharacters(in: .whitespacesAndNewlines)
        self.language = language
    }

    deinit { hnj_hyphen_free(dictionary) }

    /// `hyph_es_MX.dic` for es-MX, else `hyph_es.dic`, `hyph_es_ES.dic`, or the first `hyph_es_*.dic`.
    static func dictionaryPath(for language: String) -> String? {
        let parts = language.replacingOccurrences(of: "-", with: "_").split(separator: "_").map(String.init)
        guard let base = parts.first?.lowercased(), base.allSatisfy(\.isLetter) else { return nil }
        for folder in folders {
            var candidates: [String] = []
            if parts.count > 1, let region = parts.last { candidates.append("hyph_\(base)_\(region.uppercased()).dic") }
            candidates += ["hyph_\(base).dic", "hyph_\(base)_\(base.uppercased()).dic"]
            for name in candidates where FileManager.default.isReadableFile(atPath: folder + "/" + name) { return folder + "/" + name }
            let others = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix("hyph_\(base)_") && $0.hasSuffix(".dic") }.sorted()
            if let name = others.first { return folder + "/" + name }
        }
        return nil
    }

    /// `text` with a soft hyphen at each point a word of letters may be broken.
    ///
    /// Scalars are appended one by one: `UnicodeScalarView.append(contentsOf:)` builds a new
    /// string of all the text so far at each call, which made a paragraph of 400 KB (an
    /// imported entry whose lines are one paragraph) take 6 s, copying 16 GB.
    func hyphenate(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var word: [Unicode.Scalar] = []
        func flush() {
            let points = word.count >= Self.shortest && word.count <= Self.longest ? points(in: word) : nil
            for (index, scalar) in word.enumerated() {
                result.append(scalar)
                if points?.contains(index) == true { result.append("\u{AD}") }
            }
            word.removeAll(keepingCapacity: true)
        }
        for scalar in text.unicodeScalars {
            let v = scalar.value
            let isLetter = v < 0x80 ? (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v) : scalar.properties.isAlphabetic
            if isLetter { word.append(scalar) } else { flush(); result.append(scalar) }
        }
        flush()
        return String(result)
    }

    /// The indexes of the letters after which `word` may be broken.
    private func points(in word: [Unicode.Scalar]) -> Set<Int>? {
        let lower = word.map { scalar -> Unicode.Scalar in
            let mapped = scalar.properties.lowercaseMapping.unicodeScalars
            return mapped.count == 1 ? mapped.first ?? scalar : scalar
        }
        // The bytes in the dictionary's encoding, and which letter each byte belongs to.
        var bytes: [CChar] = []
        var letterOf: [Int] = []
        if encoding.uppercased() == "UTF-8" {
            for (index, scalar) in lower.enumerated() {
                for byte in String(scalar).utf8 { bytes.append(CChar(bitPattern: byte)); letterOf.append(index) }
            }
        } else {
            guard let encoded = Self.convert(String(String.UnicodeScalarView(lower)), to: encoding), encoded.count == lower.count else { return nil }
            bytes = encoded
            letterOf = Array(0..<lower.count)
        }
        var hyphens = [CChar](repeating: 0, count: bytes.count + 5)
        var rep: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        var pos: UnsafeMutablePointer<Int32>?
        var cut: UnsafeMutablePointer<Int32>?
        // The word must end in a NUL although its length is given: libhyphen looks for a
        // dictionary's NOHYPHEN strings with strstr and clears the hyphen where one is found,
        // so an unterminated word lets it read, and write, past both buffers.
        let word = bytes + [0]
        let failed = hnj_hyphen_hyphenate3(dictionary, word, Int32(bytes.count), &hyphens, nil, &rep, &pos, &cut, 2, 3, 2, 2)
        if let rep {
            for index in 0..<bytes.count { free(rep[index]) }
            free(rep)
        }
        free(pos)
        free(cut)
        guard failed == 0 else { return nil }
        var points = Set<Int>()
        for index in 0..<bytes.count where hyphens[index] & 1 == 1 {
            // Only at the last byte of a letter, and never after the last letter.
            let letter = letterOf[index]
            if (index + 1 == bytes.count || letterOf[index + 1] != letter), letter < word.count - 1 { points.insert(letter) }
        }
        return points
    }

    /// `text` in a single-byte encoding such as KOI8-R, by iconv; nil where it has no such letters.
    private static func convert(_ text: String, to encoding: String) -> [CChar]? {
        let converter = iconv_open(encoding, "UTF-8")
        guard let converter, converter != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(converter) }
        var input = Array(text.utf8CString.dropLast())
        var output = [CChar](repeating: 0, count: input.count * 4 + 4)
        let outCount = output.count
        var inLeft = input.count, outLeft = outCount
        let ok: Bool = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer = inBuffer.baseAddress
                var outPointer = outBuffer.baseAddress
                return iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft) != -1
            }
        }
        return ok ? Array(output[0..<(outCount - outLeft)]) : nil
    }
}
