/// The page that opens each year of the EPUB: the same calendar as the PDF book's (twelve
/// months, weeks from the day the book's locale starts them on, each written day shaded by
/// how much was written, ● where it has a voice note, ■ a photo, linked to its first entry),
/// as inline SVG in an XHTML page. A right-to-left book's calendar reads from the right.
struct EPUBCalendar {
    let year: Int
    let days: WrittenDays
    let language: BookLanguage

    static let cell = 20, gap = 16, title = 22

    /// `text/calendar-2025.xhtml`.
    var href: String { "text/calendar-\(year).xhtml" }

    /// The page; `entryLink` tells where an entry is (`2025-03.xhtml#e-<id>`, from the page's folder).
    func page(entryLink: (String) -> String?) -> String {
        let boxWidth = Self.cell * 7, boxHeight = Self.title + Self.cell * 7
        let width = boxWidth * 3 + Self.gap * 2, height = boxHeight * 4 + Self.gap * 3
        let (words, dates, rtl) = (language.words, language.dates, language.isRightToLeft)
        let description = XMLText.escape(words.text("calendarDescription", ["year": dates.year(year)]))
        // Coordinates are laid out left to right, and each column mirrored in a right-to-left book.
        func column(_ index: Int, of count: Int) -> Int { rtl ? count - 1 - index : index }
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 \(width) \(height)" \
            role="img" aria-labelledby="y-\(year)-desc" class="calendar" font-family="sans-serif" direction="ltr">
            <title id="y-\(year)-desc">\(description)</title>

            """
        let initials = WrittenDays.columnInitials(dates).map(XMLText.escape)
        for month in 1...12 {
            let x0 = column((month - 1) % 3, of: 3) * (boxWidth + Self.gap), y0 = (month - 1) / 3 * (boxHeight + Self.gap)
            svg += "<g transform=\"translate(\(x0) \(y0))\">\n"
            let name = XMLText.escape(dates.monthName(month))
            svg += "<text x=\(quote(rtl ? boxWidth : 0)) y=\"14\" font-size=\"13\" font-weight=\"bold\"\(rtl ? " text-anchor=\"end\"" : "")>\(name)</text>\n"
            for (index, initial) in initials.enumerated() {
                svg += "<text x=\(quote(column(index, of: 7) * Self.cell + Self.cell / 2)) y=\(quote(Self.title + 13)) font-size=\"9\" fill=\"#777\" text-anchor=\"middle\">\(initial)</text>\n"
            }
            for cell in WrittenDays.cells(year: year, month: month, firstWeekday: dates.firstWeekday) {
                let x = column(cell.column, of: 7) * Self.cell, y = Self.title + Self.cell * (cell.row + 1)
                let number = "<text x=\(quote(x + Self.cell / 2)) y=\(quote(y + 14)) font-size=\"10\" text-anchor=\"middle\""
                let digits = dates.number(cell.day)
                guard let day = days[cell.key] else {
                    svg += number + " fill=\"#595959\">\(digits)</text>\n"
                    continue
                }
                let grey = Self.hex(day.shade), ink = day.shade < 0.6 ? "#fff" : "#1a1a1a"
                var drawn = "<rect x=\(quote(x + 1)) y=\(quote(y + 1)) width=\(quote(Self.cell - 2)) height=\(quote(Self.cell - 2)) fill=\"\(grey)\"/>"
                if day.voice { drawn += "<circle cx=\(quote(x + Self.cell - 5)) cy=\(quote(y + 5)) r=\"2\" fill=\"\(ink)\"/>" }
                if day.photo { drawn += "<rect x=\(quote(x + Self.cell - 7)) y=\(quote(y + Self.cell - 7)) width=\"4\" height=\"4\" fill=\"\(ink)\"/>" }
                drawn += number + " fill=\"\(ink)\">\(digits)</text>"
                if let link = entryLink(day.firstEntry) {
                    svg += "<a xlink:href=\"\(link)\">" + drawn + "</a>\n"
                } else {
                    svg += drawn + "\n"
                }
            }
            svg += "</g>\n"
        }
        svg += "</svg>"
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="\(language.code)" lang="\(language.code)" dir="\(language.direction)">
            <head>
              <meta charset="UTF-8"/>
              <title>\(dates.year(year))</title>
              <link rel="stylesheet" type="text/css" href="../style.css"/>
            </head>
            <body>
              <section class="year" aria-labelledby="y-\(year)">
                <h1 id="y-\(year)">\(dates.year(year))</h1>
            \(svg)
                <p class="legend">\(XMLText.escape(words.text("calendarLegend")))</p>
              </section>
            </body>
            </html>

            """
    }

    private func quote(_ value: Int) -> String { "\"\(value)\"" }

    /// `#d6d6d6` for a grey of 0.84.
    static func hex(_ grey: Double) -> String {
        let value = Int((grey * 255).rounded())
        let digits = Array("0123456789abcdef")
        let pair = String([digits[value / 16], digits[value % 16]])
        return "#" + pair + pair + pair
    }
}
