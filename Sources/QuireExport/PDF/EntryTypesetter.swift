import Foundation
import QuireStore

/// Makes one entry's script for the page flow (`EntryScript`): its heading (title, or its
/// date where it has none), a line of date, time, tags and place, the body from cmark-gfm's
/// tree, the photos it does not show in place, and each voice note as its transcript with
/// the times of its segments. Runs ahead of the pages, on its own thread (`BookSetter`).
struct EntryTypesetter {
    /// Where paragraphs are laid out.
    let block: TextBlock
    let store: Store
    let book: BookLanguage
    let withPhotos: Bool
    /// The book's entries, for links between them and to each one's heading.
    let entries: EntryIndex
    /// Whether each heading is also a named place, for the outline's entries.
    let namesEntries: Bool
    let hyphenator: (String) -> Hyphenator?

    /// The script being made.
    private var script: EntryScript
    /// The indent of the paragraph just set, while nothing else has followed it: the next
    /// paragraph at that indent is marked by a first-line indent, anything else by a space.
    private var afterParagraph: Double?
    /// The book's body size, points.
    private var size: Double { block.geometry.bodySize }

    init(block: TextBlock, store: Store, book: BookLanguage, withPhotos: Bool, entries: EntryIndex, namesEntries: Bool,
         hyphenator: @escaping (String) -> Hyphenator?) {
        (self.block, self.store, self.book, self.withPhotos) = (block, store, book, withPhotos)
        script = EntryScript(block: block, id: "", outlineTitle: "", rightToLeft: false)
        (self.entries, self.namesEntries, self.hyphenator) = (entries, namesEntries, hyphenator)
    }

    /// The script of `entry`, its heading the place links to it lead (and named `e-<id>`
    /// where the outline lists entries).
    mutating func script(for entry: Entry) -> EntryScript {
        let told = TextLanguage(of: entry)
        let language = told.code ?? book.code
        let local = LocalDate(entry.created), dates = book.dates
        script = EntryScript(block: block, id: entry.id, outlineTitle: entry.titleShows ? entry.title : dates.longDayAndTime(local),
                             rightToLeft: (told.direction ?? book.direction) == "rtl")
        let hyphens = hyphenator(language)
        // Leading is a factor of the font's own line height (`BookStyle`).
        var body = TextStyle(font: BookFonts.serif(language), size: size, leading: BookStyle.bodyLeading, justify: true, language: language)
        body.language = language

        var heading = TextStyle(font: BookFonts.heading(language), size: size * (BookFonts.isCJK(language) ? BookStyle.entryTitleCJK : BookStyle.entryTitle),
                                leading: BookStyle.entryTitleLeading, language: language)
        heading.language = language
        script.space(size * BookStyle.spaceBeforeEntry)
        let title = entry.titleShows ? entry.title : dates.longDay(local)
        script.paragraph(StyledText(title, language: language), style: heading, .init(keepWithNext: true, destination: namesEntries ? "e-" + entry.id : nil, entry: entries.number(of: entry.id)))

        // The date line runs the entry's way, though it starts with the book's words and digits.
        let direction = told.direction ?? book.direction
        var meta = StyledText(direction == "rtl" ? "\u{200F}" : direction != book.direction ? "\u{200E}" : "")
        let lead = meta.byteCount
        meta.append(entry.titleShows ? dates.longDayAndTime(local) : (local.isDateOnly ? "" : dates.clock(local)))
        func separator() -> String { meta.byteCount > lead ? "  ·  " : "" }
        if entry.starred { meta.append(meta.byteCount > lead ? "  ★" : "★") }
        if !entry.tags.isEmpty { meta.append(separator() + Self.tagList(entry.tags)) }
        if let location = entry.location {
            meta.append(separator() + (location.name.flatMap { $0.isEmpty ? nil : $0 } ?? EntryData.coordinates(location)))
        }
        if meta.byteCount > lead {
            script.space(size * BookStyle.spaceBeforeDateLine)
            let style = TextStyle(font: BookFonts.label(language), size: size * BookStyle.label, leading: BookStyle.dateLineLeading, language: language)
            script.paragraph(meta, style: style, .init(keepWithNext: true, gray: BookStyle.labelGray))
        }
        script.space(size * BookStyle.spaceAfterDateLine)

        var shownInPlace = Set<String>()
        let entries = self.entries  // for the closures below, without the whole typesetter
        let blocks = MarkdownRenderer.blocks(entry.body) { id, isImage in
            guard let index = entry.media.firstIndex(where: { $0.id == id }) else { return nil }
            guard isImage, entry.media[index].kind == .photo else { return nil }
            shownInPlace.insert(id)
            return "quire-photo:\(index)"
        } entryLink: { id in
            entries.number(of: id) == nil ? nil : "quire-entry:" + id
        }
        var inlines = InlineSetter(hyphens: hyphens, entryTarget: { entries.number(of: $0).map { .entry($0) } }, language: language)
        afterParagraph = nil
        for block in blocks { set(block, entry: entry, body: body, inlines: &inlines, indent: 0) }
        endParagraph()

        for item in entry.media where !shownInPlace.contains(item.id) {
            set(item, language: language, body: body, inlines: inlines)
        }
        // Which fonts are missing is worked out for the rare entry that lacks some.
        if script.unknownGlyphs > 0 { script.fontPackage = Self.fontPackage(for: entry, told: told) }
        return script
    }

    /// Tags as the date line shows them, each isolated for bidi (FSI … PDI) so its mark
    /// stays in front of it whatever the line's direction: "#family" in an Arabic line, not
    /// "family#".
    static func tagList(_ tags: [String]) -> String {
        tags.map { "\u{2068}#" + $0 + "\u{2069}" }.joined(separator: " ")
    }

    /// The Debian package whose fonts an entry's script needs.
    static func fontPackage(for entry: Entry, told: TextLanguage) -> String {
        if (entry.title + entry.body).unicodeScalars.contains(where: { $0.properties.isEmojiPresentation }) { return "fonts-noto-color-emoji" }
        switch told.code {
        case "ja", "zh", "ko": return "fonts-noto-cjk"
        default: return "fonts-noto-core"
        }
    }

    // MARK: Blocks

    private mutating func set(_ block: MarkdownBlock, entry: Entry, body: TextStyle, inlines: inout InlineSetter, indent: Double,
                              marker: StyledText? = nil, bar: Bool = false) {
        var decoration = PageFlow.Decoration(indent: indent, bar: bar)
        decoration.marker = marker
        decoration.markerStyle = body
        var follows = false
        if case .paragraph = block, marker == nil, afterParagraph == indent { follows = true } else { endParagraph() }
        afterParagraph = nil
        switch block {
        case .paragraph(let content):
            // Paragraphs are marked as in a book: the first flush, each one after it indented
            // by an em with no space between (a space would fall at the foot of a page unseen,
            // and a journal's one-line paragraphs would look like a list); a space stays
            // between a paragraph and a list, quote, heading or photo.
            var style = body
            if follows { style.indent = size }
            // A photo inside a paragraph stands between the text before and after it.
            for piece in inlines.pieces(content) {
                switch piece {
                case .text(var text):
                    text.trimEnd()
                    script.paragraph(text, style: style, decoration)
                    decoration.marker = nil
                case .photo(let index):
                    if index < entry.media.count { photo(entry.media[index]) }
                }
                style.indent = 0
            }
            if let marker = decoration.marker { script.paragraph(marker, style: body, PageFlow.Decoration(indent: indent)) }
            afterParagraph = indent
        case .heading(let level, let content):
            var style = body
            style.font = BookFonts.heading(body.language)
            style.size = size * BookStyle.heading(level: level)
            style.justify = false
            script.space(size * BookStyle.spaceBeforeHeading)
            let text = inlines.text(content)
            script.paragraph(text, style: style, PageFlow.Decoration(indent: indent, keepWithNext: true))
            script.space(size * BookStyle.spaceAfterHeading)
        case .quote(let children):
            for child in children { set(child, entry: entry, body: body, inlines: &inlines, indent: indent + BookStyle.quoteIndent, bar: true) }
        case .callout(_, let title, let children):
            // As Obsidian shows one: a barred block under its title in bold.
            var heading = body
            heading.justify = false
            var text = StyledText(language: body.language)
            text.styled(.bold) { $0.append(inlines.text(title)) }
            script.paragraph(text, style: heading, PageFlow.Decoration(indent: indent + BookStyle.quoteIndent, bar: true, keepWithNext: true))
            for child in children { set(child, entry: entry, body: body, inlines: &inlines, indent: indent + BookStyle.quoteIndent, bar: true) }
        case .code(let code):
            var style = body
            style.font = "Noto Sans Mono, DejaVu Sans Mono, monospace"
            style.size = size * BookStyle.code
            style.justify = false
            style.leading = BookStyle.codeLeading
            script.paragraph(StyledText(code, language: body.language), style: style, PageFlow.Decoration(indent: indent + BookStyle.codeIndent, ground: true))
            script.space(size * BookStyle.spaceAfterCode)
        case .rule:
            script.rule()
        case .list(let ordered, let start, let items):
            for (number, item) in items.enumerated() {
                let label: String
                if let checked = item.checked { label = checked ? "☑" : "☐" } else { label = ordered ? "\(start + number)." : "•" }
                var first = true
                for child in item.blocks {
                    set(child, entry: entry, body: body, inlines: &inlines, indent: indent + size * BookStyle.listIndent,
                            marker: first ? StyledText(label) : nil, bar: bar)
                    first = false
                }
                if item.blocks.isEmpty { script.paragraph(StyledText(label), style: body, PageFlow.Decoration(indent: indent)) }
            }
        case .table(let rows, let headerRows):
            var style = body
            style.size = size * BookStyle.table
            for (index, row) in rows.enumerated() {
                script.row(row.map { inlines.text($0) }, style: style, header: index < headerRows)
            }
            script.space(size * BookStyle.spaceAfterTable)
        case .footnote(let label, let children):
            var first = true
            var small = body
            small.size = size * BookStyle.footnote
            for child in children {
                set(child, entry: entry, body: small, inlines: &inlines, indent: indent + size * BookStyle.listIndent,
                        marker: first ? StyledText(label + ".") : nil)
                first = false
            }
        }
    }

    /// The space after a paragraph that nothing has followed yet.
    private mutating func endParagraph() {
        guard afterParagraph != nil else { return }
        afterParagraph = nil
        script.space(size * BookStyle.spaceAfterParagraph)
    }

    // MARK: Attachments

    private mutating func photo(_ media: Media) {
        guard withPhotos else { return }
        let path = store.blobs.path(for: media.blobID)
        guard let image = PageImage(path: path) else {
            script.leftOut.append(media.filename)
            return
        }
        script.space(size * BookStyle.spaceBeforePhoto)
        script.photo(image, name: media.filename)
        script.space(size * BookStyle.spaceAfterPhoto)
    }

    private mutating func set(_ media: Media, language: String, body: TextStyle, inlines: InlineSetter) {
        let isVoice = media.kind == .voice || media.mime.hasPrefix("audio/")
        if media.kind == .photo || (media.kind == .file && media.mime.hasPrefix("image/")) {
            return photo(media)
        }
        var label = body
        label.font = BookFonts.label(language)
        label.size = size * BookStyle.label
        label.justify = false
        let words = book.words, dates = book.dates
        var caption = StyledText(isVoice ? words.text("voiceNote") : words.text("attachment") + ": " + media.filename, language: language)
        if let duration = media.duration, duration > 0 { caption.append(" · " + dates.duration(duration)) }
        if !isVoice { caption.append(" · " + ByteCount.text(media.size)) }
        script.space(size * BookStyle.spaceBeforeAttachment)
        script.paragraph(caption, style: label, .init(keepWithNext: isVoice, gray: BookStyle.labelGray))
        guard isVoice else { return }
        script.recordings += 1
        script.space(size * BookStyle.spaceBeforeTranscript)
        let texts = media.segments.filter { !$0.text.isEmpty }
        if texts.isEmpty {
            for paragraph in Transcript.paragraphs(media.transcript) {
                script.paragraph(inlines.plain(paragraph), style: body)
                script.space(size * BookStyle.spaceAfterTranscriptParagraph)
            }
        } else {
            var time = label
            time.alignment = .end
            for segment in texts {
                var decoration = PageFlow.Decoration(indent: size * BookStyle.transcriptTimeIndent)
                decoration.marker = StyledText(dates.duration(segment.start))
                decoration.markerStyle = time
                script.paragraph(inlines.plain(segment.text), style: body, decoration)
                script.space(size * BookStyle.spaceAfterSegment)
            }
        }
        script.space(size * BookStyle.spaceAfterAttachment)
    }
}

/// Inline Markdown into styled text: emphasis, strong, code, strikethrough, links (to the web
/// or to another entry of the book), hyphenated by the entry's language.
struct InlineSetter {
    enum Piece {
        case text(StyledText)
        case photo(Int)
    }

    let hyphens: Hyphenator?
    let entryTarget: (String) -> PDFCanvas.Target?
    let language: String

    func plain(_ text: String) -> StyledText { StyledText(hyphens?.hyphenate(text) ?? text, language: language) }

    /// The inlines as text, images dropped.
    func text(_ inlines: [MarkdownInline]) -> StyledText {
        var result = StyledText(language: language)
        append(inlines, to: &result, photo: nil)
        return result
    }

    /// The inlines cut where a photo stands.
    func pieces(_ inlines: [MarkdownInline]) -> [Piece] {
        var pieces: [Piece] = []
        var current = StyledText(language: language)
        append(inlines, to: &current) { before, index in
            pieces.append(.text(before))
            pieces.append(.photo(index))
        }
        pieces.append(.text(current))
        return pieces.filter { if case .text(let t) = $0 { return !t.text.allSatisfy(\.isWhitespace) } else { return true } }
    }

    /// Appends `inlines`; at a photo, hands the text before it and the photo to `photo`
    /// and goes on with an empty text (without `photo`, the photo is left out). `hyphenated`
    /// is false inside a link that shows an address: a hyphen put into one changes it.
    private func append(_ inlines: [MarkdownInline], to text: inout StyledText, photo: ((StyledText, Int) -> Void)?, hyphenated: Bool = true) {
        for inline in inlines {
            switch inline {
            case .text(let t): text.append(hyphenated ? hyphens?.hyphenate(t) ?? t : t)
            case .code(let t): text.append(t, style: .mono)
            case .emphasis(let c): text.styled(.italic) { append(c, to: &$0, photo: photo, hyphenated: hyphenated) }
            case .strong(let c): text.styled(.bold) { append(c, to: &$0, photo: photo, hyphenated: hyphenated) }
            case .strikethrough(let c): text.styled(.strike) { append(c, to: &$0, photo: photo, hyphenated: hyphenated) }
            case .highlight(let c): text.styled(.highlight) { append(c, to: &$0, photo: photo, hyphenated: hyphenated) }
            case .link(let url, let c):
                let address = Self.showsAnAddress(PlainInline.text(c))
                let words = { (text: inout StyledText) in
                    if address { text.styled(.address) { append(c, to: &$0, photo: photo, hyphenated: false) } }
                    else { append(c, to: &text, photo: photo, hyphenated: hyphenated) }
                }
                if let target = target(of: url) { text.linked(target, words) } else { words(&text) }
            case .image(let url, let alt):
                if url.hasPrefix("quire-photo:"), let index = Int(url.dropFirst("quire-photo:".count)) {
                    if let photo {
                        photo(text, index)
                        text = StyledText(language: language)
                    }
                } else if !alt.isEmpty {
                    text.append("[" + alt + "]", style: .gray)
                }
            case .footnoteReference(let number): text.append(number, style: .superscript)
            case .softBreak: text.append(" ")
            case .lineBreak: text.append("\u{2028}")
            }
        }
    }

    /// Whether a link's words are an address (`https://…`, `www.…`, `anna@example.org`, a
    /// path): one run without spaces holding `/`, `@` or a dot inside.
    static func showsAnAddress(_ words: String) -> Bool {
        guard !words.isEmpty, !words.contains(where: \.isWhitespace) else { return false }
        return words.contains("/") || words.contains("@") || words.dropLast().contains(".")
    }

    private func target(of url: String) -> PDFCanvas.Target? {
        if url.hasPrefix("quire-entry:") { return entryTarget(String(url.dropFirst("quire-entry:".count))) }
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("mailto:") else { return nil }
        return .uri(url)
    }
}
