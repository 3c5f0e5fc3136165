import CZip
import Foundation
@testable import QuireStore

/// The import fixtures (made by Fixtures/import/make-fixtures.py, checked in).
enum ImportFixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/import").path
    static let media = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/media").path

    static func path(_ relative: String) -> String { folder + "/" + relative }

    static func bytes(_ path: String) -> Data { FileManager.default.contents(atPath: path) ?? Data() }
}

extension Store {
    /// Entries by their display title, for assertions.
    func entriesByTitle() throws -> [String: Entry] {
        Dictionary(try entries().map { ($0.displayTitle, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The JSON-lines dump as text: what two stores must agree on byte for byte.
    func dump(in dir: TempDir, _ name: String) throws -> String {
        try exportJSON(to: dir.path + "/" + name)
        return dir.read(name + "/entries.jsonl")
    }
}

/// Writes a zip holding `members` with libzip (tests only: hostile and odd archives).
func makeZip(_ path: String, _ members: [String: Data]) throws {
    try? FileManager.default.removeItem(atPath: path)
    var code: Int32 = 0
    guard let archive = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code) else { throw ZipReadError(reason: "zip_open \(code)") }
    var buffers: [UnsafeMutableRawPointer] = []
    for (name, data) in members.sorted(by: { $0.key < $1.key }) {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(data.count, 1), alignment: 1)
        data.copyBytes(to: buffer.assumingMemoryBound(to: UInt8.self), count: data.count)
        buffers.append(buffer)
        guard let source = zip_source_buffer(archive, buffer, UInt64(data.count), 0),
              zip_file_add(archive, name, source, zip_flags_t(ZIP_FL_ENC_UTF_8)) >= 0 else { throw ZipReadError(reason: "zip_file_add \(name)") }
    }
    let closed = zip_close(archive)
    buffers.forEach { $0.deallocate() }
    guard closed == 0 else { throw ZipReadError(reason: "zip_close") }
}
