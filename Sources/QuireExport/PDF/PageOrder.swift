import Foundation

/// Moves pages of a finished PDF by appending an incremental update (PDF 1.7 § 7.5.6): a new
/// page tree whose list of pages is in the new order, a cross-reference section for it alone,
/// and a trailer pointing back at the old one. Nothing cairo wrote is rewritten or read but
/// its trailer, its cross-reference table's first entries and the page tree.
///
/// The book uses it for its contents: they are set after the body, when every page number is
/// known, and moved to their place at the front, so the book is typeset in one pass. For a
/// right-to-left book the same update rewrites the catalogue with `/ViewerPreferences
/// << /Direction /R2L >>`, so readers and imposition tools put its spreads right to left.
/// For a print file it also rewrites every page's boxes (`boxes`): the media box moved to
/// widen the inside margin, and the trim and bleed boxes a printer places the page by.
enum PageOrder {
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { "cannot reorder the PDF's pages: " + reason }
    }

    /// Moves the last `count` pages of the PDF at `path` to just after page `after`; with
    /// `boxes`, gives the page at each position (1 = the first, in the new order) the boxes
    /// it returns in place of its `/MediaBox`.
    /// With `neutralInk` (a print file), each page's content stream goes in the same update
    /// with its neutral colours written as grey (`NeutralInk`).
    static func moveLast(_ count: Int, toAfter after: Int, in path: String, rightToLeft: Bool = false,
                         boxes: ((_ position: Int) -> String)? = nil, neutralInk: Bool = false) throws {
        guard count > 0 || rightToLeft || boxes != nil else { return }
        guard let handle = FileHandle(forUpdatingAtPath: path) else { throw Failure(reason: "cannot open it") }
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        let last = try trailer(handle, size: size)
        let (root, xrefOffset) = (last.root, last.xref)

        // The catalogue names the page tree; the cross-reference table says where it is.
        let catalog = try object(Int(root.split(separator: " ").first ?? "") ?? -1, xref: xrefOffset, handle: handle)
        guard let pagesRef = value(of: "Pages", in: catalog), let pagesNumber = Int(pagesRef.split(separator: " ").first ?? "") else {
            throw Failure(reason: "no page tree")
        }
        let tree = try object(pagesNumber, xref: xrefOffset, handle: handle)
        guard let open = tree.range(of: "/Kids"), let start = tree[open.upperBound...].firstIndex(of: "["),
              let end = tree[start...].firstIndex(of: "]") else { throw Failure(reason: "no list of pages") }
        let numbers = tree[tree.index(after: start)..<end].split(whereSeparator: \.isWhitespace)
        guard numbers.count % 3 == 0 else { throw Failure(reason: "an unexpected list of pages") }
        var kids: [String] = []
        for index in stride(from: 0, to: numbers.count, by: 3) { kids.append(String(numbers[index]) + " " + String(numbers[index + 1]) + " R") }
        guard count + after <= kids.count,
              Int(value(of: "Count", in: tree) ?? "") == kids.count else { throw Failure(reason: "a nested or odd page tree") }
        let moved = Array(kids.suffix(count))
        kids.removeLast(count)
        kids.insert(contentsOf: moved, at: after)

        var update = "\n\(pagesNumber) 0 obj\n<< /Type /Pages\n   /Kids [ " + kids.joined(separator: " ") + " ]\n   /Count \(kids.count)\n>>\nendobj\n"
        var entries = [(number: pagesNumber, offset: size + 1)]
        if rightToLeft, !catalog.contains("/ViewerPreferences") {
            guard let catalogNumber = Int(root.split(separator: " ").first ?? ""), let open = catalog.range(of: "<<"),
                  let close = catalog.range(of: ">>", options: .backwards), open.upperBound <= close.lowerBound else {
                throw Failure(reason: "an unexpected catalogue")
            }
            entries.append((catalogNumber, size + UInt64(update.utf8.count)))
            update += "\(catalogNumber) 0 obj\n<<" + catalog[open.upperBound..<close.lowerBound] + "   /ViewerPreferences << /Direction /R2L >>\n>>\nendobj\n"
        }
        if let boxes {
            for (index, kid) in kids.enumerated() {
                guard let number = Int(kid.split(separator: " ").first ?? "") else { throw Failure(reason: "an unexpected page reference") }
                let page = try object(number, xref: xrefOffset, handle: handle)
                guard let box = page.range(of: "/MediaBox"), let end = page[box.upperBound...].firstIndex(of: "]"),
                      let open = page.range(of: "<<"), let close = page.range(of: ">>", options: .backwards) else {
                    throw Failure(reason: "page object \(number) has no media box")
                }
                let body = page[open.lowerBound..<box.lowerBound] + boxes(index + 1) + page[page.index(after: end)..<close.upperBound]
                entries.append((number, size + UInt64(update.utf8.count)))
                update += "\(number) 0 obj\n" + body + "\nendobj\n"
            }
        }
        var bytes = Data(update.utf8)
        if neutralInk {
            for kid in kids {
                guard let number = Int(kid.split(separator: " ").first ?? ""),
                      let contents = value(of: "Contents", in: try object(number, xref: xrefOffset, handle: handle)),
                      let streamNumber = Int(contents.split(separator: " ").first ?? ""), contents.hasSuffix(" R") else {
                    throw Failure(reason: "a page without one content stream")
                }
                guard let grey = NeutralInk.gray(try NeutralInk.inflate(try streamBytes(streamNumber, xref: xrefOffset, handle: handle))) else { continue }
                let packed = try NeutralInk.deflate(grey)
                entries.append((streamNumber, size + UInt64(bytes.count)))
                bytes.append(Data("\(streamNumber) 0 obj\n<< /Length \(packed.count) /Filter /FlateDecode >>\nstream\n".utf8))
                bytes.append(contentsOf: packed)
                bytes.append(Data("\nendstream\nendobj\n".utf8))
            }
        }
        bytes.append(Data(closing(entries, at: size + UInt64(bytes.count), after: last).utf8))
        try handle.seekToEnd()
        try handle.write(contentsOf: bytes)
    }

    /// The raw (still encoded) bytes of stream object `number`: its `/Length` of them (a
    /// number, or another object holding it, as cairo writes) after `stream`.
    private static func streamBytes(_ number: Int, xref: UInt64, handle: FileHandle) throws -> [UInt8] {
        let offset = try offset(of: number, xref: xref, handle: handle)
        try handle.seek(toOffset: offset)
        let head = try handle.read(upToCount: 512) ?? Data()
        guard let marker = head.range(of: Data("stream".utf8)) else { throw Failure(reason: "object \(number) is not a stream") }
        let dictionary = String(decoding: head[..<marker.lowerBound], as: UTF8.self)
        guard dictionary.hasPrefix("\(number) 0 obj"), let length = value(of: "Length", in: dictionary) else {
            throw Failure(reason: "stream \(number) has no length")
        }
        var count: Int?
        if length.hasSuffix(" R"), let lengthNumber = Int(length.split(separator: " ").first ?? "") {
            let holder = try object(lengthNumber, xref: xref, handle: handle)
            count = holder.split(whereSeparator: \.isWhitespace).dropFirst(3).first.flatMap { Int($0) }
        } else {
            count = Int(length)
        }
        // The data starts after `stream` and its end of line (CR LF or LF).
        var start = marker.upperBound - head.startIndex
        if start < head.count, head[head.startIndex + start] == 0x0D { start += 1 }
        if start < head.count, head[head.startIndex + start] == 0x0A { start += 1 }
        guard let count, count >= 0, count < 1 << 30 else { throw Failure(reason: "stream \(number) has an unreadable length") }
        try handle.seek(toOffset: offset + UInt64(start))
        guard let data = try handle.read(upToCount: count), data.count == count else { throw Failure(reason: "stream \(number) is cut short") }
        return [UInt8](data)
    }

    /// The page count of a print file (one cross-reference table, as Ghostscript writes it)
    /// and its first page's trim size in points, for the cover that goes around it.
    static func printSize(of path: String) throws -> (pages: Int, width: Double, height: Double) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Failure(reason: "cannot open it") }
        defer { try? handle.close() }
        let last = try trailer(handle, size: try handle.seekToEnd())
        func reference(_ key: String, in text: String) -> Int? { value(of: key, in: text).flatMap { Int($0.split(separator: " ").first ?? "") } }
        guard let root = Int(last.root.split(separator: " ").first ?? ""),
              let treeNumber = reference("Pages", in: try object(root, xref: last.xref, handle: handle)) else { throw Failure(reason: "no page tree") }
        var node = try object(treeNumber, xref: last.xref, handle: handle)
        guard let pages = Int(value(of: "Count", in: node) ?? "") else { throw Failure(reason: "no page count") }
        // Down the first kids to the first page.
        for _ in 0..<16 where node.contains("/Kids") {
            guard let open = node.range(of: "/Kids"), let first = node[open.upperBound...].split(whereSeparator: { $0 == "[" || $0.isWhitespace }).first,
                  let number = Int(first) else { throw Failure(reason: "an unexpected list of pages") }
            node = try object(number, xref: last.xref, handle: handle)
        }
        guard let box = node.range(of: "/TrimBox"), let end = node[box.upperBound...].firstIndex(of: "]") else {
            throw Failure(reason: "its first page has no trim box: give the file `quire export pdf --print` made")
        }
        let numbers = node[box.upperBound..<end].split(whereSeparator: { $0 == "[" || $0.isWhitespace }).compactMap { Double($0) }
        guard numbers.count == 4 else { throw Failure(reason: "an unreadable trim box") }
        return (pages, numbers[2] - numbers[0], numbers[3] - numbers[1])
    }

    /// The last trailer of a PDF: its text, where its cross-reference table is, its catalogue.
    struct Trailer {
        let text: String
        let xref: UInt64
        let root: String
        let size: String
    }

    /// The trailer at the end of the file open in `handle`, `size` bytes long.
    static func trailer(_ handle: FileHandle, size: UInt64) throws -> Trailer {
        try handle.seek(toOffset: size > 4096 ? size - 4096 : 0)
        let tail = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        guard let trailerRange = tail.range(of: "trailer", options: .backwards),
              let startRange = tail.range(of: "startxref", options: .backwards),
              let xref = UInt64(tail[startRange.upperBound...].split(whereSeparator: \.isWhitespace).first ?? "")
        else { throw Failure(reason: "no trailer") }
        let text = String(tail[trailerRange.upperBound..<startRange.lowerBound])
        guard let root = value(of: "Root", in: text), let count = value(of: "Size", in: text) else { throw Failure(reason: "no /Root or /Size") }
        return Trailer(text: text, xref: xref, root: root, size: count)
    }

    /// The end of an incremental update whose objects were written at `entries`: its
    /// cross-reference section (at `xrefAt`) and a trailer leading back to `previous`.
    static func closing(_ entries: [(number: Int, offset: UInt64)], at xrefAt: UInt64, after previous: Trailer) -> String {
        var text = "xref\n" + entries.sorted { $0.number < $1.number }.map { "\($0.number) 1\n" + pad($0.offset) + " 00000 n \n" }.joined()
        var fields = "/Size \(previous.size)\n   /Root \(previous.root)\n"
        if let info = value(of: "Info", in: previous.text) { fields += "   /Info \(info)\n" }
        if let id = previous.text.range(of: "/ID") { fields += "   " + previous.text[id.lowerBound...].prefix { $0 != "\n" } + "\n" }
        text += "trailer\n<< " + fields + "   /Prev \(previous.xref)\n>>\nstartxref\n\(xrefAt)\n%%EOF\n"
        return text
    }

    /// The text of object `number` (from `N 0 obj` to `endobj`), found through the table at `xref`.
    private static func object(_ number: Int, xref: UInt64, handle: FileHandle) throws -> String {
        try handle.seek(toOffset: try offset(of: number, xref: xref, handle: handle))
        var text = ""
        while !text.contains("endobj") {
            guard let chunk = try handle.read(upToCount: 65_536), !chunk.isEmpty else { throw Failure(reason: "object \(number) never ends") }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard text.hasPrefix("\(number) 0 obj"), let end = text.range(of: "endobj") else { throw Failure(reason: "object \(number) is not where the table says") }
        return String(text[..<end.lowerBound])
    }

    /// Where object `number` starts, as the cross-reference table at `xref` says.
    private static func offset(of number: Int, xref: UInt64, handle: FileHandle) throws -> UInt64 {
        try handle.seek(toOffset: xref)
        let head = String(decoding: try handle.read(upToCount: 64) ?? Data(), as: UTF8.self)
        let lines = head.split(separator: "\n")
        guard lines.count >= 2, lines[0].hasPrefix("xref") else { throw Failure(reason: "no cross-reference table") }
        let section = lines[1].split(separator: " ")
        guard section.count == 2, let first = Int(section[0]), let total = Int(section[1]), number >= first, number < first + total
        else { throw Failure(reason: "object \(number) is not in the table") }
        // Entries are 20 bytes each, after "xref\n" and the section line.
        let entryAt = xref + UInt64(lines[0].utf8.count + 1 + lines[1].utf8.count + 1 + (number - first) * 20)
        try handle.seek(toOffset: entryAt)
        guard let entry = try handle.read(upToCount: 20), let offset = UInt64(String(decoding: entry.prefix(10), as: UTF8.self)) else {
            throw Failure(reason: "a damaged table entry")
        }
        return offset
    }

    /// The value after `/key` in a dictionary's text: a number, or `N G R`.
    private static func value(of key: String, in text: String) -> String? {
        guard let range = text.range(of: "/" + key + " ") else { return nil }
        let words = text[range.upperBound...].split(whereSeparator: \.isWhitespace).prefix(3)
        guard let first = words.first, Int(first) != nil else { return nil }
        if words.count == 3, words[words.startIndex + 2] == "R" || words[words.startIndex + 2].hasPrefix("R") {
            return words.prefix(2).joined(separator: " ") + " R"
        }
        return String(first)
    }

    private static func pad(_ offset: UInt64) -> String {
        let text = String(offset)
        return String(repeating: "0", count: max(0, 10 - text.count)) + text
    }
}
