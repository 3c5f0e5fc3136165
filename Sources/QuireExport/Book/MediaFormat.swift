import Foundation
import QuireStore

/// What an attachment's bytes are, read from their first bytes rather than trusted from a
/// name or a MIME type, and whether EPUB 3.3 readers must support it (a core media type).
package struct MediaFormat: Equatable, Sendable {
    /// The media type to declare in a package (e.g. `audio/ogg; codecs=opus`).
    package let mediaType: String
    /// The file extension to use inside a book or an export.
    package let fileExtension: String
    /// True for EPUB core media types (images: jpeg, png, gif, webp, svg; audio: mp3, mp4, Ogg Opus).
    package let isCore: Bool
    /// A short human name, for notes such as "WAV audio is not embedded".
    package let name: String

    /// Sniffs the file at `path`; falls back to `declaredMime` for formats without a signature.
    package static func detect(path: String, declaredMime: String) -> MediaFormat {
        let head = Self.head(of: path, count: 64)
        let mime = declaredMime.lowercased()
        // A photo claiming more pixels than a book shows (`PageImage.maxPixels`) is carried
        // as a file, not shown: no reader should decode 20000×20000 pixels from 101 bytes.
        let shown = (PageImage.pixelCount(path) ?? 0) <= PageImage.maxPixels
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .init(mediaType: "image/png", fileExtension: "png", isCore: shown, name: "PNG") }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .init(mediaType: "image/jpeg", fileExtension: "jpg", isCore: shown, name: "JPEG") }
        if head.starts(with: Array("GIF8".utf8)) {
            let pixels = head.count >= 10 ? (Int(head[6]) | Int(head[7]) << 8) * (Int(head[8]) | Int(head[9]) << 8) : 0
            return .init(mediaType: "image/gif", fileExtension: "gif", isCore: pixels <= PageImage.maxPixels, name: "GIF")
        }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)) {
            let kind = String(decoding: head[8..<12], as: UTF8.self)
            if kind == "WEBP" { return .init(mediaType: "image/webp", fileExtension: "webp", isCore: true, name: "WebP") }
            if kind == "WAVE" { return .init(mediaType: "audio/wav", fileExtension: "wav", isCore: false, name: "WAV audio") }
        }
        if head.starts(with: Array("OggS".utf8)) {
            if contains(head, Array("OpusHead".utf8)) { return .init(mediaType: "audio/ogg; codecs=opus", fileExtension: "ogg", isCore: true, name: "Ogg Opus") }
            return .init(mediaType: "audio/ogg", fileExtension: "ogg", isCore: false, name: "Ogg Vorbis audio")
        }
        if head.starts(with: Array("ID3".utf8)) || (head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0 && head[1] & 0x06 != 0) {
            return .init(mediaType: "audio/mpeg", fileExtension: "mp3", isCore: true, name: "MP3")
        }
        if head.count >= 12, String(decoding: head[4..<8], as: UTF8.self) == "ftyp" {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["heic", "heix", "mif1", "msf1", "heis", "hevc"].contains(brand) { return .init(mediaType: "image/heic", fileExtension: "heic", isCore: false, name: "HEIC") }
            if mime.hasPrefix("video/") || ["qt  ", "isom", "mp41", "mp42", "avc1"].contains(brand) && !mime.hasPrefix("audio/") {
                return .init(mediaType: "video/mp4", fileExtension: "mp4", isCore: false, name: "video")
            }
            return .init(mediaType: "audio/mp4", fileExtension: "m4a", isCore: true, name: "M4A")
        }
        if head.starts(with: Array("fLaC".utf8)) { return .init(mediaType: "audio/flac", fileExtension: "flac", isCore: false, name: "FLAC audio") }
        if mime == "image/svg+xml" { return .init(mediaType: "image/svg+xml", fileExtension: "svg", isCore: true, name: "SVG") }
        let ext = MimeTypes.fileExtension(for: mime) ?? "bin"
        return .init(mediaType: mime.isEmpty ? "application/octet-stream" : mime, fileExtension: ext, isCore: false, name: mime.isEmpty ? "file" : mime)
    }

    static func head(of path: String, count: Int) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: count)).map { [UInt8]($0) } ?? []
    }

    static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard bytes.count >= needle.count else { return false }
        for start in 0...(bytes.count - needle.count) where bytes[start..<(start + needle.count)].elementsEqual(needle) { return true }
        return false
    }
}
