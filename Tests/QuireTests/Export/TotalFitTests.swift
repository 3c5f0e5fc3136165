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
}
