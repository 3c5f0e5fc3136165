import Foundation
import QuireSupport
#if canImport(Glibc)
import Glibc
#endif

/// Reads a file line by line in constant memory (lines end at LF; a CR before it is dropped;
/// a UTF-8 byte order mark, which Windows tools write first, is not part of the first line).
package final class LineReader {
    private let fd: Int32
    private let path: String
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private(set) var bytesRead: Int64 = 0
    let size: Int64

    package init(path: String) throws {
        fd = try FileIO.openForReading(path)
        self.path = path
        var info = stat()
        size = fstat(fd, &info) == 0 ? Int64(info.st_size) : 0
    }

    deinit { close(fd) }

    /// Calls `body` with the next line's bytes; returns false at the end of the file.
    package func next(_ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Bool {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                var end = newline
                if end > start && buffer[end - 1] == 0x0D { end -= 1 }
                let lineStart = start
                start = newline + 1
                try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[lineStart..<end])) }
                return true
            }
            if atEnd {
                guard start < buffer.count else { return false }
                let lineStart = start
                start = buffer.count
                try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[lineStart...])) }
                return true
            }
            buffer.removeSubrange(0..<start)
            start = 0
            let old = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: FileIO.chunkSize))
            let n = try buffer.withUnsafeMutableBytes { raw in
                try FileIO.readSome(fd, UnsafeMutableRawBufferPointer(rebasing: raw[old...]), path: path)
            }
            buffer.removeLast(FileIO.chunkSize - n)
            if bytesRead == 0 && buffer.starts(with: UTF8.byteOrderMark) { start = UTF8.byteOrderMark.count }
            bytesRead += Int64(n)
            if n == 0 { atEnd = true }
        }
    }
}
