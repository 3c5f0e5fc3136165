import CZlib
import Foundation

/// A PNG whose compressed pixels a PDF takes as they are: 8-bit RGB or grey, not interlaced,
/// without transparency, palette or an unusual gamma. Its IDAT data is a zlib stream of rows
/// each led by a filter byte, which is exactly PDF's FlateDecode with `/Predictor 15`, so the
/// photo goes into the book without being decoded and compressed again (deflating the pixels
/// was most of the cost of a book of PNG photos). The file is checked whole first: every
/// chunk's CRC, and the pixels inflated and counted row by row, so a damaged PNG is found
/// here and takes the decoding path, which leaves it out with a warning as before.
/// The only file that talks to zlib.
struct PNGStream {
    let path: String
    let width: Int
    let height: Int
    /// 3 (RGB) or 1 (grey).
    let colors: Int
    /// Where each IDAT chunk's data is in the file.
    let parts: [(offset: Int, length: Int)]

    var length: Int { parts.reduce(0) { $0 + $1.length } }

    /// nil when the file is not such a PNG, or is damaged.
    init?(path: String) {
        guard let data = FileManager.default.contents(atPath: path), data.count > 33,
              data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
        let bytes = [UInt8](data)
        func number(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        var offset = 8, parts: [(offset: Int, length: Int)] = []
        var header: (width: Int, height: Int, colors: Int)?
        var ended = false
        while offset + 12 <= bytes.count {
            let length = number(offset)
            guard length >= 0, length <= bytes.count - offset - 12 else { return nil }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let crc = bytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress.map { $0 + offset + 4 }, uInt(length + 4)) }
            guard UInt(crc) == UInt(number(offset + 8 + length)) else { return nil }
            let body = offset + 8
            switch type {
            case "IHDR":
                guard length == 13, header == nil else { return nil }
                let (w, h) = (number(body), number(body + 4))
                let (depth, colorType, compression, filter, interlace) = (bytes[body + 8], bytes[body + 9], bytes[body + 10], bytes[body + 11], bytes[body + 12])
                guard w > 0, h > 0, w < 1 << 16, h < 1 << 16, depth == 8, colorType == 0 || colorType == 2,
                      compression == 0, filter == 0, interlace == 0 else { return nil }
                header = (w, h, colorType == 2 ? 3 : 1)
            case "IDAT":
                guard header != nil else { return nil }
                parts.append((body, length))
            case "IEND":
                ended = true
            case "gAMA":
                // Cairo's decoder corrects a gamma other than sRGB's; passed through it would not be.
                guard length == 4, abs(number(body) - 45455) <= 100 else { return nil }
            case "tRNS", "PLTE", "iCCP":
                return nil
            default:
                // An unknown critical chunk (its first letter upper case) means pixels we cannot read.
                guard let first = type.unicodeScalars.first, !("A"..."Z").contains(first) else { return nil }
            }
            if ended { break }
            offset = body + length + 4
        }
        guard ended, let header, !parts.isEmpty,
              Self.inflatesToRows(bytes, parts: parts, rowLength: header.width * header.colors + 1, rows: header.height) else { return nil }
        self.path = path
        (width, height, colors) = header
        self.parts = parts
    }

    /// The IDAT data inflates to exactly `rows` rows, each led by a filter type PNG defines.
    private static func inflatesToRows(_ bytes: [UInt8], parts: [(offset: Int, length: Int)], rowLength: Int, rows: Int) -> Bool {
        var stream = z_stream()
        guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return false }
        defer { inflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: 1 << 16)
        var produced = 0, status = Z_OK
        let expected = rowLength * rows
        return bytes.withUnsafeBufferPointer { input -> Bool in
            guard let base = input.baseAddress else { return false }
            for (index, part) in parts.enumerated() {
                stream.next_in = UnsafeMutablePointer(mutating: base + part.offset)
                stream.avail_in = uInt(part.length)
                while stream.avail_in > 0 || (index == parts.count - 1 && status != Z_STREAM_END) {
                    let made = output.withUnsafeMutableBufferPointer { out -> Int in
                        stream.next_out = out.baseAddress
                        stream.avail_out = uInt(out.count)
                        status = inflate(&stream, Z_NO_FLUSH)
                        return out.count - Int(stream.avail_out)
                    }
                    guard status == Z_OK || status == Z_STREAM_END, produced + made <= expected else { return false }
                    // Each row starts with its filter type, 0 to 4.
                    var row = (rowLength - produced % rowLength) % rowLength
                    while row < made {
                        guard output[row] <= 4 else { return false }
                        row += rowLength
                    }
                    produced += made
                    if status == Z_STREAM_END { break }
                    if made == 0 && stream.avail_in == 0 { break }
                }
                if status == Z_STREAM_END { break }
            }
            return status == Z_STREAM_END && produced == expected
        }
    }

    /// Appends the compressed pixels, as they are in the file, to `handle`.
    func copy(to handle: FileHandle) throws {
        guard let source = FileHandle(forReadingAtPath: path) else { throw ExportError(.io, path: path, detail: "cannot read the photo again") }
        defer { try? source.close() }
        for part in parts {
            try source.seek(toOffset: UInt64(part.offset))
            guard let data = try source.read(upToCount: part.length), data.count == part.length else {
                throw ExportError(.io, path: path, detail: "the photo changed while the book was made")
            }
            try handle.write(contentsOf: data)
        }
    }

    /// The image's dictionary in the PDF: what cairo writes for an image, with the decoding
    /// parameters of PNG's rows.
    func dictionary(interpolate: Bool) -> String {
        "<< /Type /XObject\n   /Subtype /Image\n   /Width \(width)\n   /Height \(height)\n   /ColorSpace /Device\(colors == 3 ? "RGB" : "Gray")\n"
            + (interpolate ? "   /Interpolate true\n" : "") + "   /BitsPerComponent 8\n   /Filter /FlateDecode\n"
            + "   /DecodeParms << /Predictor 15 /Colors \(colors) /BitsPerComponent 8 /Columns \(width) >>\n   /Length \(length)\n>>"
    }

    /// A JPEG of nothing but a comment and a frame header of this size: cairo embeds it as
    /// the photo's stream, and `PNGPassThrough` finds it by `marker` and puts the pixels there.
    func standIn(marker: String) -> [UInt8] {
        let comment = Array(marker.utf8)
        let components: [UInt8] = colors == 3 ? [1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0] : [1, 0x11, 0]
        let frameLength = 8 + components.count
        return [0xFF, 0xD8, 0xFF, 0xFE, UInt8((comment.count + 2) >> 8), UInt8((comment.count + 2) & 0xFF)] + comment
            + [0xFF, 0xC0, UInt8(frameLength >> 8), UInt8(frameLength & 0xFF), 8, UInt8(height >> 8), UInt8(height & 0xFF),
               UInt8(width >> 8), UInt8(width & 0xFF), UInt8(colors)] + components + [0xFF, 0xD9]
    }
}
