import Foundation
import Testing
@testable import QuireExport
@testable import QuireStore

/// The language a book speaks around its entries: chosen, named by CLDR (what ICU itself
/// says, through Foundation, never strings typed here), translated, and its direction.
@Suite struct BookLanguageTests {
    /// The blocks `TextLanguage` takes for letters without asking Unicode hold nothing else.
    @Test func theLetterBlocksAreLettersAll() {
        for range in TextLanguage.letterRanges {
            for v in range {
                let scalar = Unicode.Scalar(v)
                #expect(scalar?.properties.isAlphabetic == true, "U+\(String(v, radix: 16))")
                #expect(TextLanguage.isLetter(v))
            }
        }
        #expect(!TextLanguage.isLetter(0x00D7) && !TextLanguage.isLetter(0x0482) && !TextLanguage.isLetter(0x064B) && !TextLanguage.isLetter(0xD7A4))
    }

    // MARK: Catalogues

    /// Every catalogue has every key of the English one, with the same `{placeholders}`; a
    /// counted text (`entries.one`, `entries.few`…) has a form for each plural category its
    /// language has, and a form that names no number (Arabic's "مدخل واحد") may leave out
    /// `{count}`.
    @Test func everyCatalogueIsComplete() throws {
        let english = try #require(BookWords.catalogues["en"])
        #expect(english.count >= 25)
        let categories: Set<String> = ["zero", "one", "two", "few", "many", "other"]
        func split(_ key: String) -> (base: String, category: String?) {
            let parts = key.split(separator: ".")
            guard parts.count == 2, categories.contains(String(parts[1])) else { return (key, nil) }
            return (String(parts[0]), String(parts[1]))
        }
        let englishBases = Set(english.keys.map { split($0).base })
        #expect(Set(BookWords.languages) == ["en", "ru", "es", "de", "fr", "ja", "ar", "he", "pt", "it", "uk", "zh", "zh-Hant", "ko", "hi", "nl", "fa", "sv", "da", "nb", "pl", "tr", "el", "vi", "id", "ur"])
        for language in BookWords.languages {
            let catalogue = try #require(BookWords.catalogues[language], "no catalogue for \(language)")
            let bases = Set(catalogue.keys.map { split($0).base })
            #expect(bases == englishBases, "\(language): missing \(englishBases.subtracting(bases).sorted()), unknown \(bases.subtracting(englishBases).sorted())")
            let needed = BookWords.pluralCategories(language: language)
            for base in bases where english.keys.contains(where: { split($0).base == base && split($0).category != nil }) {
                let forms = Set(catalogue.keys.compactMap { split($0).base == base ? split($0).category : nil })
                #expect(forms == needed, "\(language).\(base): forms \(forms.sorted()), the language has \(needed.sorted())")
            }
            for (key, text) in catalogue {
                let (base, category) = split(key)
                let englishText = english[key] ?? english[base + ".other"] ?? ""
                if category == nil {
                    #expect(Self.placeholders(text) == Self.placeholders(englishText), "\(language).\(key): \(text)")
                } else {
                    #expect(Self.placeholders(text).isSubset(of: Self.placeholders(englishText)), "\(language).\(key): \(text)")
                }
                #expect(!text.isEmpty, "\(language).\(key) is empty")
            }
        }
    }

    /// "1 entry", "21 запись", "22 записи", "25 записей", "11 записей": the count in the form
    /// its number takes.
    @Test func aCountTakesThePluralFormOfItsNumber() {
        let english = BookWords(for: "en"), russian = BookWords(for: "ru"), arabic = BookWords(for: "ar"), french = BookWords(for: "fr")
        #expect(english.text("entries", count: 1, formatted: "1") == "1 entry")
        #expect(english.text("entries", count: 30, formatted: "30") == "30 entries")
        #expect(english.text("entries", count: 0, formatted: "0") == "0 entries")
        #expect(french.text("entries", count: 0, formatted: "0") == "0 entrée")
        let forms = [1, 21, 22, 25, 11, 12, 111, 104].map { russian.text("entries", count: $0, formatted: String($0)) }
        #expect(forms == ["1 запись", "21 запись", "22 записи", "25 записей", "11 записей", "12 записей", "111 записей", "104 записи"])
        #expect(arabic.text("entries", count: 2, formatted: "٢") == "مدخلان")
        #expect(arabic.text("entries", count: 5, formatted: "٥") == "٥ مدخلات")
        #expect(arabic.text("entries", count: 30, formatted: "٣٠") == "٣٠ مدخلًا")
        #expect(arabic.text("entries", count: 100, formatted: "١٠٠") == "١٠٠ مدخل")
        let hindi = BookWords(for: "hi-IN")
        #expect([0, 1, 2].map { hindi.text("entries", count: $0, formatted: String($0)) } == ["0 प्रविष्टि", "1 प्रविष्टि", "2 प्रविष्टियाँ"])
    }

    /// Chinese in the characters its reader writes: traditional for Taiwan, Hong Kong and
    /// Macao or a tag that says Hant, else simplified.
    @Test func chineseWordsFollowTheTagsScript() {
        #expect(BookWords(for: "zh").text("contents") == "目录" && BookWords(for: "zh-CN").language == "zh")
        #expect(BookWords(for: "zh-TW").text("contents") == "目錄" && BookWords(for: "zh-Hant-HK").language == "zh-Hant")
        #expect(BookWords(for: "zh-Hans-HK").language == "zh" && BookWords(for: "ko-KR").text("contents") == "차례")
        #expect(BookWords(for: "no").language == "nb" && BookWords(for: "nn-NO").text("contents") == "Innhold")
        // Polish counts 1 as one, 2–4 as few (but not 12–14), the rest as many.
        let polish = BookWords(for: "pl-PL")
        #expect([1, 2, 5, 12, 21, 22, 112, 0].map { polish.text("entries", count: $0, formatted: String($0)) }
                == ["1 wpis", "2 wpisy", "5 wpisów", "12 wpisów", "21 wpisów", "22 wpisy", "112 wpisów", "0 wpisów"])
        #expect(BookWords(for: "tr").text("contents") == "İçindekiler" && BookWords(for: "el-GR").text("entries", count: 3, formatted: "3") == "3 καταχωρίσεις")
        #expect(BookWords(for: "sv-FI").text("entries", count: 2, formatted: "2") == "2 anteckningar" && BookWords(for: "da").text("contents") == "Indhold")
        // The PDF's Han glyph forms follow the same tag.
        #expect(BookFonts.serif("zh").contains("Noto Serif CJK SC") && BookFonts.serif("zh-TW").contains("Noto Serif CJK TC"))
        #expect(BookFonts.sans("zh-Hant").contains("Noto Sans CJK TC") && BookFonts.serif("zh-HK").contains("Noto Serif CJK HK"))
    }

    static func placeholders(_ text: String) -> Set<String> {
        Set(text.split(separator: "{", omittingEmptySubsequences: false).dropFirst().compactMap {
            $0.split(separator: "}", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
        })
    }

    @Test func aLanguageWithoutItsOwnCatalogueTakesEnglishWordsAndARegionTakesItsLanguages() {
        #expect(BookWords(for: "pt-BR").language == "pt")
        #expect(BookWords(for: "pt-BR").text("contents") == BookWords(for: "pt").text("contents"))
        let swahili = BookWords(for: "sw")
        #expect(swahili.language == "en" && swahili.text("contents") == BookWords(for: "en").text("contents"))
        #expect(BookWords(for: "pt-BR").text("entries", count: 12, formatted: "12") == "12 entradas")
        #expect(BookWords(for: "ru").text("no-such-key") == "no-such-key")
        // A key one catalogue lacks is taken from English.
        let partial = BookWords.parse("# comment\ncontents = Sisällys\n")
        #expect(partial == ["contents": "Sisällys"])
    }

    // MARK: Choosing

    @Test func tagsAreCheckedAndWrittenInCanonicalForm() throws {
        #expect(BookLanguage.canonical("pt_br") == "pt-BR")
        #expect(BookLanguage.canonical("zh-hant-tw") == "zh-Hant-TW")
        #expect(BookLanguage.canonical("ar-u-nu-arab") == "ar-u-nu-arab")
        #expect(BookLanguage.canonical("es-419") == "es-419")
        for bad in ["", "e", "english!", "ru--RU", "12", "ru-", "en-GB-u"] {
            #expect(BookLanguage.canonical(bad) == nil, "\(bad)")
            #expect(throws: LanguageError.self) { try BookLanguage(tag: bad) }
        }
        #expect { try BookLanguage(tag: "tlh") } throws: { ($0 as? LanguageError)?.problem == .unknown }
        #expect(try BookLanguage(tag: "AR").code == "ar")
    }

    @Test func theBookTakesTheEntriesLanguageThenTheLocaleThenEnglish() throws {
        let none: [String: String] = [:]
        #expect(try BookLanguage.choose(requested: "ja", votes: ["ru": 9], entries: 9, environment: ["LANG": "de_DE.UTF-8"]).code == "ja")
        let entries = try BookLanguage.choose(requested: nil, votes: ["ru": 6, "en": 2], entries: 10, environment: ["LANG": "de_DE.UTF-8"])
        #expect(entries.code == "ru" && entries.source == .entries)
        // No language for most of the entries: the environment's, LC_ALL first.
        let mixed = ["ru": 3, "ja": 3, "es": 3]
        let environment = try BookLanguage.choose(requested: nil, votes: mixed, entries: 9, environment: ["LANG": "de_DE.UTF-8", "LC_ALL": "fr_CA.UTF-8"])
        #expect(environment.code == "fr-CA" && environment.source == .environment)
        #expect(try BookLanguage.choose(requested: nil, votes: mixed, entries: 9, environment: ["LANG": "pt_BR.UTF-8", "LC_ALL": ""]).code == "pt-BR")
        #expect(try BookLanguage.choose(requested: nil, votes: mixed, entries: 9, environment: ["LANG": "C.UTF-8"]).source == .fallback)
        #expect(try BookLanguage.choose(requested: nil, votes: mixed, entries: 9, environment: none).code == "en")
        // Too few entries tell their language: the few that do decide nothing.
        #expect(try BookLanguage.choose(requested: nil, votes: ["ru": 3], entries: 10, environment: none).code == "en")
    }

    @Test func latinTextIsToldByItsCommonestWords() {
        let samples = [
            ("en", "Today we went to the market and it was very busy."),
            ("es", "Hoy fuimos al mercado y estaba lleno de gente."),
            ("fr", "Aujourd'hui nous sommes allés au marché, et il y avait beaucoup de monde."),
            ("de", "Heute waren wir auf dem Markt und es war sehr voll."),
            ("it", "Oggi siamo andati al mercato e c'era molta gente, ma era bello."),
            ("pt", "Hoje fomos ao mercado e estava muito cheio, mas foi bom."),
        ]
        for (code, text) in samples { #expect(TextLanguage(of: text).code == code, "\(text)") }
        #expect(TextLanguage(of: "Day 4").code == nil)
        // Capitals, accented capitals and words run into digits or punctuation count too.
        #expect(TextLanguage(of: "TODAY WE WENT TO THE SEA").code == "en")
        #expect(TextLanguage(of: "C'ÉTAIT TRÈS BIEN, ET NOUS…").code == "fr")
        #expect(TextLanguage(of: "Hoy—fuimos al mercado—y estaba lleno; 3pm.").code == "es")
        #expect(TextLanguage(of: "Dzisiaj był piękny dzień. Poszliśmy nad morze i było bardzo ciepło.").code == "pl")
        #expect(TextLanguage(of: "Bugün çok güzel bir gündü. Sahile gittik ve akşama kadar kaldık.").code == "tr")
        // The Scandinavian three, by the words each spells its own way.
        #expect(TextLanguage(of: "Idag var vi vid havet och jag badade. Det var inte så kallt som jag trodde.").code == "sv")
        #expect(TextLanguage(of: "I dag var vi ved havet, og jeg badede. Det var ikke så koldt, som jeg havde troet, men vandet var lidt uroligt.").code == "da")
        #expect(TextLanguage(of: "I dag var vi ved sjøen, og jeg badet. Det var ikke så kaldt som jeg hadde trodd, men vannet var litt urolig.").code == "nb")
        #expect(TextLanguage(of: "Og så var det ikke mer å si.").code == nil, "one word of one list tells nothing")
        let day = [("sv", "Vi tog tåget till Göteborg i morse. Det regnade hela dagen, så vi gick på museum och fick en kopp kaffe efteråt. Jag hade glömt mitt paraply, men det gjorde inte så mycket."),
                   ("da", "Vi tog toget til Aarhus i morges. Det regnede hele dagen, så vi gik på museum og fik en kop kaffe bagefter. Jeg havde glemt min paraply, men det gjorde ikke så meget."),
                   ("nb", "Vi tok toget til Bergen i morges. Det regnet hele dagen, så vi gikk på museum og fikk en kopp kaffe etterpå. Jeg hadde glemt paraplyen, men det gjorde ikke så mye.")]
        for (code, text) in day { #expect(TextLanguage(of: text).code == code, "\(text)") }
        #expect(TextLanguage(of: "Hôm nay tôi đi biển với gia đình. Trời rất đẹp và chúng tôi đã ăn hải sản.").code == "vi")
        #expect(TextLanguage(of: "Hari ini saya pergi ke pantai dengan keluarga. Cuacanya sangat cerah dan kami makan ikan bakar.").code == "id")
        #expect(TextLanguage(of: "Là, il y avait une petite maison et nous étions très contents.").code == "fr")
        #expect(BookWords(for: "vi-VN").text("entries", count: 1, formatted: "1") == "1 mục" && BookWords(for: "id").text("contents") == "Daftar Isi")
        #expect(TextLanguage(of: "At the end of the day her dog was not tired, and we went home.").code == "en")
        // Every listed word fits the 8 bytes of its key.
        #expect(LatinWords.lists.allSatisfy { $0.words.allSatisfy { $0.utf8.count <= 8 } })
        #expect(LatinWords.table.count == Set(LatinWords.lists.flatMap(\.words)).count)
        #expect(TextLanguage(of: "Сегодня был обычный день.").code == "ru")
    }

    /// Photos and links are in an entry's text as `![](quire:media/<id>)`: their ids are
    /// hex, whose letters are Latin and read as French "c", "d" and Italian "e".
    @Test func linkTargetsAndURLsAreNoPartOfTheLanguage() {
        let photo = "![](quire:media/8fa2e84d-7ee9-800c-ab57-98d3c60c1360)"
        let entry = "[the other](quire:entry/c498d67d-1e2b-82c8-9839-9912c9654a93)"
        #expect(TextLanguage(of: "Rome\nSaw \(photo) and \(entry).\n#inline and #nested/tag here.").code == "en")
        #expect(TextLanguage(of: "\(photo)\n\(photo)\nСон о море") == TextLanguage(code: "ru", direction: "ltr"))
        #expect(TextLanguage(of: "\(photo)\nذهبت إلى المكتبة") == TextLanguage(code: "ar", direction: "rtl"))
        #expect(TextLanguage(of: "https://example.com/c/d/e/a/c/d?q=la Сон о море") == TextLanguage(code: "ru", direction: "ltr"))
        #expect(TextLanguage(of: "![](<quire:media/8fa2 e84d.png>) 我今天去了北京").code == "zh")
        #expect(TextLanguage.prose("a ![photo](x) b") == "a ![photo]) b" && TextLanguage.prose("plain ](") == "plain ]")
        #expect(TextLanguage.prose("see https://x.org/a, то") == "see  то" && TextLanguage.prose("") == "")
    }

    /// The varied journal holds five languages in about equal parts: none is most of it, so
    /// its book speaks the environment's language (here none: English).
    @Test func theVariedJournalHasNoLanguageOfMostOfItsEntries() throws {
        let dir = TempDir()
        let store = try Store(folder: try VariedJournal.make(in: dir, generated: 40))
        let contents = try BookContents(store: store, filter: EntryFilter())
        #expect(contents.languageVotes["ru", default: 0] >= 8 && contents.languageVotes["es", default: 0] >= 8)
        #expect(BookLanguage.told(votes: contents.languageVotes, entries: contents.entryCount) == nil)
        #expect(try BookLanguage.choose(requested: nil, votes: contents.languageVotes, entries: contents.entryCount, environment: [:]).code == "en")
    }

    // MARK: Names and dates

    @Test(arguments: ["ru", "ja", "ar", "es", "en", "ar-EG", "ar-SA"])
    func datesAreICUsInTheGregorianCalendar(tag: String) throws {
        let language = try BookLanguage(tag: tag)
        let dates = language.dates
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        // The book's locale asks for the Gregorian calendar (`-u-ca-gregory`), so ICU treats
        // it as the locale's own and writes no era after a year (ar-SA would write "٢٠٢٥ م").
        let locale = dates.locale
        #expect(locale.calendar.identifier == .gregorian && locale.language.languageCode?.identifier == String(tag.prefix(2)))
        calendar.locale = locale
        let instant = try #require(calendar.date(from: DateComponents(year: 2025, month: 3, day: 1, hour: 21, minute: 14)))
        let evening = LocalDate(try #require(Timestamp(rfc3339: "2025-03-01T21:14:05+03:00")))
        let formatter = DateFormatter()
        formatter.calendar = calendar
        formatter.timeZone = calendar.timeZone
        formatter.locale = locale
        formatter.setLocalizedDateFormatFromTemplate("dMMMM")
        #expect(dates.dayAndMonth(evening) == formatter.string(from: instant))
        formatter.setLocalizedDateFormatFromTemplate("y")
        #expect(dates.year(2025) == formatter.string(from: instant))
        // Gregorian even where the locale's own calendar is not (ar-SA: Islamic).
        #expect(dates.monthName(3).lowercased(with: locale) == (formatter.standaloneMonthSymbols[2]).lowercased(with: locale))
        #expect(dates.weekdayInitials.count == 7 && dates.weekdayInitials[6] == formatter.veryShortStandaloneWeekdaySymbols[6])
        formatter.setLocalizedDateFormatFromTemplate("jmm")
        #expect(dates.clock(evening) == formatter.string(from: instant))
        #expect(dates.monthTitle(year: 2025, month: 3).contains(dates.year(2025)))
    }

    @Test(arguments: [("ar", "rtl"), ("he", "rtl"), ("fa", "rtl"), ("ur", "rtl"), ("ru", "ltr"), ("ja", "ltr"), ("en-GB", "ltr")])
    func arabicHebrewPersianAndUrduBooksAreRightToLeft(tag: String, direction: String) throws {
        #expect(try BookLanguage(tag: tag).direction == direction)
    }
}

/// The three exports of one journal in the languages the books are tested in, read back.
@Suite struct BookLanguageExportTests {
    let dir = TempDir()
    let store: String

    init() throws { store = try VariedJournal.make(in: dir, generated: 12) }

    static let languages = ["ru", "ja", "ar", "es", "en"]

    func export(_ format: String, _ tag: String, to name: String, _ extra: [String] = [], environment: [String: String] = [:]) throws -> (JSONValue, String) {
        let out = dir.path + "/" + name
        let run = try QuireBinary.run(["export", format, out, "--lang", tag, "--json"] + extra, store: store, environment: environment)
        try #require(run.status == 0, "\(run.stderr)")
        let json = try JSONValue.parse(run.stdout)
        #expect(json.object?["language"]?.string == tag && json.object?["language_source"]?.string == "requested")
        return (json, out)
    }

    func local(_ text: String) throws -> LocalDate { LocalDate(try #require(Timestamp(rfc3339: text))) }

    @Test(.enabled(if: ExternalTool.available("epubcheck")), arguments: languages)
    func theEPUBSpeaksItsLanguage(tag: String) throws {
        let (summary, book) = try export("epub", tag, to: "book-\(tag).epub")
        let language = try BookLanguage(tag: tag)
        let (words, dates, esc) = (language.words, language.dates, XMLText.escape)
        let zip = try ZipArchive(book)
        let nav = zip.text("EPUB/nav.xhtml"), march = zip.text("EPUB/text/2025-03.xhtml")
        let june = zip.text("EPUB/text/2025-06.xhtml"), july = zip.text("EPUB/text/2025-07.xhtml")
        #expect(nav.contains("<h1 id=\"toc-title\">\(esc(words.text("contents")))</h1>"))
        #expect(nav.contains(">\(esc(dates.monthTitle(year: 2025, month: 3)))</a>"))
        #expect(march.contains("<h1 id=\"m-2025-03\">\(esc(dates.monthTitle(year: 2025, month: 3)))</h1>"))
        #expect(march.contains(">\(esc(dates.longDayAndTime(try local("2025-03-01T21:14:05+03:00"))))</time>"))
        // The untitled entry is headed by its day.
        #expect(june.contains(">\(esc(dates.longDay(try local("2025-06-21T00:00:00Z"))))</h2>"))
        #expect(july.contains(esc(words.text("voiceNoteLasting", ["duration": dates.duration(3)]))))
        let count = Int(summary.object?["entries"]?.number ?? 0)
        #expect(zip.text("EPUB/cover.xhtml").contains(esc(words.text("entries", count: count, formatted: dates.count(count)))))
        // The calendar's weeks start where the locale starts them.
        let calendar = zip.text("EPUB/text/calendar-2025.xhtml")
        let initial = "fill=\"#777\" text-anchor=\"middle\">"
        let first = try #require(calendar.range(of: initial)).upperBound
        #expect(calendar[first...].prefix { $0 != "<" } == esc(dates.weekdayInitials[dates.firstWeekday - 1]), "\(tag): weeks from \(dates.firstWeekday)")

        let opf = zip.text("EPUB/package.opf")
        #expect(opf.contains("<dc:language>\(tag)</dc:language>") && opf.contains("xml:lang=\"\(tag)\""))
        let rtl = tag == "ar"
        #expect(opf.contains("page-progression-direction=\"rtl\"") == rtl)
        for page in [nav, march, calendar] { #expect(page.contains("dir=\"\(rtl ? "rtl" : "ltr")\"")) }
        // Each entry keeps its own language and direction where the book's differ.
        let moscow = try #require(march.components(separatedBy: "<article").first { $0.contains("Вечер в Москве") })
        #expect(moscow.contains("lang=\"ru\"") == (tag != "ru"), "\(moscow.prefix(200))")
        #expect(moscow.contains("dir=\"ltr\"") == rtl)
        let library = try #require(june.components(separatedBy: "<article").first { $0.contains(VariedJournal.arabicTitle) })
        #expect(library.contains("lang=\"ar\"") == !rtl && library.contains("dir=\"rtl\"") == !rtl, "\(library.prefix(200))")

        // EPUBCheck on the right-to-left book and the CJK one (the others differ from the
        // English book EPUBExportTests checks only in their words).
        if tag == "ar" || tag == "ja" {
            let (problems, _) = try EPUBCheck.problems(book, dir: dir)
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    @Test(.enabled(if: PDFExportTests.readers), arguments: languages)
    func thePDFSpeaksItsLanguageAndAnArabicOneIsBoundOnTheRight(tag: String) throws {
        let (_, book) = try export("pdf", tag, to: "book-\(tag).pdf")
        let language = try BookLanguage(tag: tag)
        let (words, dates) = (language.words, language.dates)
        let raw = try ExternalTool.run("pdftotext", ["-enc", "UTF-8", book, "-"]).stdout
        // Lam-alef is one glyph that reads back as "لا" while the letters around it come back
        // in visual order: the pair counts as one letter either way round.
        func fold(_ letters: String) -> String { letters.replacingOccurrences(of: "لا", with: "#").replacingOccurrences(of: "ال", with: "#") }
        let text = PDFExportTests.flattened(raw), arabic = fold(PDFExportTests.arabicLetters(raw))
        for expected in [words.text("contents"), words.text("colophon"), dates.monthName(3), words.text("calendarLegend"),
                         dates.monthRange(from: (2023, 1), to: (2025, 7))] {
            if tag == "ar" {
                // Arabic comes back from the page in visual order: word by word, either way round.
                for word in expected.split(separator: " ").map({ PDFExportTests.arabicLetters(String($0)) }) where word.count > 1 {
                    #expect(arabic.contains(fold(word)) || arabic.contains(fold(String(word.reversed()))), "ar: missing \(word) of \(expected)")
                }
            } else {
                #expect(text.contains(PDFExportTests.flattened(expected)), "\(tag): missing \(expected)")
            }
        }
        let objects = try ExternalTool.run("qpdf", ["--json=2", "--json-key=qpdf", book]).stdout
        #expect(objects.contains("\"/Direction\": \"/R2L\"") == (tag == "ar"))
        #expect(try ExternalTool.run("qpdf", ["--check", book]).status == 0)
        // The folio of page 5 (the contents, a first page of a spread) is at the outer edge:
        // the right in a left-to-right book, the left in a right-to-left one.
        let boxes = try ExternalTool.run("pdftotext", ["-f", "5", "-l", "5", "-bbox", book, "-"]).stdout
        let folio = try #require(Self.words(boxes).max { $0.y < $1.y }, "no words on page 5")
        #expect(folio.text.contains(dates.number(5)))
        #expect((folio.x < 210) == (tag == "ar"), "\(tag): folio at \(folio.x)")
        // A right-to-left entry's transcript keeps its times on its own side (the right)
        // whatever the book's direction; a left-to-right one's stay on the left.
        let pages = try ExternalTool.run("pdftotext", ["-bbox", book, "-"]).stdout.components(separatedBy: "<page ").map(Self.words)
        func scripted(_ range: ClosedRange<UInt32>) -> (String) -> Bool { { $0.unicodeScalars.contains { range.contains($0.value) } } }
        var arabicTimeOnTheRight: Bool?, cyrillicTimeOnTheLeft: Bool?
        for page in pages {
            for time in page where time.text == dates.duration(0) {
                let line = page.filter { abs($0.y - time.y) < 4 && $0.text != time.text }
                let arabic = line.filter { scripted(0x0621...0x064A)($0.text) }.map(\.x)
                let cyrillic = line.filter { scripted(0x0400...0x04FF)($0.text) }.map(\.x)
                if let rightmost = arabic.max() { arabicTimeOnTheRight = time.x > rightmost }
                if let leftmost = cyrillic.min() { cyrillicTimeOnTheLeft = time.x < leftmost }
            }
        }
        #expect(arabicTimeOnTheRight == true, "\(tag): the Arabic transcript's time is on its right")
        #expect(cyrillicTimeOnTheLeft == true, "\(tag): the Russian transcript's time is on its left")
    }

    /// `<word xMin="…" yMin="…">text</word>` from `pdftotext -bbox`.
    static func words(_ html: String) -> [(text: String, x: Double, y: Double)] {
        html.components(separatedBy: "<word ").dropFirst().compactMap { chunk in
            func number(_ name: String) -> Double? {
                guard let start = chunk.range(of: name + "=\"") else { return nil }
                return Double(chunk[start.upperBound...].prefix { $0 != "\"" })
            }
            guard let x = number("xMin"), let y = number("yMin"), let close = chunk.range(of: "</word>"),
                  let open = chunk[..<close.lowerBound].firstIndex(of: ">") else { return nil }
            return (String(chunk[chunk.index(after: open)..<close.lowerBound]), x, y)
        }
    }

    /// The index and the prose dates speak the language; the front matter stays RFC 3339, so
    /// the export reads back as the same journal.
    @Test(arguments: ["es", "ja"])
    func theMarkdownExportSpeaksItsLanguageAndReadsBackTheSame(tag: String) throws {
        let (_, folder) = try export("markdown", tag, to: "md-\(tag)", ["--journal", "Travel"])
        let dates = try BookLanguage(tag: tag).dates
        let index = try String(contentsOfFile: folder + "/index.md", encoding: .utf8)
        let evening = try local("2025-03-01T21:14:05+03:00")
        #expect(index.contains("### " + dates.monthTitle(year: 2025, month: 3)), "\(index.prefix(300))")
        #expect(index.contains(" — " + dates.dayAndMonth(evening) + ", " + dates.clock(evening)), "\(index.prefix(300))")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder + "/2025/03")
        let name = try #require(names.first { $0.hasPrefix("2025-03-01") }, "\(names)")
        let note = try String(contentsOfFile: folder + "/2025/03/" + name, encoding: .utf8)
        #expect(note.contains("created: \"2025-03-01T21:14:05+03:00\""), "\(note.prefix(300))")
        #expect(note.contains("*" + dates.longDayAndTime(evening) + "*"), "\(note)")
        let copy = dir.path + "/copy-\(tag)"
        #expect(try QuireBinary.run(["import", "markdown", folder], store: copy).status == 0)
        #expect(try QuireBinary.run(["export", "json", dir.path + "/a-\(tag)", "--journal", "Travel"], store: store).status == 0)
        #expect(try QuireBinary.run(["export", "json", dir.path + "/b-\(tag)"], store: copy).status == 0)
        let a = try String(contentsOfFile: dir.path + "/a-\(tag)/entries.jsonl", encoding: .utf8)
        let b = try String(contentsOfFile: dir.path + "/b-\(tag)/entries.jsonl", encoding: .utf8)
        #expect(a == b)
    }

    /// The same `--lang` gives the same bytes whatever the machine's locale and time zone.
    @Test(arguments: ["epub", "pdf"])
    func theSameLanguageGivesTheSameBytesUnderAnyLocale(format: String) throws {
        let (_, first) = try export(format, "es", to: "one." + format, environment: ["LANG": "ru_RU.UTF-8", "TZ": "Asia/Tokyo"])
        let (_, second) = try export(format, "es", to: "two." + format, environment: ["LC_ALL": "ar_SA.UTF-8", "TZ": "Pacific/Kiritimati"])
        #expect(FileManager.default.contentsEqual(atPath: first, andPath: second))
    }

    /// Without `--lang`, the locale the environment names.
    @Test func withoutLangTheEnvironmentsLocaleIsTheBooks() throws {
        let out = dir.path + "/env.epub"
        let run = try QuireBinary.run(["export", "epub", out, "--json"], store: store, environment: ["LANG": "de_DE.UTF-8"])
        try #require(run.status == 0, "\(run.stderr)")
        let json = try JSONValue.parse(run.stdout)
        #expect(json.object?["language"]?.string == "de-DE" && json.object?["language_source"]?.string == "environment")
        #expect(try ZipArchive(out).text("EPUB/nav.xhtml").contains(BookWords(for: "de").text("contents")))
    }

    @Test func aLangThatIsNoLanguageIsAUsageError() throws {
        for (tag, words) in [("xx!", "is not a language tag"), ("tlh", "no month names or dates are known")] {
            let run = try QuireBinary.run(["export", "epub", dir.path + "/no.epub", "--lang", tag], store: store)
            #expect(run.status == 2 && run.stderr.contains(words), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/no.epub"))
        }
        let json = try QuireBinary.run(["export", "json", dir.path + "/j", "--lang", "ru"], store: store)
        #expect(json.status == 2 && json.stderr.contains("--lang applies to"))
    }
}
