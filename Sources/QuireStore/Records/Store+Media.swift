import Foundation

/// A file to attach, with what is known about it.
public struct NewAttachment: Sendable {
    public var path: String
    public var kind: MediaKind?
    public var filename: String?
    public var mime: String?
    public var duration: Double?
    public var transcript: String
    public var segments: [Segment]

    public init(path: String, kind: MediaKind? = nil, filename: String? = nil, mime: String? = nil,
                duration: Double? = nil, transcript: String = "", segments: [Segment] = []) {
        self.path = path
        self.kind = kind
        self.filename = filename
        self.mime = mime
        self.duration = duration
        self.transcript = transcript
        self.segments = segments
    }
}

extension Store {
    /// Attaches a file to entry `entryID`, streaming its bytes into `blobs/` (stored once
    /// however often attached). The kind is guessed from the file's type when not given; a
    /// recording's duration is read from the file when not given (`MediaDuration`). The same
    /// bytes attached to the same entry again are not added twice: the attachment already
    /// there is returned, so a retried command changes nothing.
    /// - Throws: `.notFound` for an unknown entry, `.fileUnreadable` for a missing file,
    ///   `.invalid` for a negative duration or disordered segments.
    @discardableResult
    public func attach(to entryID: String, _ attachment: NewAttachment) throws -> Media {
        let filename = attachment.filename ?? (attachment.path as NSString).lastPathComponent
        let mime = attachment.mime ?? MimeTypes.guess(filename: filename)
        let kind = attachment.kind ?? MediaKind.guess(mime: mime)
        try Self.checkTimings(duration: attachment.duration, segments: attachment.segments)
        let duration = attachment.duration ?? (kind == .voice || kind == .video ? MediaDuration.of(file: attachment.path) : nil)
        return try write { writer in
            guard let entry = try storedEntry(id: entryID), !entry.deleted else {
                throw StoreError(.notFound, detail: "no entry with id \(entryID)")
            }
            let blob = try writer.addBlob(.file(.named(attachment.path)))
            if let already = entry.entry.media.first(where: { $0.blobID == blob.id }) { return already }
            let position = (entry.entry.media.map(\.position).max() ?? -1) + 1
            let transcript = attachment.segments.isEmpty ? attachment.transcript : Segment.transcript(of: attachment.segments)
            let media = Media(id: StableID.random(), entryID: entryID, position: position,
                              kind: kind, blobID: blob.id, size: blob.size,
                              filename: filename, mime: mime, duration: duration,
                              transcript: transcript, segments: attachment.segments)
            try writer.save(media, previous: nil)
            return media
        }
    }

    /// Replaces the transcript of attachment `mediaID`. With segments, the text is their
    /// texts joined; with plain text, any earlier segments are dropped. `transcriber` names
    /// the engine of a machine draft (empty: the user's own words, as every caller but
    /// `Transcriber` writes them); `transcribedTo`, how far an unfinished draft got.
    @discardableResult
    public func setTranscript(mediaID: String, text: String, segments: [Segment] = [],
                              transcriber: String = "", transcribedTo: Double? = nil) throws -> Media {
        try Self.checkTimings(duration: nil, segments: segments)
        return try write { writer in
            guard let stored = try storedMedia(id: mediaID), !stored.deleted else {
                throw StoreError(.notFound, detail: "no attachment with id \(mediaID)")
            }
            var media = stored.media
            media.segments = segments
            media.transcript = segments.isEmpty ? text : Segment.transcript(of: segments)
            media.transcriber = transcriber
            media.transcribedTo = transcribedTo
            try writer.save(media, previous: stored)
            return media
        }
    }

    static func checkTimings(duration: Double?, segments: [Segment]) throws {
        if let duration, !Media.isValidSeconds(duration) {
            throw StoreError(.invalid, detail: "duration must be a number of seconds from 0 to \(Int(Media.maxSeconds))")
        }
        for (i, s) in segments.enumerated() {
            guard Media.isValidSeconds(s.start), Media.isValidSeconds(s.end), s.end >= s.start else {
                throw StoreError(.invalid, detail: "segment \(i + 1) ends before it starts or has a time below 0 or above \(Int(Media.maxSeconds)) s")
            }
        }
    }
}

/// MIME types from file name extensions, for the formats a journal holds.
package enum MimeTypes {
    static let byExtension: [String: String] = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "heic": "image/heic", "heif": "image/heif", "svg": "image/svg+xml", "tif": "image/tiff", "tiff": "image/tiff",
        "m4a": "audio/mp4", "mp3": "audio/mpeg", "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/ogg; codecs=opus",
        "wav": "audio/wav", "flac": "audio/flac", "aac": "audio/aac", "amr": "audio/amr", "caf": "audio/x-caf",
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm", "mkv": "video/x-matroska",
        "pdf": "application/pdf", "txt": "text/plain", "md": "text/markdown", "json": "application/json",
    ]

    package static func guess(filename: String) -> String {
        let ext = (filename as NSString).pathExtension.lowercased()
        return byExtension[ext] ?? "application/octet-stream"
    }

    /// A file extension for `mime`, for naming exported files that lack one.
    package static func fileExtension(for mime: String) -> String? {
        byExtension.filter { $0.value == mime }.keys.sorted().first
    }
}

extension Media {
    /// The longest time a duration or transcript segment may name: about 31 years. Anything
    /// longer is damage or an attack (`1e300` from an import, a merge or an SRT hour field)
    /// and could not become whole seconds or milliseconds without trapping.
    package static let maxSeconds: Double = 1e9

    package static func isValidSeconds(_ seconds: Double?) -> Bool {
        guard let seconds else { return false }
        return seconds.isFinite && seconds >= 0 && seconds <= maxSeconds
    }

    /// Whole seconds for display, clamped to 0...maxSeconds: a value stored by an older Quire
    /// prints as the bound rather than trapping.
    package static func wholeSeconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int(min(seconds, maxSeconds).rounded(.down))
    }
}
