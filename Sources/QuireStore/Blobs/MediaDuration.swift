import Foundation

/// How long a recording plays, read from its own headers: WAV (data size over byte rate),
/// FLAC (STREAMINFO), MP4/M4A (`mvhd`), Ogg Opus and Vorbis (the last page's granule
/// position) and MP3 (a Xing/Info frame count, else the bit rate of a constant-rate file).
/// Nil where the format is another or the headers do not say; never a trap on a damaged file.
package enum MediaDuration {
    /// Seconds, or nil.
    package static func of(file path: String) -> Double? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()).map(Int64.init) ?? 0
        guard size > 12 else { return nil }
        func read(_ offset: Int64, _ count: Int) -> [UInt8] {
            guard offset >= 0, offset < size, (try? handle.seek(toOffset: UInt64(offset))) != nil else { return [] }
            return (try? handle.read(upToCount: count)).map { [UInt8]($0) } ?? []
        }
        let head = read(0, 4096)
        let duration: Double?
        if head.starts(with: Array("RIFF".utf8)), Bytes(head).text(8, 4) == "WAVE" {
            duration = wav(read)
        } else if head.starts(with: Array("fLaC".utf8)) {
            duration = flac(head)
        } else if Bytes(head).text(4, 4) == "ftyp" {
            duration = mp4(read, size: size)
        } else if head.starts(with: Array("OggS".utf8)) {
            duration = ogg(head, tail: read(max(0, size - 65_536), 65_536))
        } else {
            duration = mp3(read, size: size)
        }
        guard let duration, duration.isFinite, duration >= 0, duration <= Media.maxSeconds else { return nil }
        return duration
    }

    /// Big- and little-endian reads that give 0 past the end instead of trapping.
    struct Bytes {
        let b: [UInt8]
        init(_ b: [UInt8]) { self.b = b }
        subscript(_ i: Int) -> UInt64 { i >= 0 && i < b.count ? UInt64(b[i]) : 0 }
        func be(_ at: Int, _ n: Int) -> UInt64 { (0..<n).reduce(0) { $0 << 8 | self[at + $1] } }
        func le(_ at: Int, _ n: Int) -> UInt64 { (0..<n).reversed().reduce(0) { $0 << 8 | self[at + $1] } }
        func text(_ at: Int, _ n: Int) -> String {
            guard at >= 0, at + n <= b.count else { return "" }
            return String(decoding: b[at..<(at + n)], as: UTF8.self)
        }
        var count: Int { b.count }
    }

    static func wav(_ read: (Int64, Int) -> [UInt8]) -> Double? {
        var offset: Int64 = 12
        var byteRate: UInt64 = 0
        for _ in 0..<64 {
            let chunk = Bytes(read(offset, 24))
            guard chunk.count >= 8 else { return nil }
            let length = chunk.le(4, 4)
            switch chunk.text(0, 4) {
            case "fmt ": byteRate = chunk.le(8 + 8, 4)
            case "data": return byteRate > 0 ? Double(length) / Double(byteRate) : nil
            default: break
            }
            offset += 8 + Int64(length) + Int64(length % 2)
        }
        return nil
    }

    static func flac(_ head: [UInt8]) -> Double? {
        let b = Bytes(head)
        guard b[4] & 0x7F == 0 else { return nil }  // the first block is STREAMINFO
        let info = 8
        let rate = b.be(info + 10, 3) >> 4
        let samples = b.be(info + 13, 5) & 0xF_FFFF_FFFF
        return rate > 0 ? Double(samples) / Double(rate) : nil
    }

    /// Walks the top-level boxes to `moov`, then its children to `mvhd`.
    static func mp4(_ read: (Int64, Int) -> [UInt8], size: Int64) -> Double? {
        func find(_ type: String, from start: Int64, to end: Int64) -> (Int64, Int64)? {
            var offset = start
            for _ in 0..<256 where offset + 8 <= end {
                let box = Bytes(read(offset, 16))
                var length = Int64(box.be(0, 4)), header: Int64 = 8
                if length == 1 { length = Int64(clamping: box.be(8, 8)); header = 16 }
                if length == 0 { length = end - offset }
                guard length >= header else { return nil }
                if box.text(4, 4) == type { return (offset + header, offset + length) }
                offset += length
            }
            return nil
        }
        guard let (moov, moovEnd) = find("moov", from: 0, to: size), let (mvhd, _) = find("mvhd", from: moov, to: moovEnd) else { return nil }
        let b = Bytes(read(mvhd, 32))
        let version = b[0]
        let (scale, length) = version == 1 ? (b.be(20, 4), b.be(24, 8)) : (b.be(12, 4), b.be(16, 4))
        return scale > 0 ? Double(length) / Double(scale) : nil
    }

    /// Opus runs at 48 kHz whatever it was recorded at; Vorbis says its rate in its first
    /// header. The last page's granule position is the samples played at its end.
    static func ogg(_ head: [UInt8], tail: [UInt8]) -> Double? {
        let h = Bytes(head)
        let segments = Int(h[26])
        let packet = 27 + segments
        let rate: UInt64
        var skip: UInt64 = 0
        if h.text(packet, 8) == "OpusHead" {
            rate = 48_000
            skip = h.le(packet + 10, 2)  // pre-skip
        } else if h[packet] == 1, h.text(packet + 1, 6) == "vorbis" {
            rate = h.le(packet + 12, 4)
        } else {
            return nil
        }
        let t = Bytes(tail)
        var last: Int?
        var i = 0
        while i + 14 <= t.count {
            if t.b[i] == 0x4F, t.text(i, 4) == "OggS" { last = i }
            i += 1
        }
        guard let page = last, rate > 0 else { return nil }
        let granule = t.le(page + 6, 8)
        guard granule != UInt64.max, granule >= skip else { return nil }
        return Double(granule - skip) / Double(rate)
    }

    static func mp3(_ read: (Int64, Int) -> [UInt8], size: Int64) -> Double? {
        var start: Int64 = 0
        let id3 = Bytes(read(0, 10))
        if id3.text(0, 3) == "ID3" {
            // The tag's size is four 7-bit bytes.
            start = 10 + Int64((id3[6] << 21) | (id3[7] << 14) | (id3[8] << 7) | id3[9])
        }
        let frame = Bytes(read(start, 256))
        guard frame[0] == 0xFF, frame[1] & 0xE0 == 0xE0 else { return nil }
        let version = (frame[1] >> 3) & 3   // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
        let layer = (frame[1] >> 1) & 3     // 1: Layer III
        guard layer == 1, version != 1 else { return nil }
        let bitrates1: [UInt64] = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0]
        let bitrates2: [UInt64] = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0]
        let rates: [UInt64] = version == 3 ? [44_100, 48_000, 32_000, 0] : version == 2 ? [22_050, 24_000, 16_000, 0] : [11_025, 12_000, 8_000, 0]
        let bitrate = (version == 3 ? bitrates1 : bitrates2)[Int((frame[2] >> 4) & 0xF)] * 1000
        let rate = rates[Int((frame[2] >> 2) & 3)]
        guard rate > 0 else { return nil }
        let samplesPerFrame: UInt64 = version == 3 ? 1152 : 576
        let mono = (frame[3] >> 6) == 3
        let side = version == 3 ? (mono ? 17 : 32) : (mono ? 9 : 17)
        for offset in [4 + side, 36, 21, 13] {
            let tag = frame.text(offset, 4)
            if tag == "Xing" || tag == "Info" || tag == "VBRI" {
                let frames = tag == "VBRI" ? frame.be(offset + 14, 4) : (frame.be(offset + 4, 4) & 1 != 0 ? frame.be(offset + 8, 4) : 0)
                if frames > 0 { return Double(frames * samplesPerFrame) / Double(rate) }
            }
        }
        guard bitrate > 0 else { return nil }
        return Double(size - start) * 8 / Double(bitrate)
    }
}
