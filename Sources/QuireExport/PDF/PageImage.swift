import Foundation

/// A photo a page can show: a JPEG or PNG file and its size in pixels, read from its header
/// alone (the pixels are not decoded to place it). Other formats are not page images.
struct PageImage {
    enum Kind { case jpeg, png }

    let path: String
    let kind: Kind
    /// The stored pixels' size.
    let width: Int
    let height: Int
    /// The JPEG's EXIF orientation (1 upright … 8), how a phone says a photo is turned.
    var orientation = 1

    /// Turned a quarter (orientations 5–8): shown `height` wide and `width` tall.
    var isTurned: Bool { orientation >= 5 && orientation <= 8 }
    var shownWidth: Int { isTurned ? height : width }
    var shownHeight: Int { isTurned ? width : height }

    /// The most pixels a photo may claim and still be shown: 100 megapixels (a phone takes
    /// 12–50). A JPEG or an 8-bit RGB or grey PNG goes into the book as its own bytes, never
    /// decoded; a larger one is left out with its name, as a 101-byte header claiming
    /// 20000×20000 would otherwise cost gigabytes.
    static let maxPixels = 100_000_000
    /// The most pixels of a PNG that cairo must decode (palette, alpha, 16-bit): 24 megapixels,
    /// 96 MiB of pixels at most; a larger one is left out with its name.
    static let maxDecodedPixels = 24_000_000

    /// Reads the header of the file at `path`; nil when it is not a JPEG or PNG whose size can
    /// be read (damaged, truncated, another format) or when it claims more pixels than a
    /// book shows (`maxPixels`, `maxDecodedPixels`).
    init?(path: String) {
        guard let header = Self.header(path) else { return nil }
        guard header.width * header.height <= (header.decoded ? Self.maxDecodedPixels : Self.maxPixels) else { return nil }
        self.init(path: path, kind: header.kind, width: header.width, height: header.height)
        orientation = header.orientation
    }

    /// What a JPEG's or PNG's header says: its kind, size, orientation, and whether its pixels
    /// must be decoded to be drawn (a PNG that is not 8-bit RGB or grey).
    static func header(_ path: String) -> (kind: Kind, width: Int, height: Int, orientation: Int, decoded: Bool)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 32), head.count >= 4 else { return nil }
        let bytes = [UInt8](head)
        if bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), String(decoding: bytes[12..<16], as: UTF8.self) == "IHDR" {
            let w = Self.bigEndian(bytes[16..<20]), h = Self.bigEndian(bytes[20..<24])
            guard w > 0, h > 0, w < 1 << 16, h < 1 << 16, bytes.count >= 26 else { return nil }
            let passesThrough = bytes[24] == 8 && (bytes[25] == 0 || bytes[25] == 2)
            return (.png, w, h, 1, !passesThrough)
        }
        guard bytes.starts(with: [0xFF, 0xD8]), let size = Self.jpegSize(handle), Self.endsWithEOI(handle) else { return nil }
        return (.jpeg, size.width, size.height, size.orientation, false)
    }

    /// The pixels a JPEG's or PNG's header claims, nil for another format or an unreadable one.
    static func pixelCount(_ path: String) -> Int? {
        header(path).map { $0.width * $0.height }
    }

    /// A photo of that kind and size at `path`, as its header said (or as a test says, to measure).
    init(path: String, kind: Kind, width: Int, height: Int) {
        self.path = path
        self.kind = kind
        self.width = width
        self.height = height
    }

    /// Walks the JPEG's segments to its frame header (SOF0–SOF15 but DHT, JPG and DAC),
    /// reading the orientation from an EXIF segment on the way.
    private static func jpegSize(_ handle: FileHandle) -> (width: Int, height: Int, orientation: Int)? {
        var offset: UInt64 = 2
        var orientation = 1
        for _ in 0..<512 {
            guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.read(upToCount: 9), data.count >= 4 else { return nil }
            let b = [UInt8](data)
            guard b[0] == 0xFF else { return nil }
            let marker = b[1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { offset += 2; continue }
            let length = Int(b[2]) << 8 | Int(b[3])
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard b.count >= 9 else { return nil }
                let h = Int(b[5]) << 8 | Int(b[6]), w = Int(b[7]) << 8 | Int(b[8])
                return w > 0 && h > 0 ? (w, h, orientation) : nil
            }
            if marker == 0xE1, (try? handle.seek(toOffset: offset + 4)) != nil, let exif = try? handle.read(upToCount: length - 2) {
                orientation = exifOrientation([UInt8](exif)) ?? orientation
            }
            if marker == 0xDA || marker == 0xD9 { return nil }
            offset += UInt64(2 + length)
        }
        return nil
    }

    /// A JPEG cut short (the commonest damage: a copy that stopped) lacks its end marker;
    /// embedded as it is, every reader would stumble over it. Trailing zeros are padding.
    private static func endsWithEOI(_ handle: FileHandle) -> Bool {
        guard let end = try? handle.seekToEnd(), end >= 4 else { return false }
        let back = min(end, 4096)
        guard (try? handle.seek(toOffset: end - back)) != nil, let tail = try? handle.read(upToCount: Int(back)) else { return false }
        var bytes = [UInt8](tail)
        while bytes.last == 0 { bytes.removeLast() }
        return bytes.count >= 2 && bytes[bytes.count - 2] == 0xFF && bytes[bytes.count - 1] == 0xD9
    }

    /// Tag 0x0112 of IFD0 in an APP1 segment's bytes (`Exif\0\0` then a TIFF header).
    static func exifOrientation(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 14, bytes.starts(with: Array("Exif".utf8) + [0, 0]) else { return nil }
        let tiff = Array(bytes[6...])
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func number(_ at: Int, _ count: Int) -> Int? {
            guard at >= 0, at + count <= tiff.count else { return nil }
            let slice = tiff[at..<(at + count)]
            return (little ? slice.reversed() : Array(slice)).reduce(0) { $0 << 8 | Int($1) }
        }
        guard let ifd = number(4, 4), let entries = number(ifd, 2), entries < 1000 else { return nil }
        for index in 0..<entries {
            let entry = ifd + 2 + index * 12
            guard let tag = number(entry, 2) else { return nil }
            if tag == 0x0112, let value = number(entry + 8, 2), (1...8).contains(value) { return value }
        }
        return nil
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> Int { bytes.reduce(0) { $0 << 8 | Int($1) } }
}
