/// The page that opens each year of the EPUB: the same calendar as the PDF book's (twelve
/// months, weeks from Monday, each written day shaded by how much was written, ● where it has
/// a voice note, ■ a photo, linked to its first entry), as inline SVG in an XHTML page.
struct EPUBCalendar {
    let year: Int
    let days: WrittenDays
    let language: String
    let direction: String

    static let cell = 20, gap = 16, title = 22

    /// `text/calendar-2025.xhtml`.
    var href: String { "text/calendar-\(year).xhtml" }

    /// The page; `entryLink` tells where an entry is (`2025-03.xhtml#e-<id>`, from the page's folder).
    func page(entryLink: (String) -> String?) -> String {
        let boxWidth = Self.cell * 7, boxHeight = Self.title + Self.cell * 7
        let width = boxWidth * 3 + Self.gap * 2, height = boxHeight * 4 + Self.gap * 3
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 \(width) \(height)" \
            role="img" aria-labelledby="y-\(year)-desc" class="calendar" font-family="sans-serif">
            <title id="y-\(year)-desc">\(year): each day shaded by how much was written, a dot for a voice note, a square for a photo</title>

            """
        for month in 1...12 {
            let x0 = (month - 1) % 3 * (boxWidth + Self.gap), y0 = (month - 1) / 3 * (boxHeight + Self.gap)
            svg += "<g transform=\"translate(\(x0) \(y0))\">\n"
            svg += "<text x=\"0\" y=\"14\" font-size=\"13\" font-weight=\"bold\">\(LocalDate.monthNames[month - 1])</text>\n"
            for (column, initial) in WrittenDays.weekdayInitials.enumerated() {
                svg += "<text x=\(quote(column * Self.cell + Self.cell / 2)) y=\(quote(Self.title + 13)) font-size=\"9\" fill=\"#777\" text-anchor=\"middle\">\(initial)</text>\n"
            }
            for cell in WrittenDays.cells(year: year, month: month) {
                let x = cell.column * Self.cell, y = Self.title + Self.cell * (cell.row + 1)
                let number = "<text x=\(quote(x + Self.cell / 2)) y=\(quote(y + 14)) font-size=\"10\" text-anchor=\"middle\""
                guard let day = days[cell.key] else {
                    svg += number + " fill=\"#595959\">\(cell.day)</text>\n"
                    continue
                }
                let grey = Self.hex(day.shade), ink = day.shade < 0.6 ? "#fff" : "#1a1a1a"
                var drawn = "<rect x=\(quote(x + 1)) y=\(quote(y + 1)) width=\(quote(Self.cell - 2)) height=\(quote(Self.cell - 2)) fill=\"\(grey)\"/>"
                if day.voice { drawn += "<circle cx=\(quote(x + Self.cell - 5)) cy=\(quote(y + 5)) r=\"2\" fill=\"\(ink)\"/>" }
                if day.photo { drawn += "<rect x=\(quote(x + Self.cell - 7)) y=\(quote(y + Self.cell - 7)) width=\"4\" height=\"4\" fill=\"\(ink)\"/>" }
                drawn += number + " fill=\"\(ink)\">\(cell.day)</text>"
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
            <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="\(language)" lang="\(language)" dir="\(direction)">
            <head>
              <meta charset="UTF-8"/>
              <title>\(year)</title>
              <link rel="stylesheet" type="text/css" href="../style.css"/>
            </head>
            <body>
              <section class="year" aria-labelledby="y-\(year)">
                <h1 id="y-\(year)">\(year)</h1>
            \(svg)
                <p class="legend">Each day is shaded by how much was written; ● marks a voice note, ■ a photo.</p>
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
