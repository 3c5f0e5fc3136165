import Foundation
import Testing
@testable import QuireExport
@testable import QuireStore

@Suite struct XHTMLPageTests {
    func page(_ fragment: String) -> String {
        "<div xmlns=\"http://www.w3.org/1999/xhtml\">" + fragment + "</div>"
    }

    @Test func bodiesBecomeWellFormedXHTMLForABookPage() {
        let html = MarkdownRenderer.html("""
            # Title

            Text[^n] with a [link](https://example.org?a=1&b=2), [relative](other.md), [[x]](#missing), ![pic](https://e.org/p.png), ![local](p.png).

            - [ ] open
            - [x] done

            | a | b |
            |:-:|--:|
            | 1 | 2 |

            [^n]: Note.
            """)
        let xhtml = XHTMLPage.fragment(html, idPrefix: "e-1-", headingShift: 2)
        #expect(XHTMLPage.wellFormednessProblem(page(xhtml)) == nil, "\(xhtml)")
        #expect(xhtml.contains("<h3>Title</h3>"))
        #expect(xhtml.contains("<a href=\"https://example.org?a=1&amp;b=2\">link</a>"))
        #expect(xhtml.contains("relative") && !xhtml.contains("other.md"))
        #expect(!xhtml.contains("#missing"))
        #expect(xhtml.contains("<a href=\"https://e.org/p.png\">pic</a>") && !xhtml.contains("<img"))
        #expect(xhtml.contains("☐ open") && xhtml.contains("☑ done") && !xhtml.contains("<input"))
        #expect(xhtml.contains("style=\"text-align: center\"") && xhtml.contains("style=\"text-align: right\""))
        #expect(!xhtml.contains("data-footnotes"))
        // Footnote links point at prefixed ids that exist.
        let ids = xhtml.components(separatedBy: "id=\"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
        let hrefs = xhtml.components(separatedBy: "href=\"#").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
        #expect(!hrefs.isEmpty && ids.allSatisfy { $0.hasPrefix("e-1-") })
        for href in hrefs { #expect(ids.contains(href), "\(href)") }
    }

    @Test func hostileTextCannotBreakThePage() {
        for body in ["<div><p>unclosed", "a \u{0}\u{1}\u{B}\u{FFFE} b", "</body></html><script>x</script>", "&nbsp;&copy;&#0;&#xD800;",
                     String(repeating: "> ", count: 300) + "deep", "<![CDATA[ x ]]> <!-- c --> <?php x ?>"] {
            let xhtml = XHTMLPage.fragment(MarkdownRenderer.html(body), idPrefix: "p-")
            #expect(XHTMLPage.wellFormednessProblem(page(xhtml)) == nil, "\(body): \(xhtml)")
            #expect(!xhtml.contains("<script") && !xhtml.contains("&nbsp;"))
        }
    }

    @Test func strictParsingNamesTheLine() {
        let problem = XHTMLPage.wellFormednessProblem("<a>\n<b>&nbsp;</b>\n</a>")
        #expect(problem?.line == 2)
        #expect(XHTMLPage.wellFormednessProblem("<a>\n<b>\n</a>") != nil)
        #expect(XHTMLPage.wellFormednessProblem("<a>\u{A0}</a>") == nil)
    }
}

@Suite struct BookHelperTests {
    @Test func localDatesMatchFoundationsCalendarAtTheirOwnOffset() throws {
        var calendar = Calendar(identifier: .gregorian)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let seconds = Int64.random(in: -5_000_000_000...8_000_000_000, using: &generator)
            let offset = Int.random(in: -12...14, using: &generator) * 1800
            let local = LocalDate(Timestamp(microseconds: seconds * 1_000_000 + 123, offsetSeconds: offset))
            calendar.timeZone = try #require(TimeZone(secondsFromGMT: offset))
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: Date(timeIntervalSince1970: Double(seconds)))
            #expect([local.year, local.month, local.day, local.hour, local.minute, local.second, local.weekday + 1]
                    == [c.year, c.month, c.day, c.hour, c.minute, c.second, c.weekday], "\(seconds) \(offset)")
        }
        let evening = LocalDate(ts("2025-03-01T21:14:05+03:00"))
        let fields: [Int] = [evening.year, evening.month, evening.day, evening.hour, evening.minute, evening.weekday]
        #expect(fields == [2025, 3, 1, 21, 14, 6])
        #expect(LocalDate(ts("2025-03-31T23:30:00-10:00")).monthKey == "2025-03")
    }

    @Test func scriptsTellLanguageAndDirection() {
        #expect(TextLanguage(of: "ذهبت إلى المكتبة") == TextLanguage(code: "ar", direction: "rtl"))
        #expect(TextLanguage(of: "کتاب خواندم").code == "fa")
        // Urdu shares Persian's letters and has its own (ٹ ڈ ڑ ں ے).
        #expect(TextLanguage(of: "آج ہم سمندر کے کنارے گئے اور بہت مزہ آیا۔").code == "ur")
        #expect(BookWords(for: "ur-PK").text("entries", count: 2, formatted: "2") == "2 اندراجات")
        #expect(TextLanguage(of: "שלום עולם").direction == "rtl")
        #expect(TextLanguage(of: "今日は東京に行きました").code == "ja")
        #expect(TextLanguage(of: "我今天去了北京").code == "zh")
        #expect(TextLanguage(of: "今天我們去了台北，這裡的天氣很好。").code == "zh-Hant")
        #expect(TextLanguage(of: "今天我们去了北京，这里的天气很好。").code == "zh")
        // Scripts written for one language above all; Devanagari is read as Hindi.
        #expect(TextLanguage(of: "आज सुबह मैंने एक किताब पढ़ी") == TextLanguage(code: "hi", direction: "ltr"))
        #expect(TextLanguage(of: "இன்று காலை நான் ஒரு புத்தகம் படித்தேன்").code == "ta")
        #expect(TextLanguage(of: "আমি আজ বাজারে গিয়েছিলাম").code == "bn")
        #expect(TextLanguage(of: "დღეს თბილისში ვიყავი").code == "ka")
        #expect(TextLanguage(of: "Today in Delhi: आज दिल्ली में बहुत गर्मी थी और हम घर पर रहे").code == "hi")
        // Devanagari is also Marathi's and Nepali's: their commonest words tell them.
        #expect(TextLanguage(of: "आज सकाळी मी पुण्याला गेलो आणि खूप पाऊस होता. घरी परत आलो, मला बरे वाटत आहे.").code == "mr")
        #expect(TextLanguage(of: "आज बिहान म काठमाडौं गएँ र त्यहाँ धेरै चिसो थियो। मेरो साथी पनि आयो।").code == "ne")
        #expect(TextLanguage(of: "Привет, мир").code == "ru")
        #expect(TextLanguage(of: "Привіт, світ").code == "uk")
        #expect(TextLanguage(of: "Hello world") == TextLanguage(code: nil, direction: "ltr"))
        #expect(TextLanguage(of: "12345 !!!") == TextLanguage(code: nil, direction: nil))
    }

    @Test func overlaysKeepOnlyOrderedClipsWithLength() {
        var overlay = MediaOverlay()
        let ids = overlay.add(segments: [
            Segment(start: 0, end: 1, text: "a"), Segment(start: 0.5, end: 2, text: "overlaps"), Segment(start: 2, end: 2, text: "empty"),
            Segment(start: 2, end: 3.25, text: "b"), Segment(start: 4, end: 5, text: ""), Segment(start: .nan, end: 6, text: "nan"),
        ], audio: "media/x.m4a", idPrefix: "m")
        #expect(ids == ["m-s1", nil, nil, "m-s4", nil, nil])
        #expect(overlay.duration == 2.25)
        #expect(MediaOverlay.clock(3725.5) == "1:02:05.500")
    }
}
