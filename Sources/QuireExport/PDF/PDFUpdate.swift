import Foundation

/// Objects that replace some of a finished PDF's, appended as one incremental update (PDF 1.7
/// § 7.5.6): the objects, a cross-reference section for them alone, and a trailer that keeps
/// the file's catalogue, information and ID and points back at its last cross-reference
/// section. Nothing already in the file is rewritten, so the cost is that of what changes.
/// What to write is gathered first and written by `write`, so a step that fails leaves the
/// file as it was.
struct PDFUpdate {
    /// A replacement object: its text, or a stream's dictionary and the body's writer, or a
    /// stream made only as it is written.
    private struct Item {
        let number: Int
        var head = ""
        var body: ((FileHandle) throws -> Void)? = nil
        var made: (() throws -> (dictionary: String, body: [UInt8]))? = nil
        /// Objects `number`, `number + 1` … made only as they are written: how many, and each one's text.
        var series: (count: Int, make: (Int) -> String)? = nil
    }

    private var items: [Item] = []
    private var positions: [Int: Int] = [:]
    /// The number the next added object takes (the file's `/Size` at first).
    private var next: Int?
    /// The trailer's `/Info` (an object number) and `/ID` (its two strings), in place of the file's.
    var info: Int?
    var identifier: String?

    var isEmpty: Bool { items.isEmpty }

    /// Replaces object `number` (generation 0) by `text`, a PDF value.
    mutating func replace(_ number: Int, with text: String) {
        append(Item(number: number, head: text, body: nil))
    }

    /// Replaces object `number` by a stream of `dictionary` (whose `/Length` must be right)
    /// and the bytes `body` writes.
    mutating func replace(_ number: Int, dictionary: String, body: @escaping (FileHandle) throws -> Void) {
        append(Item(number: number, head: dictionary, body: body))
    }

    /// Replaces object `number` by a stream `make` returns when the update is written, so a
    /// book's thousands of rewritten pages are never held at once.
    mutating func replace(_ number: Int, making make: @escaping () throws -> (dictionary: String, body: [UInt8])) {
        append(Item(number: number, made: make))
    }

    /// Adds a new object of `text` to the file `pdf` reads; its number.
    mutating func add(_ text: String, to pdf: PDFReader) throws -> Int {
        let number = try allocate(pdf)
        append(Item(number: number, head: text, body: nil))
        return number
    }

    /// Adds a new stream of `dictionary` (whose `/Length` must be right) and `body`; its number.
    mutating func add(dictionary: String, body: [UInt8], to pdf: PDFReader) throws -> Int {
        let number = try allocate(pdf)
        append(Item(number: number, head: dictionary, body: { try $0.write(contentsOf: Data(body)) }))
        return number
    }

    /// Adds `count` new objects, the `k`th of them `make(k)`, made as the update is written
    /// (100,000 links are never held as text); the first one's number.
    mutating func add(count: Int, to pdf: PDFReader, making make: @escaping (Int) -> String) throws -> Int {
        let first = try allocate(pdf, count: count)
        append(Item(number: first, series: (count, make)))
        return first
    }

    private mutating func allocate(_ pdf: PDFReader, count: Int = 1) throws -> Int {
        let number = try next ?? Self.size(pdf)
        next = number + count
        return number
    }

    private static func size(_ pdf: PDFReader) throws -> Int {
        guard let size = pdf.value("Size", in: pdf.trailer).flatMap(pdf.integer) else { throw PDFReader.Failure(reason: "no /Size in its trailer") }
        return size
    }

    /// A second replacement of one object takes the first one's place.
    private mutating func append(_ item: Item) {
        if let at = positions[item.number] {
            items[at] = item
        } else {
            positions[item.number] = items.count
            items.append(item)
        }
    }

    /// Appends the update to the file at `path`, read as `pdf`.
    func write(to path: String, reading pdf: PDFReader) throws {
        guard !items.isEmpty else { return }
        let trailer = try trailerFields(pdf)
        guard let handle = FileHandle(forUpdatingAtPath: path) else { throw PDFReader.Failure(reason: "cannot open it to update") }
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        let previous = try Self.lastCrossReference(handle, size: size)
        var entries: [(number: Int, offset: UInt64)] = []
        for item in items {
            if let (count, make) = item.series {
                for k in 0..<count {
                    entries.append((item.number + k, try handle.offset() + 1))
                    try handle.write(contentsOf: Data("\n\(item.number + k) 0 obj\n\(make(k))\nendobj\n".utf8))
                }
                continue
            }
            entries.append((item.number, try handle.offset() + 1))
            if let make = item.made {
                let (dictionary, body) = try make()
                try handle.write(contentsOf: Data("\n\(item.number) 0 obj\n\(dictionary)\nstream\n".utf8))
                try handle.write(contentsOf: Data(body))
                try handle.write(contentsOf: Data("\nendstream\nendobj\n".utf8))
            } else if let body = item.body {
                try handle.write(contentsOf: Data("\n\(item.number) 0 obj\n\(item.head)\nstream\n".utf8))
                try body(handle)
                try handle.write(contentsOf: Data("\nendstream\nendobj\n".utf8))
            } else {
                try handle.write(contentsOf: Data("\n\(item.number) 0 obj\n\(item.head)\nendobj\n".utf8))
            }
        }
        let at = try handle.offset()
        var text = "xref\n" + entries.sorted { $0.number < $1.number }.map { "\($0.number) 1\n" + Self.pad($0.offset) + " 00000 n \n" }.joined()
        text += "trailer\n<< " + trailer + "   /Prev \(previous)\n>>\nstartxref\n\(at)\n%%EOF\n"
        try handle.write(contentsOf: Data(text.utf8))
    }

    /// The last trailer's `/Size`, `/Root`, `/Info` and `/ID`, as qpdf reads them, but for
    /// what the update adds or replaces.
    private func trailerFields(_ pdf: PDFReader) throws -> String {
        let trailer = pdf.trailer
        guard let size = pdf.value("Size", in: trailer).flatMap(pdf.integer), let root = pdf.value("Root", in: trailer),
              pdf.number(of: root) != nil else { throw PDFReader.Failure(reason: "no /Root or /Size in its trailer") }
        var fields = "/Size \(max(size, next ?? 0))\n   /Root \(pdf.text(root))\n"
        if let info { fields += "   /Info \(info) 0 R\n" } else if let info = pdf.value("Info", in: trailer) { fields += "   /Info \(pdf.text(info))\n" }
        if let identifier { fields += "   /ID \(identifier)\n" } else if let id = pdf.value("ID", in: trailer) { fields += "   /ID \(pdf.text(id, resolved: true))\n" }
        return fields
    }

    /// Where the file's last cross-reference section is: the number after the last
    /// `startxref`, which the file's last lines hold (§ 7.5.5).
    private static func lastCrossReference(_ handle: FileHandle, size: UInt64) throws -> UInt64 {
        try handle.seek(toOffset: size > 1024 ? size - 1024 : 0)
        let tail = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        guard let marker = tail.range(of: "startxref", options: .backwards),
              let offset = UInt64(tail[marker.upperBound...].split(whereSeparator: \.isWhitespace).first ?? ""), offset < size
        else { throw PDFReader.Failure(reason: "no startxref at its end") }
        return offset
    }

    private static func pad(_ offset: UInt64) -> String {
        let text = String(offset)
        return String(repeating: "0", count: max(0, 10 - text.count)) + text
    }
}
