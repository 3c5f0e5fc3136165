import Foundation
import Testing
@testable import QuireSupport

/// Text found in text byte for byte: the ranges are the text's own indices, in any script,
/// in a `Substring` as in a `String`.
@Suite struct UTF8SearchTests {
    @Test func theFirstAndLastMatchAreFoundInAnyScript() throws {
        let text = "東京 ![a](x) и ![б](y)\n"
        let first = try #require(text.firstRange(ofBytes: "!["))
        let last = try #require(text.lastRange(ofBytes: "!["))
        #expect(text[..<first.lowerBound] == "東京 " && text[first] == "![")
        #expect(text[..<last.lowerBound] == "東京 ![a](x) и " && text[last.upperBound...] == "б](y)\n")
        #expect(text.containsBytes("и ![б]") && !text.containsBytes("![c"))
        #expect(text.firstRange(ofBytes: "東京") == text.startIndex..<text.index(text.startIndex, offsetBy: 2))
        #expect(text.lastRange(ofBytes: "\n") == text.index(before: text.endIndex)..<text.endIndex)
    }

    @Test func aSubstringsRangesAreItsOwnAndItLooksNoFurther() throws {
        let whole = "[[one]] [[two]] [[three]]"
        let middle = whole[whole.index(whole.startIndex, offsetBy: 8)..<whole.index(whole.startIndex, offsetBy: 15)]
        #expect(middle == "[[two]]")
        let close = try #require(middle.firstRange(ofBytes: "]]"))
        #expect(whole[close] == "]]" && whole[..<close.lowerBound] == "[[one]] [[two")
        #expect(middle.lastRange(ofBytes: "[[") == middle.startIndex..<whole.index(middle.startIndex, offsetBy: 2))
        #expect(!middle.containsBytes("one") && !middle.containsBytes("three") && !middle.containsBytes("]] [["))
    }

    @Test func edgesAndMisses() {
        #expect("".firstRange(ofBytes: "a") == nil && "".lastRange(ofBytes: "a") == nil)
        #expect("ab".firstRange(ofBytes: "abc") == nil && !"ab".containsBytes("abc"))
        #expect("abc".firstRange(ofBytes: "")?.isEmpty == true && "abc".containsBytes(""))
        #expect("aaa".firstRange(ofBytes: "aa") == "aaa".startIndex..<"aaa".index("aaa".startIndex, offsetBy: 2))
        #expect("aaa".lastRange(ofBytes: "aa") == "aaa".index(after: "aaa".startIndex)..<"aaa".endIndex)
        // Bytes, not characters: é as one scalar is not e and a combining accent.
        #expect(!"caf\u{E9}".containsBytes("e\u{301}") && "cafe\u{301}".containsBytes("e"))
    }
}

/// A closer looked for at each opener as a scan moves on finds what a search of the rest
/// would find, searching the text again only once the scan has passed it.
@Suite struct NextBytesTests {
    @Test(arguments: ["]]", "]", "\n", "é]"])
    func itFindsWhatASearchOfTheRestFinds(needle: String) {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(seed >> 33) % bound
        }
        let pieces = ["[[", "]]", "]", "a", "é", "\n", " ", "東"]
        for _ in 0..<200 {
            let text = (0..<next(40)).map { _ in pieces[next(pieces.count)] }.joined()
            var finder = NextBytes(needle)
            var at = text.startIndex
            while true {
                let rest = text[at...]
                #expect(finder.first(in: rest) == rest.firstRange(ofBytes: needle), "\(text) from \(text.distance(from: text.startIndex, to: at))")
                guard at < text.endIndex else { break }
                // Mostly forward, sometimes back to the start (searched again, still right).
                at = next(10) == 0 ? text.startIndex : text.index(at, offsetBy: min(1 + next(3), text.distance(from: at, to: text.endIndex)))
                if at == text.startIndex, next(2) == 0 { break }
            }
        }
    }
}

/// White space trimmed as Foundation trims it, without Foundation.
@Suite struct WhiteSpaceTests {
    @Test(arguments: ["", " ", "\n\t\r\n", "word", "  two words \n", "\u{3000}全角\u{3000}", "\u{85}nel\u{2028}", "\u{A0}nbsp\u{202F}",
                      "e\u{301} ", " \u{301}x", "\r\n\r\nПривет\r\n\r\n", "\u{200B}zero width\u{200B}", "tab\tinside\t", "🇯🇵 \u{2029}"])
    func itTrimsWhatFoundationTrims(_ text: String) {
        #expect(text.trimmingWhiteSpace() == text.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(text[...].trimmingWhiteSpace() == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
