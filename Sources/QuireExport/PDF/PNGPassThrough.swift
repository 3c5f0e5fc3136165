import Foundation

/// Puts PNG photos into a finished PDF as their own compressed pixels. Cairo cannot take a
/// PNG's data as it is (only a JPEG's), so each such photo is drawn as a stand-in JPEG of
/// its size (`PNGStream.standIn`), which cairo embeds byte for byte; this finds every
/// stand-in, checks it is exactly the one made for that photo, and rewrites its image object
/// in one incremental update (PDF 1.7 § 7.5.6) as FlateDecode with PNG's predictors.
/// The file is read in chunks and each photo copied from its file: memory stays small.
enum PNGPassThrough {
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { "cannot embed the PNG photos: " + reason }
    }

    /// - Parameter marker: what every stand-in's comment starts with (then the photo's index and `;`).
    static func embed(_ images: [PNGStream], marker: String, in path: String) throws {
        guard !images.isEmpty else { return }
        guard let handle = FileHandle(forUpdatingAtPath: path) else { throw Failure(reason: "cannot open the book") }
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        var replaced: [(number: Int, index: Int, interpolate: Bool)] = []
        for hit in try find(Array(marker.utf8), in: handle, size: size) {
            guard let found = try standIn(at: hit, marker: marker, images: images, handle: handle) else { continue }
            replaced.append(found)
        }
        // Every photo drawn must have been found: a cairo that writes its stand-ins otherwise
        // would ship pages with the grey stand-in where the photo should be, unsaid.
        let found = Set(replaced.map(\.index))
        if let missing = images.indices.first(where: { !found.contains($0) }) {
            throw Failure(reason: "PNG photo \(missing + 1) of \(images.count) was not where cairo should have put it; "
                          + "this cairo writes images in a way Quire does not know")
        }
        let last = try PageOrder.trailer(handle, size: size)
        try handle.seekToEnd()
        var offset = size, entries: [(number: Int, offset: UInt64)] = []
        for item in replaced {
            let image = images[item.index]
            let head = Data(("\n\(item.number) 0 obj\n" + image.dictionary(interpolate: item.interpolate) + "\nstream\n").utf8)
            entries.append((item.number, offset + 1))
            try handle.write(contentsOf: head)
            try image.copy(to: handle)
            let tail = Data("\nendstream\nendobj\n".utf8)
            try handle.write(contentsOf: tail)
            offset += UInt64(head.count + image.length + tail.count)
        }
        try handle.write(contentsOf: Data(PageOrder.closing(entries, at: offset, after: last).utf8))
    }

    /// The offsets of every occurrence of `marker` in the file, read 8 MiB at a time.
    private static func find(_ marker: [UInt8], in handle: FileHandle, size: UInt64) throws -> [UInt64] {
        let chunk = 8 << 20, overlap = UInt64(marker.count)
        var hits: [UInt64] = [], start: UInt64 = 0
        while start < size {
            try handle.seek(toOffset: start)
            guard let data = try handle.read(upToCount: chunk), !data.isEmpty else { break }
            data.withUnsafeBytes { raw in
                guard let base = raw.bindMemory(to: UInt8.self).baseAddress, let first = marker.first else { return }
                var at = 0
                while at + marker.count <= raw.count {
                    guard let found = memchr(base + at, Int32(first), raw.count - marker.count + 1 - at) else { break }
                    let position = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    if memcmp(base + position, marker, marker.count) == 0 {
                        let absolute = start + UInt64(position)
                        if hits.last.map({ $0 < absolute }) ?? true { hits.append(absolute) }
                    }
                    at = position + 1
                }
            }
            guard data.count == chunk else { break }
            start += UInt64(chunk) - overlap
        }
        return hits
    }

    /// The image object holding the stand-in whose comment starts at `hit`, when it is one:
    /// its bytes exactly those made for photo N, right after `stream`, in an image object
    /// of that photo's size that cairo wrote as a JPEG.
    private static func standIn(at hit: UInt64, marker: String, images: [PNGStream], handle: FileHandle) throws
        -> (number: Int, index: Int, interpolate: Bool)? {
        guard hit >= 6 + 7 else { return nil }
        try handle.seek(toOffset: hit + UInt64(marker.utf8.count))
        let digits = String(decoding: try handle.read(upToCount: 12) ?? Data(), as: UTF8.self).prefix { $0 != ";" }
        guard let index = Int(digits), images.indices.contains(index) else { return nil }
        let image = images[index]
        let expected = image.standIn(marker: marker + "\(index);")
        let before = min(hit - 6, 2048)
        try handle.seek(toOffset: hit - 6 - before)
        guard let window = try handle.read(upToCount: Int(before) + expected.count), window.count == Int(before) + expected.count,
              [UInt8](window.suffix(expected.count)) == expected else { return nil }
        let text = String(decoding: window.prefix(Int(before)), as: UTF8.self)
        guard text.hasSuffix(">>\nstream\n"), let objectAt = text.range(of: " 0 obj\n", options: .backwards) else { return nil }
        let dictionary = text[objectAt.upperBound...]
        guard dictionary.contains("/Subtype /Image"), dictionary.contains("/Filter /DCTDecode"),
              dictionary.contains("/Width \(image.width)\n"), dictionary.contains("/Height \(image.height)\n") else { return nil }
        let number = text[..<objectAt.lowerBound].reversed().prefix { $0.isNumber }.reversed()
        guard let objectNumber = Int(String(number)) else { return nil }
        return (objectNumber, index, dictionary.contains("/Interpolate true"))
    }
}
