import QuireStore

/// The page that opens each year of the PDF book: the twelve months as small calendars
/// (weeks from Monday), each day a cell shaded by how much was written that day, a dot where
/// it has a voice note and a square where it has a photo, and each written day a link to
/// its first entry. Drawn as vectors with cairo, like the rest of the page.
struct YearCalendar {
    /// What one day holds.
    struct Day {
        var firstEntry: String
        var characters = 0
        var voice = false
        var photo = false

        mutating func add(_ entry: Entry) {
            characters += entry.title.count + entry.body.count + entry.media.reduce(0) { $0 + $1.transcript.count }
            voice = voice || entry.media.contains { $0.kind == .voice }
            photo = photo || entry.media.contains { $0.kind == .photo }
        }

        /// How dark its cell is (1 white … 0 black), by how much was written.
        var shade: Double {
            switch characters {
            case ..<200: return 0.84
            case ..<800: return 0.68
            case ..<2000: return 0.52
            default: return 0.36
            }
        }
    }

    let year: Int
    let days: [String: Day]

    static let weekdayInitials = ["M", "T", "W", "T", "F", "S", "S"]

    func draw(in flow: PageFlow, language: String) {
        let size = flow.geometry.bodySize
        flow.paragraph(StyledText(String(year)), style: TextStyle(font: BookFonts.serif(language), size: size * 2.4, leading: 1.1, language: language))
        flow.space(size * 0.8)
        let gap = size * 1.2
        let legendHeight = size * 2.2
        let boxWidth = (flow.width - 2 * gap) / 3
        let cellWidth = boxWidth / 7
        let cellHeight = min(cellWidth, (flow.room - legendHeight - 3 * gap) / 32)
        let top = flow.y
        guard let canvas = flow.canvas else {
            flow.move(toAtLeast: top + cellHeight * 32 + 3 * gap)
            legend(flow, size: size, language: language)
            return
        }
        let small = TextStyle(font: BookFonts.sans(language), size: min(size * 0.62, cellHeight * 0.62), leading: 1, alignment: .center, language: language)
        let name = TextStyle(font: BookFonts.sans(language) + " Bold", size: size * 0.8, leading: 1, language: language)
        let numbers = (1...31).map { TextLayout(StyledText(String($0)), style: small, width: cellWidth, in: flow.fonts) }
        let initials = Self.weekdayInitials.map { TextLayout(StyledText($0), style: small, width: cellWidth, in: flow.fonts) }
        for month in 1...12 {
            let x0 = flow.left + Double((month - 1) % 3) * (boxWidth + gap)
            let y0 = top + Double((month - 1) / 3) * (cellHeight * 8 + gap)
            let title = TextLayout(StyledText(LocalDate.monthNames[month - 1]), style: name, width: boxWidth, in: flow.fonts)
            canvas.draw(title, lines: 0..<title.lines.count, x: x0, y: y0)
            for (column, initial) in initials.enumerated() {
                canvas.draw(initial, lines: 0..<1, x: x0 + Double(column) * cellWidth, y: y0 + cellHeight * 1.1 + (cellHeight - initial.height) / 2, gray: 0.45)
            }
            let first = Self.daysFromCivil(year, month, 1)
            let offset = Int(((first % 7) + 7 + 3) % 7)  // 1970-01-01 was a Thursday: Monday = 0
            for day in 1...Self.daysIn(year, month) {
                let slot = offset + day - 1
                let x = x0 + Double(slot % 7) * cellWidth
                let y = y0 + cellHeight * (2.1 + Double(slot / 7))
                let key = LocalDate(utcSeconds: (first + Int64(day - 1)) * 86_400).dayKey
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

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func daysIn(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
