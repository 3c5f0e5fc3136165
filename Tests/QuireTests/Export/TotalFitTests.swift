import CPango
import Foundation
import Testing
@testable import QuireExport

/// A justified paragraph's breaks are chosen for the whole paragraph (Knuth–Plass): a loose
/// line is avoided by setting the lines before it differently, spaces shrink a little where
/// that saves a loose line, and every line but the last ends exactly at the measure.
@Suite struct TotalFitTests {
    /// Words of the given widths, one space (4 pt) between them: the breaks after each.
    static func paragraph(_ words: [Double], space: Double = 4) -> [TotalFit.Break] {
        var breaks: [TotalFit.Break] = [], x = 0.0
        for (index, word) in words.enumerated() {
            x += word
            breaks.append(TotalFit.Break(lineEnd: x, nextStart: x + space, spacesToEnd: index, spacesToNext: index + 1))
            x += space
        }
        return breaks
    }

    /// Each line's stretch ratio (negative: shrunk), the last line left out.
    static func ratios(_ chosen: [Int], _ breaks: [TotalFit.Break], width: Double, space: Double = 4) -> [Double] {
        var start = 0.0, spaces = 0, out: [Double] = []
        for index in chosen.dropLast() {
            let natural = breaks[index].lineEnd - start, count = breaks[index].spacesToEnd - spaces
            out.append(natural > width ? (width - natural) / (Double(count) * space * 0.25) : (width - natural) / (Double(count) * space * 0.5))
            (start, spaces) = (breaks[index].nextStart, breaks[index].spacesToNext)
        }
        return out
    }

    /// First fit: each line takes every word that fits.
    static func firstFit(_ breaks: [TotalFit.Break], width: Double) -> [Int] {
        var chosen: [Int] = [], start = 0.0, next = 0
        while next < breaks.count {
            var last = next
            while last + 1 < breaks.count, breaks[last + 1].lineEnd - start <= width { last += 1 }
            chosen.append(last)
            start = breaks[last].nextStart
            next = last + 1
        }
        return chosen
    }

    @Test func theWholeParagraphIsSetMoreEvenlyThanLineByLine() throws {
        // First fit leaves its second line very loose (5.5 times a space's stretch); set as a
        // whole, the first line takes a word more, shrunk, and no line is as loose.
        let breaks = Self.paragraph([25, 20, 30, 15, 15, 40, 35, 30, 20, 25, 15, 20])
        let width = 100.0
        let greedy = Self.firstFit(breaks, width: width)
        let total = try #require(TotalFit.breaks(breaks, width: width, indent: 0, spaceWidth: 4, settings: TextLayout.totalFit))
        #expect(total.last == breaks.count - 1)
        let before = try #require(Self.ratios(greedy, breaks, width: width).max())
        let ratios = Self.ratios(total, breaks, width: width)
        let after = try #require(ratios.max())
        #expect(before == 5.5)
        #expect(after < before - 1, "total fit \(ratios) against first fit's worst \(before)")
        // Every line fits with its spaces shrunk at most by a quarter.
        #expect(ratios.allSatisfy { $0 >= -1 }, "\(ratios)")
    }

    @Test func aLineMayBeTightRatherThanLoose() throws {
        // Six 30 pt words and five 4 pt spaces make 200 pt; 196 pt wide, that line needs its
        // spaces 0.8 pt narrower (within a quarter of 4 pt) rather than a word on a line alone.
        let breaks = Self.paragraph([30, 30, 30, 30, 30, 30, 30])
        let total = try #require(TotalFit.breaks(breaks, width: 196, indent: 0, spaceWidth: 4, settings: TextLayout.totalFit))
        #expect(total == [5, 6])
        #expect(Self.ratios(total, breaks, width: 196).first.map { $0 < 0 && $0 >= -1 } == true)
    }

    @Test func aWordWiderThanTheLineLeavesTheBreakingToPango() {
        let breaks = Self.paragraph([30, 250, 30])
        #expect(TotalFit.breaks(breaks, width: 200, indent: 0, spaceWidth: 4, settings: TextLayout.totalFit) == nil)
    }

    /// Through Pango: an English paragraph, hyphenated as a book's is, comes out with every
    /// line but the last ending at the measure (its last glyph's advance included) and every
    /// byte of the text in a run.
    @Test func pangoSetsTheChosenLinesFlushToTheMeasure() throws {
        let fonts = FontContext()
        let style = TextStyle(font: BookFonts.serif("en"), size: 10, justify: true, indent: 10, language: "en")
        let words = """
            The gulls came back to the harbour before the weather turned, circling the fishing boats and \
            complaining about everything, while the ferry, delayed again by the wind, waited at the \
            breakwater with its engines idling and its passengers huddled in the lee of the wheelhouse, \
            watching the lighthouse keeper's daughter row out against the incoming tide with a basket \
            of bread for the crew of the dredger that had been anchored there since midsummer.
            """
        let text = Hyphenator(language: "en")?.hyphenate(words) ?? words
        let width = 260.0
        let layout = TextLayout(StyledText(text, language: "en"), style: style, width: width, in: fonts)
        try #require(layout.lines.count >= 4)
        #expect(TextLayoutTests.clustersAddUp(layout))
        let covered = layout.lines.reduce(0) { $0 + $1.runs.reduce(0) { $0 + $1.textRange.count } }
        #expect(covered == text.utf8.count)
        for (index, line) in layout.lines.dropLast().enumerated() {
            let run = try #require(line.runs.last { !$0.glyphs.isEmpty })
            var glyph = try #require(run.glyphs.last)
            var extents = cairo_text_extents_t()
            cairo_scaled_font_glyph_extents(run.font, &glyph, 1, &extents)
            let right = line.x + run.start + glyph.x + extents.x_advance
            #expect(abs(right - width) < 0.05, "line \(index + 1) ends at \(right), not \(width)")
        }
    }

    /// Each line's stretch per space in points (negative: shrunk), the last line left out,
    /// for breaks measured with `spaceWidth`-wide spaces.
    static func stretches(_ chosen: [Int], _ breaks: [TotalFit.Break], width: Double, indent: Double) -> [Double] {
        var start = -indent, spaces = 0, out: [Double] = []
        for index in chosen.dropLast() {
            let count = breaks[index].spacesToEnd - spaces
            if count > 0 { out.append((width - (breaks[index].lineEnd - start)) / Double(count)) }
            (start, spaces) = (breaks[index].nextStart, breaks[index].spacesToNext)
        }
        return out
    }

    /// 200 paragraphs of English and Russian, hyphenated and measured by Pango as the book's
    /// are, set line by line and as wholes: the whole-paragraph setting has the smaller
    /// largest stretch, fewer loose lines, and its mean stretch no larger.
    @Test func aBookOfLatinAndCyrillicParagraphsIsSetMoreEvenly() throws {
        let english = Hyphenator(language: "en"), russian = Hyphenator(language: "ru")
        try #require(english != nil && russian != nil, "hyphen-en-us and hyphen-ru are installed by scripts/test")
        let fonts = FontContext()
        let latin = Array("""
            the harbour gulls returned before weather turned circling fishing boats complaining \
            everything while ferry delayed again wind waited breakwater engines idling passengers \
            huddled wheelhouse watching lighthouse keeper daughter rowing against incoming tide basket \
            bread crew dredger anchored since midsummer afternoon conversation remembered unexpectedly
            """.split(separator: " "))
        let cyrillic = Array("""
            утром снег обеду выглянуло солнце гуляли набережной вечера разговаривали воспоминания \
            неожиданно библиотека путешествие электричка остановка бабушка приготовила пирожки \
            отправились заповедник наблюдали перелётных птиц возвращались сумерках разговорчивые соседи
            """.split(separator: " "))
        var seed: UInt64 = 42
        func next(_ bound: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(bound))
        }
        let (width, indent) = (322.5, 9.5)
        var before: [Double] = [], after: [Double] = [], space = 0.0
        for paragraph in 0..<200 {
            let words = paragraph % 2 == 0 ? latin : cyrillic
            let raw = (0..<(40 + next(60))).map { _ in String(words[next(words.count)]) }.joined(separator: " ")
            let hyphens = paragraph % 2 == 0 ? english : russian
            let text = hyphens?.hyphenate(raw) ?? raw
            let style = TextStyle(font: BookFonts.serif("en"), size: 9.5, justify: true, indent: indent, language: paragraph % 2 == 0 ? "en" : "ru")
            let measured = try #require(TextLayout.measuredForTotalFit(StyledText(text, language: style.language), style: style, in: fonts))
            space = measured.spaceWidth
            let total = try #require(TotalFit.breaks(measured.breaks, width: width, indent: indent, spaceWidth: space, settings: TextLayout.totalFit))
            var first: [Int] = [], start = -indent, at = 0
            while at < measured.breaks.count {
                var last = at
                while last + 1 < measured.breaks.count, measured.breaks[last + 1].lineEnd - start <= width { last += 1 }
                first.append(last)
                start = measured.breaks[last].nextStart
                at = last + 1
            }
            before += Self.stretches(first, measured.breaks, width: width, indent: indent)
            after += Self.stretches(total, measured.breaks, width: width, indent: indent)
        }
        let loose = { (lines: [Double]) in lines.filter { $0 > space * 0.5 }.count }
        let mean = { (lines: [Double]) in lines.reduce(0, +) / Double(max(lines.count, 1)) }
        let (largestBefore, largestAfter) = (try #require(before.max()), try #require(after.max()))
        print("total fit, 200 paragraphs: stretch per space largest \(largestBefore) → \(largestAfter) pt, mean \(mean(before)) → \(mean(after)) pt, "
              + "lines looser than half a space (\(space / 2) pt) \(loose(before)) → \(loose(after)) of \(before.count) → \(after.count)")
        #expect(largestAfter < largestBefore)
        #expect(loose(after) < loose(before))
        #expect(mean(after) <= mean(before) + 0.01)
        #expect(after.allSatisfy { $0 >= -space * 0.25 - 0.001 }, "no space shrinks by more than a quarter")
    }
}
