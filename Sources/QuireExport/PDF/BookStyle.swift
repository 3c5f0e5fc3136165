/// The printed book's measures, in one table. A size or a space is a multiple of the body
/// size (`PageGeometry.bodySize`: 9.5 pt on a small page, 10.5 pt on a large one), so a book
/// keeps its proportions on every page size; a page's margins and the places its title,
/// cover band and month openings stand at are fractions of the page; leading is a factor of
/// the font's own line height (Noto Serif's is 1.36 em, so 1.0 sets the body at about 1.36).
/// Changing one changes every book: look at pages rendered with `pdftoppm` before and after.
enum BookStyle {
    // MARK: The page

    /// Margins as fractions of the page's width (inner by the binding, outer) and height.
    static let innerMargin = 0.135, outerMargin = 0.095, topMargin = 0.085, bottomMargin = 0.1
    /// The body size in points below and above a page 500 pt wide (A5, 6×9 in; A4, letter).
    static let smallBody = 9.5, largeBody = 10.5
    static let pageWidthForLargeBody = 500.0

    // MARK: An entry

    static let bodyLeading = 1.0
    /// The entry's title: larger for Chinese and Japanese, whose headings read small.
    static let entryTitle = 1.25, entryTitleCJK = 1.35, entryTitleLeading = 1.15
    static let spaceBeforeEntry = 1.8
    /// The date line under the title (date, star, tags, place), and every caption.
    static let label = 0.8, dateLineLeading = 1.2, labelGray = 0.38
    static let spaceBeforeDateLine = 0.2, spaceAfterDateLine = 0.55
    static let spaceAfterParagraph = 0.45

    // MARK: Inside an entry's text

    /// Headings of levels 1, 2 and below.
    static func heading(level: Int) -> Double { level <= 1 ? 1.15 : level == 2 ? 1.05 : 1 }
    static let spaceBeforeHeading = 0.5, spaceAfterHeading = 0.3
    /// A quote's and a callout's indent, in points, beside their bar.
    static let quoteIndent = 14.0
    /// A list item's and a footnote's indent, where their marker stands.
    static let listIndent = 1.8
    static let code = 0.85, codeLeading = 1.25, spaceAfterCode = 0.8
    /// A code block's indent in points, inside its grey ground.
    static let codeIndent = 4.0
    static let table = 0.88, spaceAfterTable = 0.6
    static let footnote = 0.85

    // MARK: Photos and recordings

    static let spaceBeforePhoto = 0.3, spaceAfterPhoto = 0.6
    static let spaceBeforeAttachment = 0.3, spaceAfterAttachment = 0.4
    /// Under a voice note's caption: its transcript, paragraph by paragraph or (timed) one
    /// segment a line with its time in the margin `transcriptTimeIndent` wide.
    static let spaceBeforeTranscript = 0.25, spaceAfterTranscriptParagraph = 0.3
    static let transcriptTimeIndent = 3.0, spaceAfterSegment = 0.15

    // MARK: Front matter and openings

    /// The title page: the title a fifth of the way down, the author, the dates and count.
    static let titleTop = 0.22, title = 2.0, titleLeading = 1.1
    static let spaceBeforeAuthor = 1.5, author = 1.3
    static let spaceBeforeFacts = 3.0, facts = 0.95, factsLeading = 1.5, factsGray = 0.35
    /// The colophon, on the title page's back, `colophonRise` body sizes above the margin.
    static let colophon = 0.75, colophonGray = 0.45, colophonRise = 4.0
    /// The cover: the title on a dark band across the photo (or on a field of colour).
    static let coverTitle = 2.6, coverDates = 1.05, coverDatesGray = 0.88, coverAuthor = 1.4
    static let coverBandTop = 0.6, coverBandHeight = 0.25, coverBandAlpha = 0.5
    static let coverTitleOnBand = 0.64, coverTitleOnField = 0.3, coverAuthorTop = 0.78
    static let spaceAfterCoverTitle = 1.2
    /// The cover's colour where it has no photo: a deep blue-green that white type reads on
    /// and that prints as it looks.
    static let coverField = (red: 0.12, green: 0.26, blue: 0.31)
    /// The contents: their heading, a row each month, a year's row in bold.
    static let contentsTop = 3.0, contentsHeading = 1.8, spaceAfterContentsHeading = 1.5
    static let contentsLeading = 1.45, spaceBeforeYear = 0.6, monthIndent = 1.5
    /// A month's first page: its name large, the year under it, a short rule.
    static let monthTop = 0.12, monthName = 2.2, monthLeading = 1.1
    static let monthYear = 0.95, monthYearGray = 0.45
    static let spaceAfterMonthYear = 1.2, monthRule = 4.0, monthRuleWidth = 0.6, monthRuleGray = 0.4
    static let spaceAfterMonthRule = 0.6

    // MARK: Around the text

    /// The running head (small capitals' stand-in: upper case, sans) in the top margin,
    /// `headDrop` of the way down it; the folio in the bottom margin, `folioDrop` down it.
    static let runningHead = 0.75, headDrop = 0.45, headGray = 0.35
    static let folio = 0.85, folioDrop = 0.35, folioGray = 0.25
    /// A paragraph kept with the next goes to a new page unless it and this many of the next
    /// lines fit (no heading is left alone at a page's foot).
    static let keepWithNextLines = 2.6
    /// A photo is at most this much of the text's height; where the page is short of room it
    /// is shrunk to fit when it keeps `photoKeeps` of its size, or `photoKeepsAtLeast` and
    /// the room is `photoRoomAtLeast` of the text's height; else it goes to the next page.
    static let photoTallest = 0.8, photoKeeps = 0.75, photoKeepsAtLeast = 0.5, photoRoomAtLeast = 0.25
    /// Photos are shown at this many pixels an inch, or smaller to fit.
    static let photoPPI = 150.0
    /// A code block's grey ground, `groundPadding` points around its text; a quote's bar,
    /// `barWidth` points wide, `barGap` points before the text (`barGapRTL` after it, in a
    /// right-to-left entry); a marker (a bullet, a number, a time) `markerGap` points from
    /// the text.
    static let groundGray = 0.94, groundPadding = 4.0, groundPaddingV = 2.0
    static let barWidth = 1.6, barGap = 9.0, barGapRTL = 7.4, barGray = 0.7
    static let markerGap = 4.0, markerGray = 0.35
    /// A table: columns `columnGap` points apart, a rule under each row (the header's
    /// heavier), `rowGap` points below it.
    static let columnGap = 6.0, rowGap = 4.0
    static let headerRule = 0.8, headerRuleGray = 0.3, rowRule = 0.3, rowRuleGray = 0.7
    /// A contents row: the page number in a column `contentsNumberWidth` body sizes wide,
    /// dot leaders between it and the words.
    static let contentsNumberWidth = 3.5, leaderGray = 0.55
    /// A thematic break: a centred rule across the middle fifth, a space above and below.
    static let spaceAroundRule = 0.6, ruleFrom = 0.4, ruleTo = 0.6, ruleWidth = 0.5, ruleGray = 0.5
}
