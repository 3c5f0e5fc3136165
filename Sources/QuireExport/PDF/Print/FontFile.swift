import Foundation

/// The parts of a font file that embedding a whole font needs (`WholeFonts`): an OpenType or
/// TrueType face (a collection's too) and its tables; a TrueType face's glyphs; a CFF
/// font's glyph programs and charset. Every read is checked: a file that is not what it
/// says throws, it never traps.
struct FontFile {
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// Big-endian reads from `bytes` (a table, or a whole file mapped), each checked against its end.
    struct Reader<Bytes: RandomAccessCollection> where Bytes.Element == UInt8, Bytes.Index == Int {
        let bytes: Bytes

        func u8(_ at: Int) throws -> Int {
            guard at >= 0, at < bytes.count else { throw Failure(reason: "a font table runs past its end") }
            return Int(bytes[bytes.startIndex + at])
        }
        func u16(_ at: Int) throws -> Int { try u8(at) << 8 | u8(at + 1) }
        func u32(_ at: Int) throws -> Int { try u16(at) << 16 | u16(at + 2) }
        func unsigned(_ at: Int, size: Int) throws -> Int { try (0..<size).reduce(0) { try $0 << 8 | u8(at + $1) } }
        func slice(_ at: Int, _ count: Int) throws -> Bytes.SubSequence {
            guard at >= 0, count >= 0, at <= bytes.count - count else { throw Failure(reason: "a font table runs past its end") }
            return bytes[(bytes.startIndex + at)..<(bytes.startIndex + at + count)]
        }
    }

    /// Reads `count` bytes at `offset` of the file, checked against its size: a file is read
    /// piece by piece, so of a 56 MB CJK collection only the face's own tables are read.
    private let read: (_ offset: Int, _ count: Int) throws -> [UInt8]
    private let isCollection: Bool
    private let size: Int
    let tables: [String: (offset: Int, length: Int, checksum: Int)]

    /// Face `face` of the font file at `path`.
    init(path: String, face: Int) throws {
        guard let handle = FileHandle(forReadingAtPath: path), let size = try? handle.seekToEnd() else { throw Failure(reason: "cannot read \(path)") }
        try self.init(size: Int(size), face: face) { offset, count in
            try handle.seek(toOffset: UInt64(offset))
            guard let data = try handle.read(upToCount: count), data.count == count else { throw Failure(reason: "\(path) ends early") }
            return [UInt8](data)
        }
    }

    /// Face `face` of the font file `bytes`.
    init(_ bytes: [UInt8], face: Int) throws {
        try self.init(size: bytes.count, face: face) { offset, count in Array(try Reader(bytes: bytes).slice(offset, count)) }
    }

    private init(size: Int, face: Int, read: @escaping (Int, Int) throws -> [UInt8]) throws {
        func piece(_ offset: Int, _ count: Int) throws -> Reader<[UInt8]> {
            guard offset >= 0, count >= 0, offset <= size - count else { throw Failure(reason: "a font table runs past its end") }
            return Reader(bytes: try read(offset, count))
        }
        (self.read, self.size) = (read, size)
        var directory = 0
        isCollection = try piece(0, 4).bytes == Array("ttcf".utf8)
        if isCollection {
            guard face >= 0, face < (try piece(8, 4).u32(0)) else { throw Failure(reason: "the collection has no face \(face)") }
            directory = try piece(12 + 4 * face, 4).u32(0)
        }
        let count = try piece(directory + 4, 2).u16(0)
        let records = try piece(directory, 12 + 16 * count)
        var tables: [String: (Int, Int, Int)] = [:]
        for index in 0..<count {
            let record = 12 + 16 * index
            let tag = String(decoding: try records.slice(record, 4), as: UTF8.self)
            let (checksum, offset, length) = (try records.u32(record + 4), try records.u32(record + 8), try records.u32(record + 12))
            guard offset >= 0, offset <= size - length else { throw Failure(reason: "a font table runs past its end") }
            tables[tag] = (offset, length, checksum)
        }
        self.tables = tables
        sfntVersion = Array(try records.slice(0, 4))
    }

    /// The face's first four bytes: TrueType outlines or CFF.
    private let sfntVersion: [UInt8]

    func table(_ tag: String) throws -> [UInt8] {
        guard let (offset, length, _) = tables[tag] else { throw Failure(reason: "the font has no '\(tag)' table") }
        return try read(offset, length)
    }

    /// The face as a font file of its own: the file itself, or a collection's face written out.
    func standalone() throws -> [UInt8] {
        guard isCollection else { return try read(0, size) }
        let tags = tables.keys.sorted()
        var power = 1, log = 0
        while power * 2 <= tags.count { power *= 2; log += 1 }
        var out: [UInt8] = []
        func put16(_ v: Int) { out += [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func put32(_ v: Int) { put16(v >> 16 & 0xFFFF); put16(v & 0xFFFF) }
        out += sfntVersion
        put16(tags.count); put16(power * 16); put16(log); put16(tags.count * 16 - power * 16)
        var offset = 12 + 16 * tags.count
        for tag in tags {
            guard let (_, length, checksum) = tables[tag] else { continue }
            out += Array(tag.utf8)
            put32(checksum); put32(offset); put32(length)
            offset += (length + 3) & ~3
        }
        for tag in tags {
            guard let (start, length, _) = tables[tag] else { continue }
            out += try read(start, length)
            out += [UInt8](repeating: 0, count: ((length + 3) & ~3) - length)
        }
        return out
    }
}

/// A TrueType face's glyphs: each one's outline program and advance.
struct TrueTypeGlyphs {
    private let glyf: FontFile.Reader<[UInt8]>
    private let offsets: [Int]
    private let advances: [Int]

    var count: Int { offsets.count - 1 }

    init(_ font: FontFile) throws {
        let head = FontFile.Reader(bytes: try font.table("head")), maxp = FontFile.Reader(bytes: try font.table("maxp"))
        let loca = FontFile.Reader(bytes: try font.table("loca")), hhea = FontFile.Reader(bytes: try font.table("hhea"))
        let hmtx = FontFile.Reader(bytes: try font.table("hmtx"))
        glyf = FontFile.Reader(bytes: try font.table("glyf"))
        let count = try maxp.u16(4), long = try head.u16(50) == 1
        offsets = try (0...count).map { long ? try loca.u32(4 * $0) : 2 * (try loca.u16(2 * $0)) }
        let metrics = max(1, try hhea.u16(34))
        advances = try (0..<count).map { try hmtx.u16(4 * min($0, metrics - 1)) }
        guard zip(offsets, offsets.dropFirst()).allSatisfy({ $0 <= $1 }), (offsets.last ?? 0) <= glyf.bytes.count else {
            throw FontFile.Failure(reason: "the font's glyph locations are out of order")
        }
    }

    func advance(_ glyph: Int) -> Int { advances.indices.contains(glyph) ? advances[glyph] : 0 }

    /// Glyph `glyph`'s program, as stored (with any zeros that pad it to a word).
    func program(_ glyph: Int) throws -> [UInt8] {
        guard glyph >= 0, glyph < count else { throw FontFile.Failure(reason: "no glyph \(glyph)") }
        return Array(try glyf.slice(offsets[glyph], offsets[glyph + 1] - offsets[glyph]))
    }

    /// Where a composite glyph's program names its parts (byte offsets of each glyph index);
    /// empty for a simple glyph.
    static func componentIndexes(_ program: [UInt8]) throws -> [Int] {
        let reader = FontFile.Reader(bytes: program)
        guard program.count >= 10, try reader.u16(0) >= 0x8000 else { return [] }
        var at = 10, found: [Int] = []
        while true {
            let flags = try reader.u16(at)
            _ = try reader.u16(at + 2)
            found.append(at + 2)
            at += 4 + (flags & 0x0001 != 0 ? 4 : 2)
            if flags & 0x0008 != 0 { at += 2 } else if flags & 0x0040 != 0 { at += 4 } else if flags & 0x0080 != 0 { at += 8 }
            guard flags & 0x0020 != 0 else { return found }
        }
    }
}

/// A CFF font (an OpenType face's `CFF ` table, or a PDF's CIDFontType0C stream): its glyph
/// programs, the CID of each glyph, and how to give its glyphs other CIDs.
struct CFFFont {
    /// One operator of a DICT with its operands: values and where each is written.
    struct Entry {
        let op: Int
        let operands: [(value: Int, bytes: Range<Int>)]
    }

    let bytes: [UInt8]
    /// Each glyph's program, as bytes of `bytes`.
    let charStrings: [Range<Int>]
    let isCIDKeyed: Bool
    private let top: [Entry]
    /// Where the header and the name, top, string and global subroutine indexes end: the
    /// rest of the font is reached only by offsets from the top dictionary.
    private let restStart: Int

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        let reader = FontFile.Reader(bytes: bytes)
        let names = try Self.index(reader, at: try reader.u8(2))
        let tops = try Self.index(reader, at: names.end)
        guard let dictionary = tops.items.first else { throw FontFile.Failure(reason: "a CFF font without a top dictionary") }
        top = try Self.dictionary(reader, dictionary)
        let strings = try Self.index(reader, at: tops.end)
        restStart = try Self.index(reader, at: strings.end).end
        guard let charStrings = top.first(where: { $0.op == 17 })?.operands.first?.value else { throw FontFile.Failure(reason: "a CFF font without glyphs") }
        self.charStrings = try Self.index(reader, at: charStrings).items
        isCIDKeyed = top.contains { $0.op == 1230 }
    }

    /// The CID of each glyph, from the charset (glyph 0 is CID 0); a font without a charset
    /// of its own numbers them in order.
    func cids() throws -> [Int] {
        let reader = FontFile.Reader(bytes: bytes), count = charStrings.count
        let offset = top.first(where: { $0.op == 15 })?.operands.first?.value ?? 0
        guard offset > 2 else { return Array(0..<count) }
        var cids = [0], at = offset + 1
        switch try reader.u8(offset) {
        case 0:
            while cids.count < count { cids.append(try reader.u16(at)); at += 2 }
        case let format where format == 1 || format == 2:
            while cids.count < count {
                let first = try reader.u16(at), left = format == 1 ? try reader.u8(at + 2) : try reader.u16(at + 2)
                at += format == 1 ? 3 : 4
                for cid in first...(first + left) where cids.count < count { cids.append(cid) }
            }
        default:
            throw FontFile.Failure(reason: "a CFF charset of an unknown format")
        }
        return cids
    }

    /// The font with its glyphs given the CIDs `cids` (one per glyph, glyph 0's 0). The top
    /// dictionary is written again with every offset in five bytes, the rest of the font
    /// follows unchanged (moved by as many bytes as the dictionary grew: the offsets that
    /// point into it, the private dictionaries' among them, are moved with it), and the new
    /// charset is appended.
    func recharted(_ cids: [Int]) throws -> [UInt8] {
        guard cids.count == charStrings.count, cids.first == 0 else { throw FontFile.Failure(reason: "a charset of the wrong size") }
        let reader = FontFile.Reader(bytes: bytes)
        let names = try Self.index(reader, at: try reader.u8(2))
        let tops = try Self.index(reader, at: names.end)
        let head = Array(bytes[0..<names.end])
        let afterTop = Array(bytes[tops.end..<restStart])
        func topDictionary(delta: Int, charset: Int) -> [UInt8]? {
            var out: [UInt8] = []
            for entry in top {
                switch entry.op {
                case 15: out += Self.int32(charset)
                case 17, 1236, 1237: out += entry.operands.flatMap { Self.int32($0.value + delta) }
                case 18 where entry.operands.count == 2:
                    out += Self.int32(entry.operands[0].value) + Self.int32(entry.operands[1].value + delta)
                case 18: return nil  // a private dictionary named otherwise than by size and offset
                default: for operand in entry.operands { out += bytes[operand.bytes] }
                }
                out += entry.op >= 1200 ? [12, UInt8(entry.op - 1200)] : [UInt8(entry.op)]
            }
            if !top.contains(where: { $0.op == 15 }) { out += Self.int32(charset) + [15] }
            return out
        }
        func index(_ item: [UInt8]) -> [UInt8] { [0, 1, 4] + Self.uint32(1) + Self.uint32(item.count + 1) + item }
        // Only offsets into the part that moves can be moved: a font that points elsewhere
        // (into its own indexes) is refused rather than written wrong.
        let moved = top.filter { [17, 18, 1236, 1237].contains($0.op) }.compactMap { $0.op == 18 ? $0.operands.dropFirst().first : $0.operands.first }
        guard moved.allSatisfy({ $0.value >= restStart }) else { throw FontFile.Failure(reason: "an offset points before the glyphs") }
        guard let sized = topDictionary(delta: 0, charset: 0).map(index) else { throw FontFile.Failure(reason: "an unusual private dictionary") }
        let delta = head.count + sized.count + afterTop.count - restStart
        let charset = restStart + delta + (bytes.count - restStart)
        guard let topIndex = topDictionary(delta: delta, charset: charset).map(index) else { throw FontFile.Failure(reason: "an unusual private dictionary") }
        var out = head + topIndex + afterTop + bytes[restStart...]
        // The font dictionaries of a CID font sit in the moved part and name their private
        // dictionaries by offsets from the start: moved too, in the bytes they had.
        if let fdArray = top.first(where: { $0.op == 1236 })?.operands.first?.value {
            for dictionary in try Self.index(reader, at: fdArray).items {
                guard dictionary.lowerBound >= restStart else { throw FontFile.Failure(reason: "a font dictionary before the glyphs") }
                for entry in try Self.dictionary(reader, dictionary) where entry.op == 18 && entry.operands.count == 2 {
                    let operand = entry.operands[1]
                    guard operand.value >= restStart else { throw FontFile.Failure(reason: "a private dictionary before the glyphs") }
                    let value = operand.value + delta
                    let encoded: [UInt8]
                    switch operand.bytes.count {
                    case 5: encoded = Self.int32(value)
                    case 3 where value <= Int(Int16.max): encoded = [28, UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
                    default: throw FontFile.Failure(reason: "a private dictionary's offset cannot be moved in place")
                    }
                    out.replaceSubrange((operand.bytes.lowerBound + delta)..<(operand.bytes.upperBound + delta), with: encoded)
                }
            }
        }
        out.append(0)
        for cid in cids.dropFirst() { out += [UInt8(cid >> 8 & 0xFF), UInt8(cid & 0xFF)] }
        return out
    }

    private static func uint32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    private static func int32(_ value: Int) -> [UInt8] { [29] + uint32(value) }

    /// An INDEX at `at`: its items as ranges of the bytes, and where it ends.
    private static func index(_ reader: FontFile.Reader<[UInt8]>, at: Int) throws -> (items: [Range<Int>], end: Int) {
        let count = try reader.u16(at)
        guard count > 0 else { return ([], at + 2) }
        let size = try reader.u8(at + 2)
        guard (1...4).contains(size) else { throw FontFile.Failure(reason: "a CFF index of offset size \(size)") }
        let base = at + 3 + (count + 1) * size - 1
        var items: [Range<Int>] = [], previous = try reader.unsigned(at + 3, size: size)
        for item in 1...count {
            let next = try reader.unsigned(at + 3 + item * size, size: size)
            guard next >= previous, base + next <= reader.bytes.count else { throw FontFile.Failure(reason: "a CFF index out of order") }
            items.append((base + previous)..<(base + next))
            previous = next
        }
        return (items, base + previous)
    }

    /// A DICT's operators (12 x as 1200 + x), in order, with their operands.
    private static func dictionary(_ reader: FontFile.Reader<[UInt8]>, _ range: Range<Int>) throws -> [Entry] {
        var entries: [Entry] = []
        var operands: [(value: Int, bytes: Range<Int>)] = []
        var at = range.lowerBound
        while at < range.upperBound {
            let b0 = try reader.u8(at), start = at
            let value: Int
            switch b0 {
            case 0...21:
                let op = b0 == 12 ? 1200 + (try reader.u8(at + 1)) : b0
                at += b0 == 12 ? 2 : 1
                entries.append(Entry(op: op, operands: operands))
                operands = []
                continue
            case 28: value = Int(Int16(truncatingIfNeeded: try reader.u16(at + 1))); at += 3
            case 29: value = Int(Int32(truncatingIfNeeded: try reader.u32(at + 1))); at += 5
            case 30:
                at += 1
                while try reader.u8(at) & 0x0F != 0x0F && reader.u8(at) >> 4 != 0x0F { at += 1 }
                at += 1
                value = 0
            case 32...246: value = b0 - 139; at += 1
            case 247...250: value = (b0 - 247) * 256 + (try reader.u8(at + 1)) + 108; at += 2
            case 251...254: value = -(b0 - 251) * 256 - (try reader.u8(at + 1)) - 108; at += 2
            default: throw FontFile.Failure(reason: "a CFF dictionary with a reserved byte")
            }
            operands.append((value, start..<at))
        }
        guard at == range.upperBound else { throw FontFile.Failure(reason: "a CFF dictionary runs past its end") }
        return entries
    }
}
