import CZlib
import Foundation

/// Neutral colours as grey, for print: cairo writes every colour as RGB (`0 0 0 rg`), and a
/// press's profile turns RGB black into rich black (0.72 0.67 0.67 0.88 through Ghostscript's:
/// text on four plates, blurred by the smallest misregistration). A page's content stream
/// with every `r r r rg` / `RG` of equal parts written `r g` / `G` is DeviceGray, which
/// prints on the black plate alone. Other colours (a tint) become CMYK or grey as the
/// interior asks; only the operators change, never a glyph.
enum NeutralInk {
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { "cannot set the book's text in black ink alone: " + reason }
    }

    /// `stream` (a content stream's decoded bytes) with equal-part RGB colours made grey;
    /// nil when it holds none. With `others`, every other RGB colour too, as CMYK or as its
    /// grey: a PDF/X file for a CMYK or grey press has no RGB colour operator. A byte scan,
    /// not a regular expression: a book's pages run to tens of megabytes.
    static func gray(_ stream: [UInt8], others: PrintSettings.Color? = nil) -> [UInt8]? {
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
            } else if numbers.count == 3, let others,
                      let rgb = Optional(numbers.compactMap { Double(String(decoding: stream[$0], as: UTF8.self)) }), rgb.count == 3 {
                out.append(contentsOf: stream[copied..<numbers[0].lowerBound])
                out.append(contentsOf: Array(converted(rgb[0], rgb[1], rgb[2], to: others, stroke: stroke).utf8))
                copied = i + 2
            }
            i += 2
        }
        guard copied > 0 else { return nil }
        out.append(contentsOf: stream[copied...])
        return out
    }

    /// An RGB colour's operator for `color`: its Rec. 601 grey, or CMYK with the grey part
    /// on the black plate (full grey-component replacement, as a journal's few tints want:
    /// the photos, the only rich colour, keep their profile).
    static func converted(_ r: Double, _ g: Double, _ b: Double, to color: PrintSettings.Color, stroke: Bool) -> String {
        let clamp = { (v: Double) in min(1, max(0, v)) }
        let (r, g, b) = (clamp(r), clamp(g), clamp(b))
        if color == .gray { return PDFCanvas.number(0.299 * r + 0.587 * g + 0.114 * b) + (stroke ? " G" : " g") }
        let k = 1 - max(r, g, b)
        let inks = k >= 1 ? [0, 0, 0, 1] : [(1 - r - k) / (1 - k), (1 - g - k) / (1 - k), (1 - b - k) / (1 - k), k]
        return inks.map { PDFCanvas.number(clamp($0)) }.joined(separator: " ") + (stroke ? " K" : " k")
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
