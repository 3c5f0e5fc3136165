import CZlib
import Foundation

/// Neutral colours as grey, for print: cairo writes every colour as RGB (`0 0 0 rg`), and
/// Ghostscript turns RGB black into rich black through the CMYK profile (0.72 0.67 0.67 0.88:
/// text on four plates, blurred by the smallest misregistration). A page's content stream
/// with every `r r r rg` / `RG` of equal parts written `r g` / `G` is DeviceGray, which
/// Ghostscript keeps as grey: on the black plate alone. Colours (a photo, a tinted link) are
/// left as they are; only the operators change, never a glyph.
enum NeutralInk {
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { "cannot set the book's text in black ink alone: " + reason }
    }

    /// `stream` (a content stream's decoded bytes) with equal-part RGB colours made grey;
    /// nil when it holds none. A byte scan, not a regular expression: a book's pages run to
    /// tens of megabytes.
    static func gray(_ stream: [UInt8]) -> [UInt8]? {
        let (r, g, R, G, space) = (UInt8(ascii: "r"), UInt8(ascii: "g"), UInt8(ascii: "R"), UInt8(ascii: "G"), UInt8(ascii: " "))
        func isNumber(_ byte: UInt8) -> Bool { (48...57).contains(byte) || byte == UInt8(ascii: ".") }
        func isDelimiter(_ at: Int) -> Bool { at < 0 || at >= stream.count || [0x20, 0x0A, 0x0D, 0x09].contains(stream[at]) }
        var out: [UInt8] = []
        var copied = 0
        var i = 0
        while i + 1 < stream.count {
            let stroke = stream[i] == R && stream[i + 1] == G
            guard (stream[i] == r && stream[i + 1] == g) || stroke, isDelimiter(i + 2), i >= 1, stream[i - 1] == space else { i += 1; continue }
            // Three numbers before it, one space apart: `a b c rg`.
            var numbers: [Range<Int>] = []
            var end = i - 1
            for _ in 0..<3 {
                var start = end
                while start > 0, isNumber(stream[start - 1]) { start -= 1 }
                guard start < end, isDelimiter(start - 1) else { break }
                numbers.insert(start..<end, at: 0)
                end = start - 1
                if numbers.count < 3 { guard end >= 0, stream[end] == space else { break } }
            }
            if numbers.count == 3, stream[numbers[0]] == stream[numbers[1]], stream[numbers[1]] == stream[numbers[2]] {
                out.append(contentsOf: stream[copied..<numbers[0].upperBound])
                out.append(contentsOf: [space, stroke ? G : g])
                copied = i + 2
            }
            i += 2
        }
        guard copied > 0 else { return nil }
        out.append(contentsOf: stream[copied...])
        return out
    }

    /// zlib's deflate of `bytes`, for a FlateDecode stream.
    static func deflate(_ bytes: [UInt8]) throws -> [UInt8] {
        var length = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = out.withUnsafeMutableBufferPointer { o in bytes.withUnsafeBufferPointer { i in compress2(o.baseAddress, &length, i.baseAddress, uLong(i.count), 6) } }
        guard status == Z_OK else { throw Failure(reason: "zlib could not compress a page (\(status))") }
        return Array(out.prefix(Int(length)))
    }
}
