import Foundation

/// What an import did.
public struct ImportSummary: Equatable, Sendable {
    public var lines = 0
    public var entriesAdded = 0
    public var entriesUpdated = 0
    public var entriesUnchanged = 0
    public var media = 0
}

/// Progress of long work: units done, and the total when known.
public typealias ProgressHandler = (_ done: Int64, _ total: Int64) -> Void

extension Store {
    /// Imports a JSON-lines file (CLI.md, "Interchange"). Atomic: the whole file is one
    /// transaction, so a malformed line, a missing media file or any other error leaves the
    /// store exactly as it was (blob files this import brought in are removed again).
    /// Entries whose id exists are updated; importing the same file twice changes nothing.
    /// - Throws: `.malformed` with the line number, `.fileUnreadable`, `.invalid`.
    @discardableResult
    public func importJSONLines(at path: String, progress: ProgressHandler? = nil) throws -> ImportSummary {
        let reader = try LineReader(path: path)
        let folder = PathText.parent(URL(fileURLWithPath: path).standardizedFileURL.path)
        var summary = ImportSummary()
        var blobCache: [SourceFile: BlobStore.Added] = [:]
        try write { writer in
            var lineNumber = 0
            while try reader.next({ bytes in
                lineNumber += 1
                guard bytes.contains(where: { ![0x20, 0x09].contains($0) }) else { return }
                do {
                    let value: JSONValue
                    do throws(JSONValue.ParseError) {
                        value = try JSONValue.parse(bytes)
                    } catch {
                        throw StoreError(.malformed, detail: "\(error.reason) at column \(error.offset + 1)")
                    }
                    let line = try InterchangeLine(value, folder: folder)
                    try importLine(line, writer: writer, summary: &summary, blobCache: &blobCache)
                    summary.lines += 1
                    if lineNumber % 1000 == 0 { progress?(reader.bytesRead, reader.size) }
                } catch let error as StoreError where error.line == nil {
                    let kind: StoreError.Kind = [.fileUnreadable, .io, .busy, .database].contains(error.kind) ? error.kind : .malformed
                    throw StoreError(kind, path: path, line: lineNumber, detail: error.description)
                }
            }) {}
            progress?(reader.size, reader.size)
        }
        return summary
    }

    private func importLine(_ line: InterchangeLine, writer: Writer, summary: inout ImportSummary,
                            blobCache: inout [SourceFile: BlobStore.Added]) throws {
        let previous = try storedEntry(id: line.id)
        var entry = line.entry
        if line.modified == nil { entry.modified = previous?.entry.modified ?? entry.created }
        try writer.save(entry, previous: previous)

        var kept = Set<String>()
        for (position, item) in line.media.enumerated() {
            let blob: BlobStore.Added
            if let cached = blobCache[item.source] {
                blob = cached
            } else {
                blob = try writer.addBlob(item.source)
                blobCache[item.source] = blob
            }
            let id = item.id ?? StableID.derived("media\u{0}\(entry.id)\u{0}\(position)\u{0}\(blob.id)")
            let transcript = item.transcript ?? Segment.transcript(of: item.segments)
            let media = Media(id: id, entryID: entry.id, position: position, kind: item.kind ?? MediaKind.guess(mime: item.mime),
                              blobID: blob.id, size: blob.size, filename: item.filename, mime: item.mime,
                              duration: item.duration, transcript: transcript, segments: item.segments)
            try writer.save(media, previous: try storedMedia(id: id))
            kept.insert(id)
            summary.media += 1
        }
        for old in previous?.entry.media ?? [] where !kept.contains(old.id) {
            try writer.deleteMedia(old.id)
        }
        if previous == nil {
            summary.entriesAdded += 1
        } else if writer.touchedSinceMark() {
            summary.entriesUpdated += 1
        } else {
            summary.entriesUnchanged += 1
        }
        writer.mark()
    }
}
