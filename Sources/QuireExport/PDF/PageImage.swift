import Foundation

/// A photo a page can show: a JPEG or PNG file and its size in pixels, read from its header
/// alone (the pixels are not decoded to place it). Other formats are not page images.
struct PageImage {
    enum Kind { case jpeg, png }

    let path: String
    let kind: Kind
    let width: Int
    let height: Int

    /// Reads the header of the file at `path`; nil when it is not a JPEG or PNG whose size can
    /// be read (damaged, truncated, another format).
    init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 32), head.count >= 24 else { return nil }
        let bytes = [UInt8](head)
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), String(decoding: bytes[12..<16], as: UTF8.self) == "IHDR" {
            let w = Self.bigEndian(bytes[16..<20]), h = Self.bigEndian(bytes[20..<24])
            guard w > 0, h > 0, w < 1 << 16, h < 1 << 16 else { return nil }
            self.init(path: path, kind: .png, width: w, height: h)
            return
        }
        guard bytes.starts(with: [0xFF, 0xD8]), let size = Self.jpegSize(handle) else { return nil }
        self.init(path: path, kind: .jpeg, width: size.width, height: size.height)
    }

    private init(path: String, kind: Kind, width: Int, height: Int) {
        self.path = path
        self.kind = kind
        self.width = width
        self.height = height
    }

    /// Walks the JPEG's segments to its frame header (SOF0–SOF15 but DHT, JPG and DAC).
    private static func jpegSize(_ handle: FileHandle) -> (width: Int, height: Int)? {
        var offset: UInt64 = 2
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
                return w > 0 && h > 0 ? (w, h) : nil
            }
            if marker == 0xDA || marker == 0xD9 { return nil }
            offset += UInt64(2 + length)
        }
        return nil
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> Int { bytes.reduce(0) { $0 << 8 | Int($1) } }
}
