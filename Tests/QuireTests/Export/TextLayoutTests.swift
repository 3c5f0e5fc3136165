import CPango
import Foundation
import Testing
@testable import QuireExport

/// A layout is made on the reading thread and drawn on the page thread with cairo alone, so
/// what it keeps of Pango must be whole: glyph runs whose clusters add up (cairo refuses the
/// text otherwise, and the PDF loses its Unicode map), lines struck through, glyphs no font
/// has, and the same runs whichever thread made them.
@Suite struct TextLayoutTests {
    let fonts = FontContext()
    let style = TextStyle(font: BookFonts.serif("en"), size: 10, justify: true)

    /// Every run's clusters cover its bytes and its drawn glyphs exactly.
    static func clustersAddUp(_ layout: TextLayout) -> Bool {
        layout.lines.allSatisfy { line in
            line.runs.allSatisfy { run in
                run.font == nil
                    || (Int(run.clusters.reduce(0) { $0 + $1.num_bytes }) == (run.shownText?.count ?? run.textRange.count)
                        && Int(run.clusters.reduce(0) { $0 + $1.num_glyphs }) == run.glyphs.count)
            }
        }
    }

    @Test(arguments: [
        "Plain English, justified over a few lines so that Pango has to stretch the spaces between its words.",
        "Утром шёл снег, а к обеду выглянуло солнце; мы гуляли по набережной до самого вечера.",
        "今日は朝から雨が降っていた。駅まで歩いて、電車で会社に行った。昼ご飯は同僚と一緒に食べた。",
        "ذهبنا إلى السوق صباحاً واشترينا الخبز والفاكهة، ثم عدنا إلى البيت مع Google Maps.",
        "שלום עולם, היום ביקרתי ב-Google ובשוק.",
        "Emoji 🌅🎉👍🏽 and combining e\u{301}\u{323} marks, ﬁ ligatures, and a tab\there.",
    ])
    func runsKeepClustersThatAddUpInEveryScript(text: String) {
        let layout = TextLayout(StyledText(text, language: TextLanguage(of: text).code), style: style, width: 200, in: fonts)
        #expect(layout.lines.count >= 1)
        #expect(layout.lines.allSatisfy { !$0.runs.isEmpty })
        #expect(Self.clustersAddUp(layout))
        #expect(layout.unknownGlyphs == 0)
        let glyphs = layout.lines.reduce(0) { $0 + $1.runs.reduce(0) { $0 + $1.glyphs.count } }
        #expect(glyphs >= text.count / 2, "\(glyphs) glyphs for \(text.count) characters")
    }

    @Test func rightToLeftRunsAreMarkedBackward() {
        let layout = TextLayout(StyledText("שלום עולם", language: "he"), style: style, width: 300, in: fonts)
        #expect(layout.lines.first?.runs.contains { $0.backward } == true)
        let latin = TextLayout(StyledText("hello world", language: "en"), style: style, width: 300, in: fonts)
        #expect(latin.lines.first?.runs.allSatisfy { !$0.backward } == true)
    }

    /// In a right-to-left date line a Latin tag reads "#family": its mark on its left, in
    /// front of it, not after it ("family#") as an unisolated "#" would fall.
    @Test func aTagKeepsItsMarkInFrontInALineOfEitherDirection() throws {
        for (line, language) in [("\u{200F}الأحد، ٤ مايو  ·  ", "ar"), ("Sunday, May 4  ·  ", "en")] {
            let text = line + EntryTypesetter.tagList(["family", "قراءة"])
            let layout = TextLayout(StyledText(text, language: language), style: style, width: 400, in: fonts)
            let runs = try #require(layout.lines.first?.runs)
            // The x of a byte's glyph: clusters come in glyph order, their bytes from the
            // run's end when it runs backward (as cairo takes them).
            func x(ofByte index: Int) -> Double? {
                for run in runs where run.textRange.contains(index) {
                    var byte = run.backward ? run.textRange.upperBound : run.textRange.lowerBound, glyph = 0
                    for cluster in run.clusters {
                        let count = Int(cluster.num_bytes)
                        let range = run.backward ? (byte - count)..<byte : byte..<(byte + count)
                        if range.contains(index) { return cluster.num_glyphs > 0 && glyph < run.glyphs.count ? run.start + run.glyphs[glyph].x : nil }
                        byte += run.backward ? -count : count
                        glyph += Int(cluster.num_glyphs)
                    }
                }
                return nil
            }
            let latin = try #require(text.utf8.firstRange(of: "#family".utf8))
            let mark = text.utf8.distance(from: text.utf8.startIndex, to: latin.lowerBound)
            let markX = try #require(x(ofByte: mark)), letterX = try #require(x(ofByte: mark + 1))
            #expect(markX < letterX, "\(language): # at \(markX), f at \(letterX)")
            let arabic = try #require(text.utf8.firstRange(of: "#قراءة".utf8))
            let arabicMark = text.utf8.distance(from: text.utf8.startIndex, to: arabic.lowerBound)
            let arabicMarkX = try #require(x(ofByte: arabicMark)), arabicLetterX = try #require(x(ofByte: arabicMark + 1))
            #expect(arabicMarkX > arabicLetterX, "\(language): # at \(arabicMarkX), ق at \(arabicLetterX)")
        }
    }

    @Test func struckTextCarriesItsLineAndLinksTheirColourAndBoxes() {
        var text = StyledText("before ", language: "en")
        text.append("struck through", style: .strike)
        text.append(" and ")
        text.linked(.uri("https://example.org")) { $0.append("a link") }
        let layout = TextLayout(text, style: style, width: 300, in: fonts)
        let runs = layout.lines.flatMap(\.runs)
        let struck = runs.filter { $0.strike != nil }
        #expect(struck.count == 1)
        if let strike = struck.first?.strike {
            #expect(strike.width > 40 && strike.height > 0 && strike.y < 0, "\(strike)")  // above the baseline
        }
        #expect(runs.contains { $0.color != nil }, "the link has its colour")
        let boxes = layout.lines.flatMap(\.linkBoxes)
        #expect(boxes.count == 1 && boxes.first?.link == 0)
        if let box = boxes.first?.box { #expect(box.width > 15 && box.x > 100, "\(box)") }
    }

    @Test func aCharacterNoFontHasIsCountedAndDrawnAsABox() {
        let layout = TextLayout(StyledText("unassigned \u{0378} here", language: "en"), style: style, width: 300, in: fonts)
        #expect(layout.unknownGlyphs == 1)
        let missing = layout.lines.flatMap(\.runs).flatMap(\.missing)
        #expect(missing.count == 1 && (missing.first?.width ?? 0) > 0)
        #expect(Self.clustersAddUp(layout))
    }

    /// A run of text no line can hold is set in pieces of a few hundred bytes (Pango shapes
    /// the rest of an item again at each line it breaks it into), never inside a character;
    /// words are never cut, and the pieces are laid out whole.
    @Test func aRunNoLineHoldsIsSetInPieces() {
        #expect(TextLayout.itemCuts(in: String(repeating: "words in a line ", count: 2_000)).isEmpty)
        #expect(TextLayout.itemCuts(in: "a " + String(repeating: "a", count: TextLayout.longestRun)).isEmpty)
        for unit in ["a", "é", "e\u{301}", "東", "👍🏽", "ب"] {
            let text = "before " + String(repeating: unit, count: 3_000) + " after"
            let cuts = TextLayout.itemCuts(in: text)
            let bytes = unit.utf8.count
            #expect(cuts.count >= 3_000 * bytes / (TextLayout.itemPiece + bytes) - 1, "\(unit): \(cuts.count) cuts")
            #expect(zip(cuts, cuts.dropFirst()).allSatisfy { $1 - $0 >= TextLayout.itemPiece && $1 - $0 < TextLayout.itemPiece + bytes }, "\(unit)")
            #expect(cuts.allSatisfy { ($0 - 7) % bytes == 0 && $0 > 7 && $0 < 7 + 3_000 * bytes }, "\(unit): a cut inside a character")
        }
        let word = String(repeating: "a", count: 20_000)
        let layout = TextLayout(StyledText(word, language: "en"), style: style, width: 200, in: fonts)
        let ranges = layout.lines.flatMap(\.runs).map(\.textRange)
        #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == word.utf8.count)
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound }, "a gap or an overlap between runs")
        #expect(layout.lines.count > 20_000 / 60 && Self.clustersAddUp(layout))
    }

    /// A justified line without a space to widen (a word before one too long for any line)
    /// stays as set: Pango's own justification spread its letters across the measure. The
    /// paragraph's other lines still reach the measure by their spaces.
    @Test func aLineWithoutASpaceIsNotLetterSpaced() throws {
        let hash = String(repeating: "9f86d081884c7d659a2feaa0c55ad015", count: 3)
        let text = "Today I checked the download again, and the checksum was " + hash + " which matched.\nSee " + hash + " for more."
        let layout = TextLayout(StyledText(text, language: "en"), style: style, width: 200, in: fonts)
        /// Where the line's last glyph starts, from the line's start.
        func lastGlyph(_ line: TextLayout.Line) -> Double { line.runs.map { $0.start + ($0.glyphs.last?.x ?? 0) }.max() ?? 0 }
        func line(startingWith words: String) throws -> TextLayout.Line {
            let offset = try #require(text.firstRange(of: words)).lowerBound.utf16Offset(in: text)
            return try #require(layout.lines.first { $0.runs.map(\.textRange.lowerBound).min() == offset })
        }
        let see = try line(startingWith: "See")
        #expect(lastGlyph(see) < 30, "“See” spread to \(lastGlyph(see)) pt")
        #expect(lastGlyph(try line(startingWith: "Today")) > 190, "the first line is not justified")
    }

    /// A letter keeps 30 marks at most (Unicode's stream-safe text; HarfBuzz places them in
    /// time that grows with the square of their number). Scripts that stack marks keep them
    /// all, and control characters go as before.
    @Test func aLetterKeepsThirtyMarksAtMost() {
        let piled = "Z" + String(repeating: "\u{301}", count: 100) + "b" + String(repeating: "\u{323}", count: 30) + "!"
        #expect(StyledText(piled).text == "Z" + String(repeating: "\u{301}", count: 30) + "b" + String(repeating: "\u{323}", count: 30) + "!")
        for text in ["Tiếng Việt có dấu", "हिन्दी में लिखा", "བོད་ཡིག་ ཀྵྭྱྲ", "e\u{301}\u{323}\u{302}", "Zalgo: Z\u{36B}\u{303}\u{36A}\u{358}"] {
            #expect(StyledText(text).text == text)
        }
        #expect(StyledText("a\u{7}b\u{85}c\td\n" + String(repeating: "\u{301}", count: 31)).text == "abc\td\n" + String(repeating: "\u{301}", count: 30))
    }

    /// Two threads laying out at once through one font context get what one thread gets.
    @Test func twoThreadsLayingOutAtOnceGetTheSameRuns() async {
        let texts = ["Утром шёл снег, а к обеду выглянуло солнце.", "今日は朝から雨が降っていた。", "ذهبنا إلى السوق صباحاً", "Plain words, justified."]
        func signature(_ layout: TextLayout) -> [UInt] { layout.lines.flatMap(\.runs).flatMap { $0.glyphs.map(\.index) } }
        let (fonts, style) = (self.fonts, self.style)
        let expected = texts.map { signature(TextLayout(StyledText($0), style: style, width: 150, in: fonts)) }
        let results = await withTaskGroup(of: Bool.self) { group in
            for worker in 0..<2 {
                group.addTask {
                    (0..<100).allSatisfy { round in
                        let index = (round + worker) % texts.count
                        return signature(TextLayout(StyledText(texts[index]), style: style, width: 150, in: fonts)) == expected[index]
                    }
                }
            }
            var all: [Bool] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results == [true, true])
    }
}
