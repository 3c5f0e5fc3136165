import Foundation
import Testing
@testable import QuireExport

/// The compositor's rules on their own, measured without a PDF (`PageFlow` with no canvas):
/// no orphan at a page's foot, no widow at its head, short paragraphs whole, a heading kept
/// with what follows, a photo shrunk to fit or moved, and a line too tall for any page set
/// anyway. Each test puts the cursor where exactly N lines fit, from the lines' own heights.
@Suite struct PageFlowTests {
    let fonts = FontContext()
    let geometry = PageGeometry(.a5)
    var style: TextStyle { TextStyle(font: "Noto Serif", size: geometry.bodySize) }

    /// `count` lines, each its own (a line separator between), laid out at the page's width.
    func lines(_ count: Int, style: TextStyle? = nil) -> PageFlow.Laid? {
        let text = (1...count).map { "Line \($0) of the paragraph." }.joined(separator: "\u{2028}")
        return PageFlow.lay(StyledText(text), style: style ?? self.style, in: TextBlock(geometry: geometry, fonts: fonts))
    }

    /// A flow on its first page with room for exactly `fit` lines of `laid` (and a little).
    func flow(leavingRoomFor fit: Int, of laid: PageFlow.Laid) -> PageFlow {
        let flow = PageFlow(geometry: geometry, fonts: fonts, canvas: nil)
        flow.newPage()
        let lines = laid.layout.lines
        let needed = fit == 0 ? (lines[0].bottom - lines[0].top) * 0.5 : lines[fit - 1].bottom - lines[0].top
        flow.move(toAtLeast: flow.bottom - needed - 0.5)
        return flow
    }

    func height(_ laid: PageFlow.Laid, lines range: Range<Int>) -> Double {
        let lines = laid.layout.lines
        return lines[range.upperBound - 1].bottom - lines[range.lowerBound].top
    }

    @Test func aParagraphThatFitsStaysOnItsPage() throws {
        let laid = try #require(lines(6))
        #expect(laid.layout.lines.count == 6, "one line per separator, as the other tests assume")
        let flow = flow(leavingRoomFor: 6, of: laid)
        let before = flow.y
        flow.place(laid)
        #expect(flow.page == 1 && abs(flow.y - (before + height(laid, lines: 0..<6))) < 0.01)
    }

    @Test func noOrphanIsLeftAtTheFootOfAPage() throws {
        let laid = try #require(lines(6))
        let flow = flow(leavingRoomFor: 1, of: laid)
        flow.place(laid)
        #expect(flow.page == 2, "one line alone would be an orphan: the paragraph starts the next page")
        #expect(abs(flow.y - (geometry.top + height(laid, lines: 0..<6))) < 0.01)
    }

    @Test func noWidowIsLeftAtTheHeadOfTheNextPage() throws {
        let laid = try #require(lines(6))
        let flow = flow(leavingRoomFor: 5, of: laid)
        flow.place(laid)
        // Five would fit, leaving one line alone on the next page: four stay, two go.
        #expect(flow.page == 2)
        #expect(abs(flow.y - (geometry.top + height(laid, lines: 4..<6))) < 0.01, "two lines on the new page")
    }

    @Test func aLongParagraphBreaksWhereItMust() throws {
        let laid = try #require(lines(10))
        let flow = flow(leavingRoomFor: 4, of: laid)
        flow.place(laid)
        #expect(flow.page == 2 && abs(flow.y - (geometry.top + height(laid, lines: 4..<10))) < 0.01)
    }

    @Test(arguments: [2, 3])
    func twoOrThreeLinesGoWhole(count: Int) throws {
        let laid = try #require(lines(count))
        let flow = flow(leavingRoomFor: count - 1, of: laid)
        flow.place(laid)
        #expect(flow.page == 2 && abs(flow.y - (geometry.top + height(laid, lines: 0..<count))) < 0.01)
    }

    @Test func aHeadingKeepsWithWhatFollows() throws {
        var heading = try #require(lines(1))
        var decoration = PageFlow.Decoration()
        decoration.keepWithNext = true
        heading = PageFlow.Laid(layout: heading.layout, marker: nil, decoration: decoration)
        // Room for the heading and one line more: not enough for two lines after it.
        let flow = flow(leavingRoomFor: 2, of: try #require(lines(2)))
        flow.place(heading)
        #expect(flow.page == 2, "a heading alone at a page's foot goes to the next page")
        // With room for it and three lines, it stays.
        let roomy = self.flow(leavingRoomFor: 4, of: try #require(lines(4)))
        roomy.place(heading)
        #expect(roomy.page == 1)
    }

    @Test func aLineTallerThanAnyPageIsStillSet() throws {
        var huge = style
        huge.size = geometry.textHeight * 1.2  // one line taller than the text block
        let laid = try #require(PageFlow.lay(StyledText("W"), style: huge, in: TextBlock(geometry: geometry, fonts: fonts)))
        let flow = PageFlow(geometry: geometry, fonts: fonts, canvas: nil)
        flow.place(laid)
        #expect(flow.page == 1 && !flow.pageIsEmpty, "set on the empty page, not pushed on forever")
        flow.place(try #require(lines(1)))
        #expect(flow.page == 2)
    }

    /// A photo that nearly fits is shrunk to the room left; one that would lose too much of
    /// its size starts the next page.
    @Test func aPhotoIsShrunkToFitOrMoved() throws {
        let image = try #require(PageImage(path: ImportFixtures.media + "/photo.jpg"))
        let natural = min(geometry.textWidth, Double(image.shownWidth) * 72 / 150)
        let full = min(natural * Double(image.shownHeight) / Double(image.shownWidth), geometry.textHeight * 0.8)

        let near = PageFlow(geometry: geometry, fonts: fonts, canvas: nil)
        near.newPage()
        near.move(toAtLeast: near.bottom - full * 0.8)
        let shrunkPPI = try near.photo(image)
        #expect(near.page == 1 && abs(near.y - near.bottom) < 0.01, "shrunk to the room left")
        let fullPPI = Double(image.shownWidth) * 72 / (full * Double(image.shownWidth) / Double(image.shownHeight))
        #expect(shrunkPPI > fullPPI, "smaller on the page, more pixels to the inch")

        let far = PageFlow(geometry: geometry, fonts: fonts, canvas: nil)
        far.newPage()
        far.move(toAtLeast: far.bottom - full * 0.3)
        _ = try far.photo(image)
        #expect(far.page == 2 && abs(far.y - (geometry.top + full)) < 0.01, "moved whole to the next page")
    }
}
