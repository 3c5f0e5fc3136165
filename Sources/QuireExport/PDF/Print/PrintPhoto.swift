import CPango
import Foundation

/// A photo as a print file takes it, made before it is drawn: no more than 300 ppi at the
/// size it prints (a phone's 12 megapixels shown 4 in wide are 1,000 ppi; a printer wants 300
/// and the file would be ten times the size), grey in a black-and-white interior, and opaque
/// (PDF/X-3 has no transparency, so a PNG's alpha is laid over the white page). A photo that
/// needs none of that goes in as its own bytes, as in the reading book; the store's original
/// is never touched.
enum PrintPhoto {
    static let ppi = 300.0
    /// The JPEG quality a brought-down photo is written at: above what a press resolves.
    static let quality = 90

    /// The stored pixels a photo shown `width` points wide keeps at 300 ppi, nil when it
    /// already prints at no more.
    static func target(_ image: PageImage, shownWidth width: Double) -> (width: Int, height: Int)? {
        let scale = ppi * width / 72 / Double(image.shownWidth)
        guard scale < 0.999 else { return nil }
        return (max(1, Int((Double(image.width) * scale).rounded())), max(1, Int((Double(image.height) * scale).rounded())))
    }

    /// A cairo surface of the photo made for print (its stored orientation, at its new size),
    /// or nil when it goes in as it is. A PNG is always decoded here: the canvas passes one
    /// through as it is before asking.
    static func surface(for image: PageImage, shownWidth width: Double, color: PrintSettings.Color) throws -> OpaquePointer? {
        let target = Self.target(image, shownWidth: width)
        let gray = color == .gray
        switch image.kind {
        case .jpeg:
            guard target != nil || gray else { return nil }
            guard let data = FileManager.default.contents(atPath: image.path) else { throw ExportError(.invalid, path: image.path, detail: "cannot read the photo") }
            let original = [UInt8](data)
            let size = target ?? (image.width, image.height)
            do {
                let pixels = resample(try JPEGCodec.decode(original, atLeast: size.width, size.height, gray: gray), to: size.width, size.height)
                let encoded = try JPEGCodec.encode(pixels, quality: quality)
                // A colour photo keeps its own bytes when they are the smaller.
                guard gray || encoded.count < original.count else { return nil }
                return try jpegSurface(encoded, width: pixels.width, height: pixels.height, path: image.path)
            } catch let failure as JPEGCodec.Failure {
                throw ExportError(.invalid, path: image.path, detail: failure.reason)
            }
        case .png:
            guard image.width * image.height <= PageImage.maxDecodedPixels else {
                // Too large to decode here: in colour it goes in as it is; grey it cannot be.
                if gray { throw ExportError(.invalid, path: image.path, detail: "too large a PNG to make grey (\(image.width)×\(image.height))") }
                return nil
            }
            var pixels = try decodePNG(image.path, gray: gray)
            if let target { pixels = resample(pixels, to: target.width, target.height) }
            return try pixelSurface(pixels, path: image.path)
        }
    }

    /// A photo scaled to cover a box `width` × `height` points, cropped to it, with a band of
    /// black at `shade` opacity from `bandTop` down `bandHeight` (points, in the box) laid
    /// over it: one opaque picture at 300 ppi, as a cover's front shows it, for PDF/X-3 has
    /// no transparency to draw the band with. A JPEG surface for cairo, grey when `color` is.
    static func covering(_ image: PageImage, width: Double, height: Double, band bandTop: Double, _ bandHeight: Double, shade: Double,
                         color: PrintSettings.Color) throws -> OpaquePointer {
        let (pixelsWide, pixelsHigh) = (max(1, Int((width * ppi / 72).rounded())), max(1, Int((height * ppi / 72).rounded())))
        guard let canvas = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(pixelsWide), Int32(pixelsHigh)),
              cairo_surface_status(canvas) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(canvas) else {
            throw ExportError(.invalid, path: image.path, detail: "cannot make the cover's picture")
        }
        defer { cairo_destroy(cr); cairo_surface_destroy(canvas) }
        let scale = max(Double(pixelsWide) / Double(image.shownWidth), Double(pixelsHigh) / Double(image.shownHeight))
        let source = try decoded(image, atLeast: Int((Double(image.width) * scale).rounded(.up)), Int((Double(image.height) * scale).rounded(.up)))
        defer { cairo_surface_destroy(source) }
        let (w, h) = (Double(cairo_image_surface_get_width(source)), Double(cairo_image_surface_get_height(source)))
        let (shownW, shownH) = image.isTurned ? (h, w) : (w, h)
        let fit = max(Double(pixelsWide) / shownW, Double(pixelsHigh) / shownH)
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_paint(cr)
        image.paint(source, on: cr, x: (Double(pixelsWide) - shownW * fit) / 2, y: (Double(pixelsHigh) - shownH * fit) / 2,
                    width: shownW * fit, height: shownH * fit)
        cairo_set_source_rgba(cr, 0, 0, 0, shade)
        cairo_rectangle(cr, 0, bandTop * ppi / 72, Double(pixelsWide), bandHeight * ppi / 72)
        cairo_fill(cr)
        cairo_surface_flush(canvas)
        let pixels = try Self.pixels(of: canvas, gray: color == .gray, path: image.path)
        do {
            return try jpegSurface(try JPEGCodec.encode(pixels, quality: quality), width: pixelsWide, height: pixelsHigh, path: image.path)
        } catch let failure as JPEGCodec.Failure {
            throw ExportError(.invalid, path: image.path, detail: failure.reason)
        }
    }

    /// The photo's pixels as a cairo surface, at least `width` × `height` of its stored pixels
    /// where a JPEG can be decoded smaller.
    private static func decoded(_ image: PageImage, atLeast width: Int, _ height: Int) throws -> OpaquePointer {
        guard image.kind == .jpeg else { return try image.surface() }
        guard let data = FileManager.default.contents(atPath: image.path) else { throw ExportError(.invalid, path: image.path, detail: "cannot read the photo") }
        do {
            return try pixelSurface(try JPEGCodec.decode([UInt8](data), atLeast: min(width, image.width), min(height, image.height), gray: false), path: image.path)
        } catch let failure as JPEGCodec.Failure {
            throw ExportError(.invalid, path: image.path, detail: failure.reason)
        }
    }

    /// A PNG's pixels decoded by cairo, laid over white.
    private static func decodePNG(_ path: String, gray: Bool) throws -> JPEGCodec.Pixels {
        guard let surface = cairo_image_surface_create_from_png(path) else { throw ExportError(.invalid, path: path, detail: "cannot decode the PNG") }
        defer { cairo_surface_destroy(surface) }
        return try pixels(of: surface, gray: gray, path: path)
    }

    /// An image surface's pixels (ARGB32 laid over white, or RGB24), as RGB or grey.
    private static func pixels(of surface: OpaquePointer, gray: Bool, path: String) throws -> JPEGCodec.Pixels {
        cairo_surface_flush(surface)
        let (width, height) = (Int(cairo_image_surface_get_width(surface)), Int(cairo_image_surface_get_height(surface)))
        let stride = Int(cairo_image_surface_get_stride(surface))
        let format = cairo_image_surface_get_format(surface)
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, width > 0, height > 0, let data = cairo_image_surface_get_data(surface),
              format == CAIRO_FORMAT_ARGB32 || format == CAIRO_FORMAT_RGB24 else {
            throw ExportError(.invalid, path: path, detail: "cannot decode the PNG")
        }
        let alpha = format == CAIRO_FORMAT_ARGB32
        var bytes = [UInt8]()
        bytes.reserveCapacity(width * height * (gray ? 1 : 3))
        for y in 0..<height {
            let row = data + y * stride
            for x in 0..<width {
                // Native-endian 0xAARRGGBB, premultiplied: over white each channel gains 255 − alpha.
                let pixel = UnsafeRawPointer(row + x * 4).loadUnaligned(as: UInt32.self)
                let a = alpha ? Int(pixel >> 24) : 255
                let (r, g, b) = (Int((pixel >> 16) & 0xFF) + 255 - a, Int((pixel >> 8) & 0xFF) + 255 - a, Int(pixel & 0xFF) + 255 - a)
                if gray { bytes.append(luma(r, g, b)) } else { bytes += [UInt8(min(r, 255)), UInt8(min(g, 255)), UInt8(min(b, 255))] }
            }
        }
        return JPEGCodec.Pixels(width: width, height: height, gray: gray, bytes: bytes)
    }

    /// Rec. 601 luma, as a grey press of a colour photo reads it.
    static func luma(_ r: Int, _ g: Int, _ b: Int) -> UInt8 { UInt8(min(255, (r * 299 + g * 587 + b * 114 + 500) / 1000)) }

    /// `pixels` brought down to `width` × `height` by area averaging: each new pixel the mean
    /// of the old pixels it covers, in parts, so no detail is skipped (a box filter of exact
    /// coverage, one axis at a time).
    static func resample(_ pixels: JPEGCodec.Pixels, to width: Int, _ height: Int) -> JPEGCodec.Pixels {
        guard pixels.width != width || pixels.height != height else { return pixels }
        let channels = pixels.channels
        // Along x: rows of `width` pixels.
        let across = weights(from: pixels.width, to: width)
        var wide = [Float](repeating: 0, count: width * pixels.height * channels)
        for y in 0..<pixels.height {
            let row = y * pixels.width * channels
            for (x, taps) in across.enumerated() {
                for c in 0..<channels {
                    var sum: Float = 0
                    for (source, weight) in taps { sum += Float(pixels.bytes[row + source * channels + c]) * weight }
                    wide[(y * width + x) * channels + c] = sum
                }
            }
        }
        let down = weights(from: pixels.height, to: height)
        var bytes = [UInt8](repeating: 0, count: width * height * channels)
        for (y, taps) in down.enumerated() {
            for i in 0..<(width * channels) {
                var sum: Float = 0
                for (source, weight) in taps { sum += wide[source * width * channels + i] * weight }
                bytes[y * width * channels + i] = UInt8(max(0, min(255, sum.rounded())))
            }
        }
        return JPEGCodec.Pixels(width: width, height: height, gray: pixels.gray, bytes: bytes)
    }

    /// For each of `to` new pixels, the old pixels it covers and how much of each (summing to 1).
    private static func weights(from: Int, to: Int) -> [[(Int, Float)]] {
        let step = Double(from) / Double(to)
        return (0..<to).map { i in
            let (start, end) = (Double(i) * step, min(Double(from), Double(i + 1) * step))
            guard end > start else { return [(min(from - 1, Int(start)), 1)] }
            var taps: [(Int, Float)] = []
            var x = Int(start)
            while Double(x) < end, x < from {
                let covered = min(end, Double(x + 1)) - max(start, Double(x))
                if covered > 0 { taps.append((x, Float(covered / (end - start)))) }
                x += 1
            }
            return taps
        }
    }

    /// An image surface of its size carrying `jpeg`, which cairo writes as it is.
    private static func jpegSurface(_ jpeg: [UInt8], width: Int, height: Int, path: String) throws -> OpaquePointer {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)),
              cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else { throw ExportError(.invalid, path: path, detail: "cannot embed the photo") }
        let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(jpeg.count, 1))
        copy.initialize(from: jpeg, count: jpeg.count)
        guard cairo_surface_set_mime_data(surface, CAIRO_MIME_TYPE_JPEG, copy, UInt(jpeg.count), { $0?.deallocate() }, copy) == CAIRO_STATUS_SUCCESS else {
            copy.deallocate()
            cairo_surface_destroy(surface)
            throw ExportError(.invalid, path: path, detail: "cannot embed the photo")
        }
        return surface
    }

    /// An opaque image surface of `pixels`; cairo writes an all-grey one as DeviceGray.
    private static func pixelSurface(_ pixels: JPEGCodec.Pixels, path: String) throws -> OpaquePointer {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(pixels.width), Int32(pixels.height)),
              cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(surface) else {
            throw ExportError(.invalid, path: path, detail: "cannot embed the photo")
        }
        let stride = Int(cairo_image_surface_get_stride(surface))
        let channels = pixels.channels
        for y in 0..<pixels.height {
            let row = UnsafeMutableRawPointer(data + y * stride)
            for x in 0..<pixels.width {
                let at = (y * pixels.width + x) * channels
                let (r, g, b) = channels == 1 ? (pixels.bytes[at], pixels.bytes[at], pixels.bytes[at]) : (pixels.bytes[at], pixels.bytes[at + 1], pixels.bytes[at + 2])
                row.storeBytes(of: 0xFF00_0000 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b), toByteOffset: x * 4, as: UInt32.self)
            }
        }
        cairo_surface_mark_dirty(surface)
        return surface
    }
}
