import CJPEG
import Foundation

/// Decodes and encodes JPEGs through libjpeg-turbo's TurboJPEG interface, for the photos a
/// print file must change: brought down to 300 ppi at their printed size, or made grey. It
/// decodes at the smallest of libjpeg's DCT scales (n/8) that still holds the size asked for,
/// so a 12-megapixel photo printed 4 in wide is never decoded whole. TurboJPEG reports
/// errors by return value (libjpeg's own interface jumps out of the caller with longjmp,
/// which Swift cannot take).
enum JPEGCodec {
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// Decoded pixels, top row first: 3 bytes a pixel (RGB) or 1 (grey).
    struct Pixels {
        var width: Int
        var height: Int
        var gray: Bool
        var bytes: [UInt8]

        var channels: Int { gray ? 1 : 3 }
    }

    /// `data` decoded at the smallest DCT scale at least `width` × `height` (its full size if
    /// none is), in grey when `gray` (a CMYK JPEG too).
    static func decode(_ data: [UInt8], atLeast width: Int, _ height: Int, gray: Bool) throws -> Pixels {
        guard let handle = tjInitDecompress() else { throw Failure(reason: "libjpeg-turbo cannot start") }
        defer { tjDestroy(handle) }
        var (fullWidth, fullHeight, subsampling, colorspace): (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        guard tjDecompressHeader3(handle, data, UInt(data.count), &fullWidth, &fullHeight, &subsampling, &colorspace) == 0,
              fullWidth > 0, fullHeight > 0 else { throw failure(handle, "an unreadable JPEG") }
        var (scaledWidth, scaledHeight) = (fullWidth, fullHeight)
        var count: Int32 = 0
        if let factors = tjGetScalingFactors(&count) {
            for factor in UnsafeBufferPointer(start: factors, count: Int(count)) where factor.num <= factor.denom {
                let w = (fullWidth * factor.num + factor.denom - 1) / factor.denom, h = (fullHeight * factor.num + factor.denom - 1) / factor.denom
                if w >= width, h >= height, Int(w) * Int(h) < Int(scaledWidth) * Int(scaledHeight) { (scaledWidth, scaledHeight) = (w, h) }
            }
        }
        // libjpeg makes grey only from YCbCr or grey; a CMYK photo is decoded as CMYK and weighed here.
        let cmyk = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        let format = cmyk ? TJPF_CMYK : gray ? TJPF_GRAY : TJPF_RGB
        let channels = cmyk ? 4 : gray ? 1 : 3
        var bytes = [UInt8](repeating: 0, count: Int(scaledWidth) * Int(scaledHeight) * channels)
        guard tjDecompress2(handle, data, UInt(data.count), &bytes, scaledWidth, 0, scaledHeight, Int32(format.rawValue), Int32(TJFLAG_ACCURATEDCT)) == 0 else {
            throw failure(handle, "a damaged JPEG")
        }
        var pixels = Pixels(width: Int(scaledWidth), height: Int(scaledHeight), gray: gray, bytes: bytes)
        if cmyk { pixels.bytes = fromCMYK(bytes, gray: gray) }
        return pixels
    }

    /// CMYK as libjpeg reads an Adobe JPEG (inverted: 255 is no ink), made RGB or grey.
    private static func fromCMYK(_ bytes: [UInt8], gray: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 4 * (gray ? 1 : 3))
        var i = 0
        while i + 3 < bytes.count {
            let k = Int(bytes[i + 3])
            let (r, g, b) = (Int(bytes[i]) * k / 255, Int(bytes[i + 1]) * k / 255, Int(bytes[i + 2]) * k / 255)
            if gray { out.append(UInt8((r * 299 + g * 587 + b * 114) / 1000)) } else { out += [UInt8(r), UInt8(g), UInt8(b)] }
            i += 4
        }
        return out
    }

    /// `pixels` as a baseline JPEG of `quality` (1–100), 4:2:0 for colour.
    static func encode(_ pixels: Pixels, quality: Int) throws -> [UInt8] {
        guard let handle = tjInitCompress() else { throw Failure(reason: "libjpeg-turbo cannot start") }
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        defer { if buffer != nil { tjFree(buffer) } }
        let format = pixels.gray ? TJPF_GRAY : TJPF_RGB
        let sampling = pixels.gray ? TJSAMP_GRAY : TJSAMP_420
        guard tjCompress2(handle, pixels.bytes, Int32(pixels.width), 0, Int32(pixels.height), Int32(format.rawValue), &buffer, &size,
                          Int32(sampling.rawValue), Int32(quality), Int32(TJFLAG_ACCURATEDCT)) == 0, let buffer else {
            throw failure(handle, "cannot encode a JPEG")
        }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }

    private static func failure(_ handle: tjhandle, _ what: String) -> Failure {
        guard let text = tjGetErrorStr2(handle) else { return Failure(reason: what) }
        return Failure(reason: what + ": " + String(cString: text))
    }
}
