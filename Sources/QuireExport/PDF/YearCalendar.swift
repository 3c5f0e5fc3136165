import QuireStore

/// The page that opens each year of the PDF book: the twelve months as small calendars
/// (weeks from the day the book's locale starts them on), each day a cell shaded by how much
/// was written that day, a dot where it has a voice note and a square where it has a photo,
/// and each written day a link to its first entry. Drawn as vectors with cairo, like the rest
/// of the page; in a right-to-left book the months and the days run from the right.
struct YearCalendar {
    let year: Int
    let days: WrittenDays
    let entries: EntryIndex

    func draw(in flow: PageFlow, on canvas: PDFCanvas, language book: BookLanguage) {
        let size = flow.geometry.bodySize
        let language = book.code, dates = book.dates, rtl = book.isRightToLeft
        let mark = rtl ? "\u{200F}" : ""
        func column(_ index: Int, of count: Int) -> Double { Double(rtl ? count - 1 - index : index) }
        flow.paragraph(StyledText(mark + dates.year(year), language: language), style: TextStyle(font: BookFonts.serif(language), size: size * 2.4, leading: 1.1, language: language))
        flow.space(size * 0.8)
        let gap = size * 1.2
        let legendHeight = size * 2.2
        let boxWidth = (flow.width - 2 * gap) / 3
        let cellWidth = boxWidth / 7
        let cellHeight = min(cellWidth, (flow.room - legendHeight - 3 * gap) / 32)
        let top = flow.y
        let small = TextStyle(font: BookFonts.sans(language), size: min(size * 0.62, cellHeight * 0.62), leading: 1, alignment: .center, language: language)
        let name = TextStyle(font: BookFonts.sans(language) + " Bold", size: size * 0.8, leading: 1, language: language)
        let numbers = (1...31).map { TextLayout(StyledText(dates.number($0), language: language), style: small, width: cellWidth, in: flow.fonts) }
        let initials = WrittenDays.columnInitials(dates).map { TextLayout(StyledText($0, language: language), style: small, width: cellWidth, in: flow.fonts) }
        for month in 1...12 {
            let x0 = flow.left + column((month - 1) % 3, of: 3) * (boxWidth + gap)
            let y0 = top + Double((month - 1) / 3) * (cellHeight * 8 + gap)
            let title = TextLayout(StyledText(mark + dates.monthName(month), language: language), style: name, width: boxWidth, in: flow.fonts)
            canvas.draw(title, lines: 0..<title.lines.count, x: x0, y: y0)
            for (index, initial) in initials.enumerated() where !initial.lines.isEmpty {
                canvas.draw(initial, lines: 0..<1, x: x0 + column(index, of: 7) * cellWidth, y: y0 + cellHeight * 1.1 + (cellHeight - initial.height) / 2, gray: 0.45)
            }
            for cell in WrittenDays.cells(year: year, month: month, firstWeekday: dates.firstWeekday) {
                let day = cell.day, key = cell.key
                let x = x0 + column(cell.column, of: 7) * cellWidth
                let y = y0 + cellHeight * (2.1 + Double(cell.row))
                var ink = 0.35
                if let written = days[key] {
                    canvas.fill(x: x + 0.6, y: y + 0.6, width: cellWidth - 1.2, height: cellHeight - 1.2, gray: written.shade)
                    ink = written.shade < 0.6 ? 1 : 0.1
                    if written.voice { canvas.circle(x: x + cellWidth - 3, y: y + 3, radius: 1.3, gray: ink) }
                    if written.photo { canvas.fill(x: x + cellWidth - 4.3, y: y + cellHeight - 4.3, width: 2.6, height: 2.6, gray: ink) }
                    if let entry = entries.number(of: written.firstEntryID) {
                        canvas.tagLink(target: .entry(entry), x: x, y: y, width: cellWidth, height: cellHeight)
                    }
                }
                let number = numbers[day - 1]
                canvas.draw(number, lines: 0..<1, x: x, y: y + (cellHeight - number.height) / 2, gray: ink)
            }
        }
        flow.move(toAtLeast: top + cellHeight * 32 + 3 * gap)
        legend(flow, size: size, language: book)
    }

    private func legend(_ flow: PageFlow, size: Double, language book: BookLanguage) {
        let language = book.code
        let text = StyledText((book.isRightToLeft ? "\u{200F}" : "") + book.words.text("calendarLegend"), language: language)
        flow.paragraph(text, style: TextStyle(font: BookFonts.sans(language), size: size * 0.7, leading: 1.2, language: language), .init(gray: 0.4))
    }
}
