import CZstd
import Foundation

/// Repository format 3 compresses its JSON objects (change-log segments above all: entry
/// text, transcripts, base64 attachments) with zstd before they are sealed, and pads them
/// with a zstd skippable frame (which every decoder passes over) so that, sealed, each is
/// still a bucket's size (`Padding`): the server learns no more of an object's size than before.
///
/// Reading takes both: JSON as formats 1 and 2 wrote it (padded with spaces), told apart
/// by its first byte, and a zstd frame. Decompression is bounded: a frame that declares, or
/// turns out to have, more than `limit` bytes is refused as damaged before it is held, so
/// a hostile server's zstd bomb costs a few kilobytes of memory, not gigabytes.
enum WireCompression {
    /// zstd's fast end: JSON still shrinks to a third, at no cost a first sync would notice.
    static let level: Int32 = 3
    /// Objects up to `smallObject` bytes (a sync of a few edits) are compressed at zstd's
    /// slow end instead: a millisecond at most, and on a home line the 3–5 % it saves is
    /// most of what such a sync sends.
    static let smallLevel: Int32 = 19
    static let smallObject = 16 << 10
    /// The largest object decoded: far above any segment Quire writes (a few MiB).
    static let limit = 256 << 20

    private static let frameMagic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
    private static let skippableMagic: [UInt8] = [0x50, 0x2A, 0x4D, 0x18]

    /// `json` compressed and padded so that sealed with `overhead` bytes it is a bucket's size
    /// (in steps of at least `floor`).
    static func compress(_ json: Data, overhead: Int, floor: Int64 = Padding.minimumStep) -> Data {
        let bound = ZSTD_compressBound(json.count)
        var frame = Data(count: bound)
        let written = frame.withUnsafeMutableBytes { out in
            json.withUnsafeBytes { input in
                ZSTD_compress(out.baseAddress, bound, input.baseAddress, input.count, json.count <= smallObject ? smallLevel : level)
            }
        }
        // The compressor fails only without memory: the JSON then goes as format 2 wrote it.
        guard ZSTD_isError(written) == 0 else { return Padding.padJSON(json, overhead: overhead, floor: floor) }
        frame.count = written
        // A skippable frame is at least its 8-byte header: a gap smaller than that takes the
        // next bucket instead.
        let sealed = Int64(frame.count + overhead)
        var target = Padding.size(sealed, floor: floor)
        if target > sealed && target - sealed < 8 { target = Padding.size(sealed + 8, floor: floor) }
        let gap = Int(target - sealed)
        guard gap >= 8 else { return frame }
        var padding = Data(skippableMagic)
        withUnsafeBytes(of: UInt32(gap - 8).littleEndian) { padding.append(contentsOf: $0) }
        padding.append(Data(count: gap - 8))
        return frame + padding
    }

    /// The JSON in `data`: as it is when it is not compressed, else decompressed, at most
    /// `limit` bytes.
    /// - Throws: `SyncError.damaged` naming `path` for a frame that is cut, malformed, or
    ///   expands past the bound.
    static func decompress(_ data: Data, path: String, limit: Int = limit) throws -> Data {
        guard data.starts(with: frameMagic) else { return data }
        func damaged(_ why: String) -> SyncError { SyncError(.damaged, object: path, detail: "a compressed object that \(why)") }
        let declared = data.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
        if declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR && declared > UInt64(limit) {
            throw damaged("claims \(declared) bytes, more than any object Quire writes (\(limit)): refused")
        }
        if declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR, declared > 0,
           let whole = decompressWhole(data, size: Int(declared)) {
            return whole
        }
        guard let stream = ZSTD_createDStream() else { throw damaged("could not be read (no memory)") }
        defer { ZSTD_freeDStream(stream) }
        ZSTD_initDStream(stream)
        var result = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        try data.withUnsafeBytes { raw in
            var input = ZSTD_inBuffer(src: raw.baseAddress, size: raw.count, pos: 0)
            while true {
                let (hint, produced, full) = try buffer.withUnsafeMutableBytes { out in
                    var output = ZSTD_outBuffer(dst: out.baseAddress, size: out.count, pos: 0)
                    let hint = ZSTD_decompressStream(stream, &output, &input)
                    if ZSTD_isError(hint) != 0 { throw damaged("is malformed (" + String(cString: ZSTD_getErrorName(hint)) + ")") }
                    return (hint, output.pos, output.pos == output.size)
                }
                guard result.count + produced <= limit else { throw damaged("expands past \(limit) bytes: refused") }
                result.append(contentsOf: buffer[0..<produced])
                // Every frame ended (the data, then the padding) and all of it read: done.
                if hint == 0 && input.pos == input.size { break }
                // All read, a frame unfinished, and the decoder had room to give more: cut short.
                if input.pos == input.size && !full { throw damaged("is cut short") }
            }
        }
        return result
    }

    /// `data` decompressed in one call into `size` bytes, as its frame declares (the limit
    /// checked before): no window buffer made and freed for each segment, no copying as the
    /// text grows. 100,000 entries' restore made 874 mappings of fresh memory before, most of
    /// them this. Nil when the frames do not give exactly `size` bytes: the streaming decoder
    /// then says what is wrong. A frame that claims more than it gives takes no memory for it
    /// (pages untouched cost nothing).
    private static func decompressWhole(_ data: Data, size: Int) -> Data? {
        var result = Data(count: size)
        let produced = result.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { input in ZSTD_decompress(out.baseAddress, out.count, input.baseAddress, input.count) }
        }
        guard ZSTD_isError(produced) == 0, produced == size else { return nil }
        return result
    }
}
