import QuireStore

/// What the `epub/entry.xhtml` template sees of one entry: every string already free of
/// characters XML forbids, the body already XHTML.
struct EntryData {
    let language: TextLanguage
    let value: MustacheValue

    /// - Parameters:
    ///   - anchor: the entry's id on its page (`e-<uuid>`).
    ///   - page: the page's path in the package (`text/2025-03.xhtml`), for overlays.
    ///   - entryLink: where another entry of the book is (`2025-03.xhtml#e-<id>`), or nil.
    init(_ entry: Entry, language: TextLanguage, anchor: String, book: BookLanguage, withAudio: Bool,
         entryLink: (String) -> String?, store: Store, assets: inout EPUBAssets, overlay: inout MediaOverlay) {
        let clean = XMLText.clean
        self.language = language
        let local = LocalDate(entry.created)
        let dates = book.dates
        // An untitled entry is headed by its date: its first line stays the start of its text,
        // not a heading repeated above it.
        let title = entry.titleShows ? entry.title : dates.longDay(local)
        var object: [String: MustacheValue] = [
            "id": .string(entry.id),
            "anchor": .string(anchor),
            "title": .string(clean(title)),
            // Below a date heading, the time alone (nothing for a date-only entry).
            "date": entry.titleShows ? .string(dates.longDayAndTime(local)) : (local.isDateOnly ? .null : .string(dates.clock(local))),
            "datetime": .string(entry.created.text),
            "journal": .string(clean(entry.journal)),
            "starred": .bool(entry.starred),
            "tags": .list(entry.tags.map { .string(clean($0)) }),
            "hasTags": .bool(!entry.tags.isEmpty),
        ]
        // Photos the text shows in place (`![](quire:media/<id>)`) are not shown again below;
        // a link to any attachment leads to it in the list.
        var shownInPlace = Set<String>()
        var assetsInPlace = assets
        var inBook = Set<String>()
        let rendered = MarkdownRenderer.html(entry.body) { id, isImage in
            guard let index = entry.media.firstIndex(where: { $0.id == id }) else { return nil }
            let item = entry.media[index]
            let format = assetsInPlace.format(of: item, store: store)
            guard isImage else {
                // A photo may be shown in place, with no place in the list to lead to.
                if item.kind == .photo && format.isCore { return nil }
                inBook.insert("#" + anchor + "-m\(index + 1)")
                return "#" + anchor + "-m\(index + 1)"
            }
            guard item.kind == .photo, format.isCore else { return nil }
            shownInPlace.insert(id)
            let src = "../" + assetsInPlace.asset(for: item, format: format, store: store).href
            inBook.insert(src)
            return src
        } entryLink: { id in
            guard let href = entryLink(id) else { return nil }
            inBook.insert(href)
            return href
        }
        assets = assetsInPlace
        let body = XHTMLPage.fragment(rendered, idPrefix: anchor + "-", headingShift: 2, inBook: inBook)
        object["body"] = .string(body)
        object["hasBody"] = .bool(!body.allSatisfy(\.isWhitespace))
        if let code = language.code, code != book.code, code != book.base { object["lang"] = .string(code) }
        if let direction = language.direction, direction != book.direction { object["dir"] = .string(direction) }
        if let location = entry.location {
            object["location"] = .object([
                "name": .string(clean(location.name ?? "")),
                "coordinates": .string(Self.coordinates(location)),
            ])
        }
        var media: [MustacheValue] = []
        for (index, item) in entry.media.enumerated() where !shownInPlace.contains(item.id) {
            media.append(Self.media(item, entryTitle: title, anchor: anchor + "-m\(index + 1)", book: book, withAudio: withAudio,
                                    store: store, assets: &assets, overlay: &overlay))
        }
        object["media"] = .list(media)
        value = .object(object)
    }

    /// `55.7539° N, 37.6208° E`.
    static func coordinates(_ location: Location) -> String {
        func part(_ value: Double, _ positive: String, _ negative: String) -> String {
            let rounded = (abs(value) * 10_000).rounded() / 10_000
            return "\(rounded)° " + (value < 0 ? negative : positive)
        }
        return part(location.latitude, "N", "S") + ", " + part(location.longitude, "E", "W")
    }

    private static func media(_ media: Media, entryTitle: String, anchor: String, book: BookLanguage, withAudio: Bool, store: Store,
                              assets: inout EPUBAssets, overlay: inout MediaOverlay) -> MustacheValue {
        let clean = XMLText.clean
        let (words, dates) = (book.words, book.dates)
        let format = assets.format(of: media, store: store)
        var object: [String: MustacheValue] = [
            "anchor": .string(anchor),
            "filename": .string(clean(media.filename)),
            "kind": .string(media.kind.name),
            "size": .string(ByteCount.text(media.size)),
        ]
        let duration = media.duration.flatMap { $0 > 0 ? dates.duration($0) : nil }
        if let duration { object["duration"] = .string(duration) }
        object["caption"] = .string(duration.map { words.text("voiceNoteLasting", ["duration": $0]) } ?? words.text("voiceNote"))
        let isImage = media.kind == .photo || (media.kind == .file && format.mediaType.hasPrefix("image/"))
        if isImage && format.isCore {
            let asset = assets.asset(for: media, format: format, store: store)
            object["isPhoto"] = .bool(true)
            object["src"] = .string("../" + asset.href)
            object["alt"] = .string(words.text("photoOf", ["title": entryTitle]))
        } else if media.kind == .voice || format.mediaType.hasPrefix("audio/") {
            object["isVoice"] = .bool(true)
            var segmentIDs: [String?] = Array(repeating: nil, count: media.segments.count)
            if withAudio && format.isCore {
                let asset = assets.asset(for: media, format: format, store: store)
                object["audio"] = .object(["src": .string("../" + asset.href), "type": .string(format.mediaType)])
                segmentIDs = overlay.add(segments: media.segments, audio: asset.href, idPrefix: anchor)
            } else if withAudio {
                object["note"] = .string(words.text("recordingLeftOut", ["format": format.name]))
            }
            object["segments"] = .list(zip(media.segments, segmentIDs).compactMap { segment, id in
                guard !segment.text.isEmpty else { return nil }
                var s: [String: MustacheValue] = ["time": .string(dates.duration(segment.start)), "text": .string(clean(segment.text))]
                if let id { s["cue"] = .string(id) }
                return .object(s)
            })
            if media.segments.isEmpty {
                object["paragraphs"] = .list(Transcript.paragraphs(media.transcript).map { .string(clean($0)) })
            }
        } else {
            object["isOther"] = .bool(true)
            object["note"] = .string(isImage ? words.text("imageLeftOut", ["format": format.name]) : words.text("leftOut"))
        }
        return .object(object)
    }
}
