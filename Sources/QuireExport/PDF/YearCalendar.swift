import QuireStore

/// The page that opens each year of the PDF book: the twelve months as small calendars
/// (weeks from Monday), each day a cell shaded by how much was written that day, a dot where
/// it has a voice note and a square where it has a photo, and each written day a link to
/// its first entry. Drawn as vectors with cairo, like the rest of the page.
struct YearCalendar {
    let year: Int
    let days: WrittenDays

    func draw(in flow: PageFlow, on canvas: PDFCanvas, language: String) {
        let size = flow.geometry.bodySize
        flow.paragraph(StyledText(String(year)), style: TextStyle(font: BookFonts.serif(language), size: size * 2.4, leading: 1.1, language: language))
        flow.space(size * 0.8)
        let gap = size * 1.2
        let legendHeight = size * 2.2
        let boxWidth = (flow.width - 2 * gap) / 3
        let cellWidth = boxWidth / 7
        let cellHeight = min(cellWidth, (flow.room - legendHeight - 3 * gap) / 32)
        let top = flow.y
        let small = TextStyle(font: BookFonts.sans(language), size: min(size * 0.62, cellHeight * 0.62), leading: 1, alignment: .center, language: language)
        let name = TextStyle(font: BookFonts.sans(language) + " Bold", size: size * 0.8, leading: 1, language: language)
        let numbers = (1...31).map { TextLayout(StyledText(String($0)), style: small, width: cellWidth, in: flow.fonts) }
        let initials = WrittenDays.weekdayInitials.map { TextLayout(StyledText($0), style: small, width: cellWidth, in: flow.fonts) }
        for month in 1...12 {
            let x0 = flow.left + Double((month - 1) % 3) * (boxWidth + gap)
            let y0 = top + Double((month - 1) / 3) * (cellHeight * 8 + gap)
            let title = TextLayout(StyledText(LocalDate.monthNames[month - 1]), style: name, width: boxWidth, in: flow.fonts)
            canvas.draw(title, lines: 0..<title.lines.count, x: x0, y: y0)
            for (column, initial) in initials.enumerated() {
                canvas.draw(initial, lines: 0..<1, x: x0 + Double(column) * cellWidth, y: y0 + cellHeight * 1.1 + (cellHeight - initial.height) / 2, gray: 0.45)
            }
            for cell in WrittenDays.cells(year: year, month: month) {
                let day = cell.day, key = cell.key
                let x = x0 + Double(cell.column) * cellWidth
                let y = y0 + cellHeight * (2.1 + Double(cell.row))
                var ink = 0.35
                if let written = days[key] {
                    canvas.fill(x: x + 0.6, y: y + 0.6, width: cellWidth - 1.2, height: cellHeight - 1.2, gray: written.shade)
                    ink = written.shade < 0.6 ? 1 : 0.1
                    if written.voice { canvas.circle(x: x + cellWidth - 3, y: y + 3, radius: 1.3, gray: ink) }
                    if written.photo { canvas.fill(x: x + cellWidth - 4.3, y: y + cellHeight - 4.3, width: 2.6, height: 2.6, gray: ink) }
                    canvas.tagLink(target: .destination("e-" + written.firstEntry), x: x, y: y, width: cellWidth, height: cellHeight)
                }
                let number = numbers[day - 1]
                canvas.draw(number, lines: 0..<1, x: x, y: y + (cellHeight - number.height) / 2, gray: ink)
            }
        }
        flow.move(toAtLeast: top + cellHeight * 32 + 3 * gap)
        legend(flow, size: size, language: language)
    }

    private func legend(_ flow: PageFlow, size: Double, language: String) {
        let text = StyledText("Each day is shaded by how much was written; ● marks a voice note, ■ a photo.")
        flow.paragraph(text, style: TextStyle(font: BookFonts.sans(language), size: size * 0.7, leading: 1.2, language: language), .init(gray: 0.4))
    }
}
