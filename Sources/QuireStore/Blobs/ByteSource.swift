import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A stream of bytes an attachment is read from: a file, or an entry of an archive that is
/// never unpacked onto disk (a Day One zip). Read once, front to back, in chunks.
package protocol ByteStream: AnyObject {
    /// Fills up to `buffer.count` bytes; 0 means the end.
    /// - Throws: `.fileUnreadable` naming the source.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// Where an imported attachment's bytes come from: a file beneath the import's folder, or a
/// stream an importer opens on demand. `key` names the bytes' origin, so the same file named
/// by two entries is read once.
package struct AttachmentSource: @unchecked Sendable {  // `open` is called by one import thread at a time
    package let key: String
    /// How errors name it (`export.zip: photos/ab12….jpeg`).
    package let shown: String
    let open: () throws -> ByteStream

    package init(key: String, shown: String, open: @escaping () throws -> ByteStream) {
        self.key = key
        self.shown = shown
        self.open = open
    }

    /// A file, opened as `file.open()` does (beneath its folder, no links, no FIFOs).
    package static func file(_ file: SourceFile) -> AttachmentSource {
        AttachmentSource(key: "file:" + file.description, shown: file.description) { try FileStream(file) }
    }
}

/// A file descriptor read as a `ByteStream`, closed when the stream goes.
final class FileStream: ByteStream {
    private let fd: Int32
    private let path: String

    init(_ file: SourceFile) throws {
        fd = try file.open()
        path = file.description
    }

    deinit { close(fd) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try FileIO.readSome(fd, buffer, path: path)
    }
}
