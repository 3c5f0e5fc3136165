import Foundation
import QuireSupport

/// What an import did.
public struct ImportSummary: Sendable {
    /// Entries read from the source (added, updated and unchanged).
    package var lines = 0
    public var entriesAdded = 0
    public var entriesUpdated = 0
    public var entriesUnchanged = 0
    /// Attachments the imported entries hold.
    public var media = 0
    /// What the source referred to and did not hold, named (`2023-05-01 entry 1F3…: photos/ab12….jpeg`).
    public var missing: [String] = []
    /// Files of the source that are not entries and were passed over (a Markdown folder's other notes).
    public var skipped: [String] = []
}

/// Progress of long work: units done, and the total when known.
public typealias ProgressHandler = (_ done: Int64, _ total: Int64) -> Void

/// One attachment of an imported entry.
package struct ImportedMedia: Sendable {
    /// Its id; derived from the entry, its position and its bytes when nil.
    public var id: String?
    /// Guessed from `mime` when nil.
    public var kind: MediaKind?
    public var source: AttachmentSource
    public var filename: String
    public var mime: String
    public var duration: Double?
    /// The segments' text when nil.
    public var transcript: String?
    public var segments: [Segment]
    /// The engine and model of a machine draft ("" for a transcript of the user's own), and
    /// how far an unfinished one got.
    public var transcriber = ""
    public var transcribedTo: Double?

    public init(id: String? = nil, kind: MediaKind? = nil, source: AttachmentSource, filename: String, mime: String,
                duration: Double? = nil, transcript: String? = nil, segments: [Segment] = []) {
        self.id = id
        self.kind = kind
        self.source = source
        self.filename = filename
        self.mime = mime
        self.duration = duration
        self.transcript = transcript
        self.segments = segments
    }
}

/// One entry an importer read, ready for `Store.importEntries`.
package struct ImportedEntry: Sendable {
    /// The entry's fields (its `media` is ignored: `media` below replaces the stored list).
    public var entry: Entry
    /// When the source says when the entry last changed; nil keeps the stored time (or
    /// `created` for a new entry).
    public var modified: Timestamp?
    /// When true and the entry differs from the stored one, it is marked modified now rather
    /// than at `modified`: an edit made in a Markdown file is an edit made today.
    public var editedWhenChanged = false
    public var media: [ImportedMedia]

    public init(entry: Entry, modified: Timestamp?, media: [ImportedMedia], editedWhenChanged: Bool = false) {
        self.entry = entry
        self.modified = modified
        self.media = media
        self.editedWhenChanged = editedWhenChanged
    }
}

extension Store {
    /// Imports what `produce` hands to its `emit`, entry by entry, as one transaction: an
    /// error anywhere (thrown by `produce` or by the store) leaves the store exactly as it was,
    /// and blob files the import brought in are removed again. An entry whose id exists is
    /// updated with exactly the fields that differ, so importing the same source twice
    /// changes nothing and an edit syncs like any other. `journal` puts every entry in that
    /// journal. The same bytes named twice (by key) are read once.
    /// - Throws: what `produce` throws, `.fileUnreadable` for an attachment that cannot be read, `.invalid`.
    @discardableResult
    package func importEntries(journal: String? = nil,
                              _ produce: (_ emit: (ImportedEntry) throws -> Void) throws -> Void) throws -> ImportSummary {
        let journal = try journal.map { try Store.cleanName($0, what: "journal name") }
        var summary = ImportSummary()
        var blobCache: [String: BlobStore.Added] = [:]
        // An empty store (an archive's first import) has nothing another process could be
        // reading meanwhile: its pages are written once (`Database.withRollbackJournal`), and
        // its index is built beside its records (`Writer.sendSearchRowsAside`).
        let first = try database.cached("SELECT 1 FROM entries LIMIT 1").first([], { _ in true }) == nil
        // In a first import an entry exists only if this import wrote it: the hashes of the
        // ids written so far spare a lookup of each new one (a hash seen may be another id's,
        // which only costs that lookup). At 100,000 entries 0.2 s of the importing thread.
        var written: Set<Int>? = first ? [] : nil
        func importing() throws {
            // Under the rollback journal (no other connection has the store), the index built
            // beside the records goes in a file attached before the transaction (SQLite
            // attaches none inside one) and is copied in page by page, as a restore's is. The
            // transaction then begins deferred: `BEGIN IMMEDIATE` would lock the attached file
            // too, and the index's thread could not write it; the first write (the indexes
            // dropped below) takes the store.
            let scratch = try first && database.journalMode == "delete" ? ScratchIndexFile(in: folder) : nil
            let attached = scratch?.attach(to: database) == true
            defer {
                if attached { scratch?.detach(from: database) }
                scratch?.remove()
            }
            try write(deferred: attached) { writer in
                writer.searchScratch = attached ? scratch : nil
                writer.buildsSearchAside = try first && !searchDeferred()
                try database.withoutIndexes(first ? Self.indexesMadeAfterFirstImport : []) {
                    try produce { item in
                        var item = item
                        if let journal { item.entry.journal = journal }
                        try importEntry(item, writer: writer, summary: &summary, blobCache: &blobCache, written: &written)
                        try writer.sendSearchRowsAside()
                        summary.lines += 1
                    }
                }
            }
        }
        try first ? database.withRollbackJournal(importing) : importing()
        return summary
    }

    /// The indexes a first import makes once its rows are in (`Database.withoutIndexes`):
    /// none of them is read while it writes. Those it looks up by are kept up as it goes:
    /// entries by id, tags by entry, journals by name, media, and entries by journal (a new
    /// journal's row looks for entries that name it, its foreign key being deferred).
    static let indexesMadeAfterFirstImport = ["entries_by_created", "entries_by_local_time", "entry_tags_by_tag"]

    /// Imports a JSON-lines file (CLI.md, "Interchange"). Atomic: the whole file is one
    /// transaction, so a malformed line, a missing media file or any other error leaves the
    /// store exactly as it was (blob files this import brought in are removed again).
    /// Entries whose id exists are updated; importing the same file twice changes nothing.
    /// - Throws: `.malformed` with the line number, `.fileUnreadable`, `.invalid`.
    @discardableResult
    package func importJSONLines(at path: String, journal: String? = nil, progress: ProgressHandler? = nil) throws -> ImportSummary {
        let reader = try LineReader(path: path)
        let folder = PathText.parent(URL(fileURLWithPath: path).standardizedFileURL.path)
        let size = reader.size
        return try importEntries(journal: journal) { emit in
            // Lines are read and parsed on a thread of their own, up to 800 ahead of the
            // writing (a tenth of a large import's time, now beside it on the other core), and
            // handed over a hundred at a time: one wake-up each, not one a line.
            let batches = ReadAhead<[ParsedLine]>(depth: 8) { put in
                var number = 0, batch: [ParsedLine] = []
                batch.reserveCapacity(100)
                while try reader.next({ bytes in
                    number += 1
                    guard bytes.contains(where: { ![0x20, 0x09].contains($0) }) else { return }
                    let entry: ImportedEntry
                    do {
                        let value: JSONValue
                        do throws(JSONValue.ParseError) {
                            value = try JSONValue.parse(bytes)
                        } catch {
                            throw StoreError(.malformed, detail: "\(error.reason) at column \(error.offset + 1)")
                        }
                        entry = try InterchangeLine(value, folder: folder).imported
                    } catch let error as StoreError where error.line == nil {
                        throw Self.onLine(number, of: path, error)
                    }
                    batch.append(ParsedLine(number: number, entry: entry, bytesRead: reader.bytesRead))
                    if batch.count == 100 {
                        try put(batch)
                        batch.removeAll(keepingCapacity: true)
                    }
                }) {}
                if !batch.isEmpty { try put(batch) }
            }
            defer { batches.stop() }
            while let batch = try batches.next() {
                for line in batch {
                    do {
                        try emit(line.entry)
                    } catch let error as StoreError where error.line == nil {
                        throw Self.onLine(line.number, of: path, error)
                    }
                    if line.number % 1000 == 0 { progress?(line.bytesRead, size) }
                }
            }
            progress?(size, size)
        }
    }

    /// One line of a JSON-lines file, parsed.
    private struct ParsedLine: Sendable {
        var number: Int
        var entry: ImportedEntry
        /// How far the file was read when it was.
        var bytesRead: Int64
    }

    /// `error`, met on line `number` of `path`, as the import reports it.
    private static func onLine(_ number: Int, of path: String, _ error: StoreError) -> StoreError {
        let kind: StoreError.Kind = [.fileUnreadable, .io, .busy, .database].contains(error.kind) ? error.kind : .malformed
        return StoreError(kind, path: path, line: number, detail: error.description)
    }

    private func importEntry(_ item: ImportedEntry, writer: Writer, summary: inout ImportSummary,
                             blobCache: inout [String: BlobStore.Added], written: inout Set<Int>?) throws {
        var entry = item.entry
        let isNew = written?.insert(entry.id.hashValue).inserted ?? false
        let previous = isNew ? nil : try storedEntry(id: entry.id)
        entry.modified = item.modified ?? previous?.entry.modified ?? entry.created
        try writer.save(entry, previous: previous)
        if item.editedWhenChanged, let previous, writer.touchedSinceMark(), (item.modified ?? previous.entry.modified) == previous.entry.modified {
            entry.modified = Timestamp.now()
            try writer.save(entry, previous: try storedEntry(id: entry.id))
        }

        var kept = Set<String>()
        for (position, media) in item.media.enumerated() {
            let blob: BlobStore.Added
            if let cached = blobCache[media.source.key] {
                blob = cached
            } else {
                blob = try writer.addBlob(media.source)
                blobCache[media.source.key] = blob
            }
            let id = media.id ?? StableID.derived("media\u{0}\(entry.id)\u{0}\(position)\u{0}\(blob.id)")
            let transcript = media.transcript ?? Segment.transcript(of: media.segments)
            try Store.checkTimings(duration: media.duration, segments: media.segments)
            var record = Media(id: id, entryID: entry.id, position: position, kind: media.kind ?? MediaKind.guess(mime: media.mime),
                               blobID: blob.id, size: blob.size, filename: media.filename, mime: media.mime,
                               duration: media.duration, transcript: transcript, segments: media.segments,
                               transcriber: media.transcriber, transcribedTo: media.transcribedTo)
            let stored = try storedMedia(id: id)
            // A source with no transcript knows nothing of one: the draft `quire transcribe`
            // made here since the last import of it stays (a source that has one replaces it).
            if transcript.isEmpty, media.segments.isEmpty, media.transcriber.isEmpty, let machine = stored?.media, machine.hasMachineTranscript, stored?.deleted == false {
                (record.transcript, record.segments) = (machine.transcript, machine.segments)
                (record.transcriber, record.transcribedTo) = (machine.transcriber, machine.transcribedTo)
            }
            try writer.save(record, previous: stored)
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
