import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What an export wrote.
public struct ExportSummary: Sendable {
    public var entries = 0
    public var mediaFiles = 0
}

extension Store {
    /// Writes the canonical dump: `OUTDIR/entries.jsonl` (entries sorted by created instant,
    /// then id; keys in a fixed order) and each attachment once as `OUTDIR/media/<sha256>.<ext>`.
    /// Two stores hold the same journal exactly when their dumps are byte-identical.
    /// `entries.jsonl` is written to a temporary file and renamed, so it is never half there.
    @discardableResult
    package func exportJSON(to outdir: String, filter: EntryFilter = EntryFilter(), progress: ProgressHandler? = nil) throws -> ExportSummary {
        let mediaFolder = outdir + "/media"
        // A dump that fails (a full disk) into a folder it made takes the folder with it; into
        // one that was there, the attachments copied stay and the same command goes on from them.
        let isNew = !FileManager.default.fileExists(atPath: outdir)
        var finished = false
        defer { if isNew && !finished { try? FileManager.default.removeItem(atPath: outdir) } }
        try FileIO.makeFolder(mediaFolder)
        let target = outdir + "/entries.jsonl"
        let temp = outdir + "/.entries.jsonl.tmp-" + StableID.random()
        // 0600: the dump is the journal in plaintext.
        guard FileManager.default.createFile(atPath: temp, contents: nil, attributes: [.posixPermissions: 0o600]),
              let out = FileHandle(forWritingAtPath: temp) else {
            throw StoreError(.io, path: target, detail: "cannot write")
        }
        var summary = ExportSummary()
        let total = Int64(try entryCount())
        var pending: [UInt8] = []
        do {
            try forEachEntry(matching: filter) { entry in
                var line = JSONWriter()
                try Self.writeLine(entry, into: &line) { media in
                    let name = "media/" + media.blobID + Self.exportExtension(for: media)
                    if try copyBlobIfNeeded(media, to: outdir + "/" + name) { summary.mediaFiles += 1 }
                    return name
                }
                line.raw("\n")
                pending.append(contentsOf: line.output)
                if pending.count > 1 << 20 {
                    try out.write(contentsOf: pending)
                    pending.removeAll(keepingCapacity: true)
                }
                summary.entries += 1
                if summary.entries % 1000 == 0 { progress?(Int64(summary.entries), total) }
            }
            try out.write(contentsOf: pending)
            try out.synchronize()
            try out.close()
        } catch {
            try? out.close()
            unlink(temp)
            throw (error as? StoreError) ?? StoreError(.io, path: target, detail: FileIO.reason(of: error))
        }
        guard rename(temp, target) == 0 else {
            let reason = FileIO.errnoText()
            unlink(temp)
            throw StoreError(.io, path: target, detail: reason)
        }
        FileIO.syncFolder(outdir)
        progress?(total, total)
        finished = true
        return summary
    }

    /// An entry in the interchange shape, with each attachment's `path` pointing at its blob
    /// file inside this store (for `show --json` and `list --json`).
    package func json(of entry: Entry) -> String {
        var w = JSONWriter()
        try? Self.writeLine(entry, into: &w) { blobs.path(for: $0.blobID) }
        return w.text
    }

    /// Copies a blob out unless an identical-size file is there already; true if copied.
    private func copyBlobIfNeeded(_ media: Media, to path: String) throws -> Bool {
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
           (attributes[.size] as? NSNumber)?.int64Value == media.size {
            return false
        }
        try FileIO.copyAtomically(from: blobs.path(for: media.blobID), to: path)
        return true
    }

    /// `.ext` from the original file name (letters and digits only), else from the MIME type.
    static func exportExtension(for media: Media) -> String {
        let ext = (media.filename as NSString).pathExtension.lowercased()
        if !ext.isEmpty, ext.count <= 10, ext.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }) {
            return "." + ext
        }
        return MimeTypes.fileExtension(for: media.mime).map { "." + $0 } ?? ""
    }

    /// One entry as an interchange line, keys in the documented order; `path(media)` names
    /// (and writes) each attachment's file.
    static func writeLine(_ entry: Entry, into w: inout JSONWriter, path: (Media) throws -> String) throws {
        var paths: [String] = []
        for media in entry.media { paths.append(try path(media)) }
        w.object { o in
            o.string("id", entry.id)
            o.string("journal", entry.journal)
            o.string("created", entry.created.text)
            o.string("modified", entry.modified.text)
            o.string("title", entry.title)
            o.string("body", entry.body)
            o.key("tags")
            o.json.array(entry.tags) { w, tag in w.string(tag) }
            o.bool("starred", entry.starred)
            o.key("location")
            if let location = entry.location {
                o.json.object { l in
                    l.number("lat", location.latitude)
                    l.number("lon", location.longitude)
                    l.key("name")
                    if let name = location.name { l.json.string(name) } else { l.json.raw("null") }
                }
            } else {
                o.json.raw("null")
            }
            o.key("media")
            o.json.array(Array(zip(entry.media, paths))) { w, pair in
                let (media, path) = pair
                w.object { m in
                    m.string("id", media.id)
                    m.string("kind", media.kind.name)
                    m.string("path", path)
                    m.string("filename", media.filename)
                    m.string("mime", media.mime)
                    m.number("duration", media.duration)
                    m.string("transcript", media.transcript)
                    m.key("segments")
                    m.json.raw(JSONWriter.segments(media.segments))
                    // A machine draft says so (absent otherwise, so older dumps stay as they were).
                    if media.hasMachineTranscript {
                        m.string("transcriber", media.transcriber)
                        if let reached = media.transcribedTo { m.number("transcribed_to", reached) }
                    }
                }
            }
        }
    }
}
