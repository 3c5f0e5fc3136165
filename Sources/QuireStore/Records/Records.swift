import Foundation
import QuireSupport

/// What kind of thing an attachment is.
public enum MediaKind: NamedCases, Sendable {
    case voice, photo, video, file

    package var name: String {
        switch self {
        case .voice: "voice"
        case .photo: "photo"
        case .video: "video"
        case .file: "file"
        }
    }

    /// A kind guessed from a MIME type, for attachments given without `--kind`.
    package static func guess(mime: String) -> MediaKind {
        if mime.hasPrefix("audio/") { return .voice }
        if mime.hasPrefix("image/") { return .photo }
        if mime.hasPrefix("video/") { return .video }
        return .file
    }
}

public struct Location: Equatable, Sendable {
    public var latitude: Double
    public var longitude: Double
    public var name: String?

    public init(latitude: Double, longitude: Double, name: String? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.name = name
    }
}

/// One timed piece of a transcript, in seconds from the start of the recording.
public struct Segment: Equatable, Sendable {
    public var start: Double
    public var end: Double
    public var text: String

    public init(start: Double, end: Double, text: String) {
        self.start = start
        self.end = end
        self.text = text
    }

    /// The transcript text of `segments`: their texts joined by single spaces.
    package static func transcript(of segments: [Segment]) -> String {
        segments.map(\.text).filter { !$0.isEmpty }.joined(separator: " ")
    }
}

/// An attachment of an entry: its bytes are blob `blobID` in the store's `blobs/`.
public struct Media: Equatable, Sendable {
    public var id: String
    public var entryID: String
    package var position: Int
    public var kind: MediaKind
    package var blobID: String
    public var size: Int64
    public var filename: String
    public var mime: String
    public var duration: Double?
    public var transcript: String
    public var segments: [Segment]
    /// Who wrote the transcript: empty for the user's own (typed, imported, from subtitles),
    /// else the engine and model of a machine draft (`Transcriber`), which the user may
    /// correct (and then it is the user's own, and this empty again).
    public var transcriber: String
    /// While a machine draft is unfinished: how far into the recording it got (seconds).
    public var transcribedTo: Double?

    /// Whether the transcript is a machine's draft, not the user's own words.
    package var hasMachineTranscript: Bool { !transcriber.isEmpty }

    package init(id: String, entryID: String, position: Int, kind: MediaKind, blobID: String, size: Int64,
                filename: String, mime: String, duration: Double?, transcript: String, segments: [Segment],
                transcriber: String = "", transcribedTo: Double? = nil) {
        self.id = id
        self.entryID = entryID
        self.position = position
        self.kind = kind
        self.blobID = blobID
        self.size = size
        self.filename = filename
        self.mime = mime
        self.duration = duration
        self.transcript = transcript
        self.segments = segments
        self.transcriber = transcriber
        self.transcribedTo = transcribedTo
    }
}

/// A journal entry with its tags and attachments.
public struct Entry: Equatable, Sendable {
    public var id: String
    public var journal: String
    public var title: String
    public var body: String
    public var created: Timestamp
    public var modified: Timestamp
    public var tags: [String]
    public var starred: Bool
    public var location: Location?
    public var media: [Media]

    package init(id: String, journal: String, title: String, body: String, created: Timestamp, modified: Timestamp,
                tags: [String], starred: Bool, location: Location?, media: [Media]) {
        self.id = id
        self.journal = journal
        self.title = title
        self.body = body
        self.created = created
        self.modified = modified
        self.tags = tags
        self.starred = starred
        self.location = location
        self.media = media
    }

    /// Whether the title shows anything: one of spaces, line or paragraph separators, control
    /// or format characters alone (a pasted U+2028, a lone zero-width joiner) heads an entry
    /// in a book as no title does, by its date; an EPUB's contents may not list an empty name.
    package var titleShows: Bool {
        title.unicodeScalars.contains { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate: return false
            default: return !scalar.properties.isWhitespace
            }
        }
    }

    /// The title, or the words of the first line of the body that has words, when there is
    /// none (Markdown marks, links' targets and images left out).
    public var displayTitle: String {
        if !title.isEmpty { return title }
        let firstLine = body.split(whereSeparator: \.isNewline).lazy.map(PlainText.line).first { !$0.isEmpty } ?? ""
        guard firstLine.count > 60 || firstLine.unicodeScalars.count > 240 else { return firstLine }
        // 59 characters, and 240 scalars at most: a letter under 50,000 accents is one character.
        var shown = "", characters = 0, scalars = 0
        for character in firstLine {
            let count = character.unicodeScalars.count
            guard characters < 59, scalars + count <= 240 else {
                if characters < 59 { shown.unicodeScalars.append(contentsOf: character.unicodeScalars.prefix(240 - scalars)) }
                break
            }
            shown.append(character)
            characters += 1
            scalars += count
        }
        return shown + "…"
    }
}

/// A concurrent write that lost on a text field, kept as a revision.
public struct Revision: Sendable {
    public var record: String
    public var recordID: String
    public var field: String
    public var value: String
    package var hlc: HLC
    public var device: String

    /// A name for it that a person can type (16 hex digits; any 8 or more of the first name
    /// it), the same on every device.
    public var id: String { String(SHA256.hex(of: key.text.utf8).prefix(16)) }

    var key: RevisionKey { RevisionKey(record: record, recordID: recordID, field: field, hlc: hlc, device: device) }
}

/// Kinds of synced records, as named in `field_clocks.record`.
package enum RecordKind: String, Sendable, CaseIterable {
    case journal, entry, media
    /// A machine's name as its owner gave it (`Store.setDeviceName`); its id is the device's UUID.
    case device
    /// A kept concurrent loser (immutable; id "<record>/<record id>/<field>/<hlc>/<device>").
    case revision
}

/// Which entries a listing or export covers.
public struct EntryFilter: Sendable {
    public var journals: [String] = []
    public var tags: [String] = []
    public var from: Timestamp?
    public var to: Timestamp?
    /// Only starred entries.
    public var starredOnly = false
    /// Only entries written on this day of the year, `MM-DD` at their own offset, in any year
    /// ("on this day": `EntryFilter.onThisDay()`).
    public var monthDay: String?

    /// True when the filter selects every entry.
    package var isEmpty: Bool { journals.isEmpty && tags.isEmpty && from == nil && to == nil && !starredOnly && monthDay == nil }

    public init(journals: [String] = [], tags: [String] = [], from: Timestamp? = nil, to: Timestamp? = nil) {
        self.journals = journals
        self.tags = tags
        self.from = from
        self.to = to
    }

    /// `MM-DD` of `date` in `zone`: the day "on this day" looks for in every year.
    package static func monthDay(of date: Date = Date(), in zone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.month, .day], from: date)
        return String(format: "%02d-%02d", parts.month ?? 1, parts.day ?? 1)
    }
}
