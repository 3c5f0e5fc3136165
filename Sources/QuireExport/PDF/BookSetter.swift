import QuireStore
import QuireSupport

/// The whole book in one pass: cover and title page, then per year its calendar and per
/// month its entries, and last the contents, when every page number is known. The contents'
/// length is measured first (a row per year and month), their pages are left free, and once
/// drawn at the end they are moved into that place (`PageOrder`).
///
/// Two threads share the work: a reading thread takes the entries from the store and makes
/// each one's script (`EntryTypesetter`: Markdown tree, hyphenation, paragraphs laid out by
/// Pango), up to 64 ahead (`ReadAhead`); this thread plays the scripts into the page flow,
/// which places lines, photos and rows, and draws them with cairo.
struct BookSetter {
    let store: Store
    let options: PDFOptions
    let plan: PDFExporter.Plan
    let fonts = FontContext()

    /// What the reading thread hands over: a month begins, or the next entry's script.
    enum Item: Sendable {
        case month(BookContents.Month)
        case entry(EntryScript)
    }

    /// The pages to move once the file is finished: the last `count` go after page `after`.
    struct Move {
        let count: Int
        let after: Int
    }

    func set(on canvas: PDFCanvas, progress: (Int64) -> Void) throws -> (summary: BookSummary, move: Move) {
        let geometry = PageGeometry(options.pageSize, rightToLeft: plan.language.isRightToLeft)
        canvas.fonts = fonts
        let flow = PageFlow(geometry: geometry, fonts: fonts, canvas: canvas)
        var places = PDFExporter.Places()
        var summary = BookSummary()
        (summary.language, summary.languageSource) = (plan.language.code, plan.language.source.rawValue)
        let size = geometry.bodySize
        let language = plan.language.code, dates = plan.language.dates
        flow.headLanguage = language
        flow.numeral = dates.number

        try frontMatter(flow)
        let frontPages = flow.page
        let measure = PageFlow(geometry: geometry, fonts: fonts, canvas: nil)
        measure.numeral = dates.number
        measure.headLanguage = language
        measure.jump(to: frontPages)
        contentsPages(measure, known: nil)
        let contentsPages = measure.page - frontPages
        flow.jump(to: measure.page)

        // Entries are read, parsed, hyphenated and made into scripts on a thread of their own,
        // up to 64 ahead of the pages (`EntryScript`); this thread lays them out and draws.
        let (store, plan, withPhotos, block) = (self.store, self.plan, options.withPhotos, flow.block)
        let scripts = ReadAhead<Item>(depth: 64) { put in
            var hyphenators: [String: Hyphenator?] = [:]
            var setter = EntryTypesetter(block: block, store: store, book: plan.language, withPhotos: withPhotos, entries: plan.entries,
                                         namesEntries: plan.contents.listsEntries, hyphenator: { language in
                if let known = hyphenators[language] { return known }
                let made = Hyphenator(language: language)
                hyphenators[language] = made
                return made
            })
            try plan.contents.forEachMonth(in: store) { month, entries in
                try put(.month(month))
                for entry in entries { try put(.entry(setter.script(for: entry))) }
            }
        }
        defer { scripts.stop() }

        var yearOutline: Int32 = 0, monthOutline: Int32 = 0
        var done: Int64 = 0
        var missingFonts: [String: Int] = [:]
        var currentYear: Int?
        var tally = EntryScript.Tally()
        while let item = try scripts.next() {
            switch item {
            case .month(let month):
                if month.year != currentYear {
                    currentYear = month.year
                    // The calendar on a left-hand page, facing the year's first month.
                    flow.runningHead = nil
                    flow.newLeftHandPage()
                    flow.showsHead = false
                    places.years[month.year] = flow.page
                    canvas.destination("y-\(month.year)", y: 0)
                    YearCalendar(year: month.year, days: plan.days, entries: plan.entries).draw(in: flow, on: canvas, language: plan.language)
                    yearOutline = canvas.addOutline(parent: 0, title: dates.year(month.year), destination: "y-\(month.year)")
                }
                flow.runningHead = dates.monthName(month.month)
                flow.newRightHandPage()
                flow.showsHead = false
                places.months[month.key] = flow.page
                canvas.destination("m-" + month.key, y: 0)
                monthOutline = canvas.addOutline(parent: yearOutline, title: month.title(in: dates), destination: "m-" + month.key)
                monthOpening(month, flow: flow, size: size)
                summary.chapters += 1
            case .entry(let script):
                script.play(into: flow, tally: &tally)
                if plan.contents.listsEntries {
                    canvas.addOutline(parent: monthOutline, title: script.outlineTitle, destination: "e-" + script.id)
                }
                if let package = script.fontPackage { missingFonts[package, default: 0] += 1 }
                done += 1
                if done % 100 == 0 { progress(done) }
            }
        }
        flow.endPage()
        // A printer binds sheets: a print file's last page is a blank left-hand one if need be.
        if options.print != nil, flow.page % 2 == 1 {
            flow.newPage()
            flow.showsHead = false
            flow.showsFolio = false
            flow.endPage()
        }
        places.pages = flow.page
        flow.runningHead = nil
        flow.jump(to: frontPages)
        self.contentsPages(flow, known: places)
        flow.endPage()
        guard flow.page == frontPages + contentsPages else {
            throw ExportError(.io, detail: "the contents took \(flow.page - frontPages) pages where \(contentsPages) were measured")
        }
        summary.entries = plan.contents.entryCount
        summary.images = tally.photos
        summary.recordings = tally.recordings
        if !tally.leftOut.isEmpty {
            let names = Array(Set(tally.leftOut)).sorted()
            let shown = names.prefix(8).joined(separator: ", ") + (names.count > 8 ? " and \(names.count - 8) more" : "")
            summary.warnings.append("\(tally.leftOut.count == 1 ? "1 photo" : "\(tally.leftOut.count) photos") left out (damaged, unreadable, not JPEG or PNG, or claiming more pixels than a book shows): " + shown)
        }
        if options.print != nil {
            for photo in tally.coarse {
                summary.warnings.append("photo \(photo.name) prints at \(photo.ppi) ppi, under the 300 a printer asks for: it may look soft")
            }
        }
        for (package, count) in missingFonts.sorted(by: { $0.key < $1.key }) {
            summary.warnings.append("\(count == 1 ? "1 entry has" : "\(count) entries have") characters no installed font can show: install \(package)")
        }
        summary.pages = places.pages
        return (summary, Move(count: contentsPages, after: frontPages))
    }

    /// Words of the book's own (not an entry's), set in its direction: in a right-to-left
    /// book even a year alone reads from the right.
    private func own(_ text: String) -> StyledText {
        StyledText((plan.language.isRightToLeft ? "\u{200F}" : "") + text, language: plan.language.code)
    }

    // MARK: Front matter

    private func frontMatter(_ flow: PageFlow) throws {
        let geometry = flow.geometry
        let size = geometry.bodySize
        let title = plan.title, language = plan.language.code, dates = plan.language.dates, words = plan.language.words
        // A printer's interior starts at the title page: its cover is a file of its own.
        if options.print == nil {
            try cover(flow)
            // Its back, blank.
            flow.newPage()
            flow.showsFolio = false
        }
        // The title page and its back, the colophon.
        flow.newPage()
        flow.showsHead = false
        flow.showsFolio = false
        flow.move(toAtLeast: geometry.size.height * BookStyle.titleTop)
        flow.paragraph(StyledText(title, language: language), style: TextStyle(font: BookFonts.serif(language), size: size * BookStyle.title,
                                                                               leading: BookStyle.titleLeading, alignment: .center, language: language))
        if let author = plan.author {
            flow.space(size * BookStyle.spaceBeforeAuthor)
            flow.paragraph(StyledText(author, language: language), style: TextStyle(font: BookFonts.serif(language), size: size * BookStyle.author,
                                                                                    alignment: .center, language: language))
        }
        flow.space(size * BookStyle.spaceBeforeFacts)
        let count = plan.contents.entryCount
        let facts = own(plan.contents.dateRange(in: dates) + "\n" + words.text("entries", count: count, formatted: dates.count(count)))
        flow.paragraph(facts, style: TextStyle(font: BookFonts.sans(language), size: size * BookStyle.facts, leading: BookStyle.factsLeading,
                                               alignment: .center, language: language), .init(gray: BookStyle.factsGray))
        flow.newPage()
        flow.showsHead = false
        flow.showsFolio = false
        flow.move(toAtLeast: geometry.size.height - geometry.bottom - size * BookStyle.colophonRise)
        flow.paragraph(own(words.text("colophon")),
                       style: TextStyle(font: BookFonts.sans(language), size: size * BookStyle.colophon, alignment: .natural, language: language),
                       .init(gray: BookStyle.colophonGray))
    }

    /// The cover, filling the page: the photo scaled to cover it (cropped, never letterboxed)
    /// with the title on a dark band across it, or the title on a field of colour. White
    /// type on both.
    private func cover(_ flow: PageFlow) throws {
        let geometry = flow.geometry
        let size = geometry.bodySize
        let title = plan.title, language = plan.language.code, dates = plan.language.dates
        flow.newPage()
        flow.showsHead = false
        flow.showsFolio = false
        let page = geometry.size
        let titleStyle = TextStyle(font: BookFonts.serif(language), size: size * BookStyle.coverTitle, leading: BookStyle.titleLeading,
                                   alignment: .center, language: language)
        let datesStyle = TextStyle(font: BookFonts.sans(language), size: size * BookStyle.coverDates, alignment: .center, language: language)
        if let cover = plan.cover {
            try flow.canvas?.draw(cover, covering: 0, y: 0, width: page.width, height: page.height)
            flow.canvas?.fill(x: 0, y: page.height * BookStyle.coverBandTop, width: page.width, height: page.height * BookStyle.coverBandHeight,
                              red: 0, green: 0, blue: 0, alpha: BookStyle.coverBandAlpha)
            flow.move(toAtLeast: page.height * BookStyle.coverTitleOnBand)
        } else {
            let field = BookStyle.coverField
            flow.canvas?.fill(x: 0, y: 0, width: page.width, height: page.height, red: field.red, green: field.green, blue: field.blue)
            flow.move(toAtLeast: page.height * BookStyle.coverTitleOnField)
        }
        flow.paragraph(StyledText(title, language: language), style: titleStyle, .init(gray: 1))
        flow.space(size * BookStyle.spaceAfterCoverTitle)
        flow.paragraph(own(plan.contents.dateRange(in: dates)), style: datesStyle, .init(gray: BookStyle.coverDatesGray))
        if let author = plan.author, plan.cover == nil {
            flow.move(toAtLeast: page.height * BookStyle.coverAuthorTop)
            flow.paragraph(StyledText(author, language: language), style: TextStyle(font: BookFonts.serif(language), size: size * BookStyle.coverAuthor,
                                                                                    alignment: .center, language: language), .init(gray: 1))
        }
    }

    /// Years and months with their pages; a link on each row.
    private func contentsPages(_ flow: PageFlow, known: PDFExporter.Places?) {
        let size = flow.geometry.bodySize, language = plan.language.code, dates = plan.language.dates
        flow.newRightHandPage()
        flow.showsHead = false
        flow.move(toAtLeast: flow.geometry.top + size * BookStyle.contentsTop)
        flow.paragraph(own(plan.language.words.text("contents")), style: TextStyle(font: BookFonts.serif(language), size: size * BookStyle.contentsHeading,
                                                                                   language: language))
        flow.space(size * BookStyle.spaceAfterContentsHeading)
        var year: Int?
        let row = TextStyle(font: BookFonts.serif(language), size: size, leading: BookStyle.contentsLeading, language: language)
        var bold = row
        bold.font = BookFonts.sans(language) + " Bold"
        for month in plan.months {
            if month.year != year {
                year = month.year
                flow.space(size * BookStyle.spaceBeforeYear)
                flow.entryRow(own(dates.year(month.year)), page: known?.years[month.year], destination: "y-\(month.year)", style: bold, indent: 0)
            }
            flow.entryRow(own(dates.monthName(month.month)),
                          page: known?.months[month.key], destination: "m-" + month.key, style: row, indent: size * BookStyle.monthIndent)
        }
    }

    /// The top of a month's first page: its name large, the year under it.
    private func monthOpening(_ month: BookContents.Month, flow: PageFlow, size: Double) {
        let language = plan.language.code, dates = plan.language.dates
        flow.move(toAtLeast: flow.geometry.top + flow.geometry.textHeight * BookStyle.monthTop)
        flow.paragraph(own(dates.monthName(month.month)), style: TextStyle(font: BookFonts.serif(language), size: size * BookStyle.monthName,
                                                                           leading: BookStyle.monthLeading, language: language))
        flow.paragraph(own(dates.year(month.year)), style: TextStyle(font: BookFonts.sans(language), size: size * BookStyle.monthYear, letterSpacing: 1,
                                                                     language: language), .init(gray: BookStyle.monthYearGray))
        flow.space(size * BookStyle.spaceAfterMonthYear)
        let rule = size * BookStyle.monthRule
        let start = flow.geometry.rightToLeft ? flow.left + flow.width - rule : flow.left
        flow.canvas?.line(x1: start, y1: flow.y, x2: start + rule, y2: flow.y, width: BookStyle.monthRuleWidth, gray: BookStyle.monthRuleGray)
        flow.space(size * BookStyle.spaceAfterMonthRule)
    }
}
