import Foundation
import QuireStore
import QuireSupport

/// One entry of a Day One journal file, read into Quire's terms.
struct DayOneEntry {
    let uuid: String
    let imported: ImportedEntry
    /// Media the text or the entry names and the export lacks (`photos/<md5>.jpeg`).
    var missing: [String] = []

    /// Each kind of moment: its list in the entry, its folder, the Quire kind, and the key
    /// naming its file type.
    private static let kinds: [(kind: DayOneText.Moment.Kind, list: String, folder: String, media: MediaKind, type: String)] = [
        (.photo, "photos", "photos", .photo, "type"),
        (.audio, "audios", "audios", .voice, "format"),
        (.video, "videos", "videos", .video, "type"),
        (.pdfAttachment, "pdfAttachments", "pdfs", .file, "type"),
    ]

    init(_ fields: JSONFields, journal: String, source: DayOneSource) throws {
        guard let uuid = try fields.string("uuid"), !uuid.isEmpty else { throw fields.error("\"uuid\" is missing") }
        self.uuid = uuid
        let id = StableID.derived("dayone\u{0}" + uuid.uppercased())
        let zone = try fields.string("timeZone").flatMap(TimeZone.init(identifier:)) ?? TimeZone(secondsFromGMT: 0) ?? .current
        guard let created = try Self.date(fields, "creationDate", zone: zone, required: true) else {
            throw fields.error("\"creationDate\" is missing")
        }
        let modified = try Self.date(fields, "modifiedDate", zone: zone, required: false)

        // Attachments, each under the identifier the text refers to it by.
        var byMoment: [String: (media: ImportedMedia, order: Int)] = [:]
        var missing: [String] = []
        var unlisted = Set<String>()
        for kind in Self.kinds {
            for (index, item) in try fields.objects(kind.list).enumerated() {
                guard let identifier = try item.string("identifier"), let md5 = try item.string("md5") else {
                    throw item.error("an attachment without \"identifier\" or \"md5\"")
                }
                var type = try item.string(kind.type) ?? (kind.kind == .audio ? "m4a" : kind.kind == .pdfAttachment ? "pdf" : "")
                if type == "aac" { type = "m4a" }
                guard let file = source.file(md5: md5, in: kind.folder) else {
                    missing.append(kind.folder + "/" + md5 + (type.isEmpty ? "" : "." + type))
                    unlisted.insert(kind.kind.rawValue + "/" + identifier)
                    continue
                }
                let fileName = (file.name as NSString).lastPathComponent
                let filename = try item.string("filename").flatMap { $0.isEmpty ? nil : $0 } ?? fileName
                var duration = try item.number("duration")
                if let d = duration, !(0...Media.maxSeconds).contains(d) || d == 0 { duration = nil }
                let transcript = try item.string("transcription") ?? item.string("transcript")
                // Only an order in reason: 1e300 is damage, and would trap as an Int.
                let order = try item.number("orderInEntry").flatMap { abs($0) < 1e9 ? Int($0) : nil } ?? index
                let media = ImportedMedia(id: StableID.derived("dayone\u{0}\(uuid.uppercased())\u{0}\(identifier)"), kind: kind.media,
                                          source: file.source, filename: filename, mime: MimeTypes.guess(filename: fileName),
                                          duration: duration, transcript: transcript)
                byMoment[kind.kind.rawValue + "/" + identifier] = (media, order)
            }
        }

        // The text: escapes gone, references made Quire's, in the order they appear.
        var referenced: [String] = []
        let text = DayOneText.replaceMoments(in: DayOneText.unescape(try fields.string("text") ?? "")) { moment in
            let key = moment.kind.rawValue + "/" + moment.identifier
            guard let found = byMoment[key], let mediaID = found.media.id else {
                if !unlisted.contains(key) { missing.append("\(moment.kind.rawValue) \(moment.identifier)") }
                return nil
            }
            if !referenced.contains(key) { referenced.append(key) }
            return MediaReference.target(mediaID)
        }
        var (title, body) = TitleLine.split(text)
        if let weather = try Self.weather(fields) {
            body += (body.isEmpty || body.hasSuffix("\n\n") ? "" : body.hasSuffix("\n") ? "\n" : "\n\n") + weather
        }
        let rest = byMoment.keys.filter { !referenced.contains($0) }.sorted { (byMoment[$0]?.order ?? 0, $0) < (byMoment[$1]?.order ?? 0, $1) }
        let media = (referenced + rest).compactMap { byMoment[$0]?.media }

        let entry = Entry(id: id, journal: journal, title: title, body: body, created: created, modified: modified ?? created,
                          tags: try fields.strings("tags").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty },
                          starred: try fields.bool("starred") ?? false, location: try Self.location(fields), media: [])
        imported = ImportedEntry(entry: entry, modified: modified ?? created, media: media)
        self.missing = missing
    }

    /// A UTC date from Day One, shown at the offset `zone` had at that instant.
    private static func date(_ fields: JSONFields, _ key: String, zone: TimeZone, required: Bool) throws -> Timestamp? {
        guard let text = try fields.string(key) else {
            if required { throw fields.error("\"\(key)\" is missing") }
            return nil
        }
        guard let utc = Timestamp(rfc3339: text) else { throw fields.error("\"\(key)\" \(TextSnippet.quoted(text)) is not a date") }
        let instant = Date(timeIntervalSince1970: Double(utc.microseconds) / 1_000_000)
        return Timestamp(microseconds: utc.microseconds, offsetSeconds: zone.secondsFromGMT(for: instant))
    }

    /// Coordinates, named by place, locality and country.
    private static func location(_ fields: JSONFields) throws -> Location? {
        guard let l = try fields.fields("location"), let lat = try l.number("latitude"), let lon = try l.number("longitude"),
              (-90...90).contains(lat), (-180...180).contains(lon) else { return nil }
        var parts: [String] = []
        for key in ["placeName", "localityName", "country"] {
            if let part = try l.string(key)?.trimmingCharacters(in: .whitespaces), !part.isEmpty, !parts.contains(part) { parts.append(part) }
        }
        return Location(latitude: lat, longitude: lon, name: parts.isEmpty ? nil : parts.joined(separator: ", "))
    }

    /// `Weather: Mostly Sunny, 26 °C`.
    private static func weather(_ fields: JSONFields) throws -> String? {
        guard let w = try fields.fields("weather") else { return nil }
        var parts: [String] = []
        if let conditions = try w.string("conditionsDescription"), !conditions.isEmpty { parts.append(conditions) }
        if let celsius = try w.number("temperatureCelsius"), abs(celsius) < 1000 { parts.append("\(Int(celsius.rounded())) °C") }
        return parts.isEmpty ? nil : "Weather: " + parts.joined(separator: ", ")
    }
}
