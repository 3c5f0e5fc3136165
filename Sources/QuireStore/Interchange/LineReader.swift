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
    /// Read bytes; those in `start..<end` are not handed out yet. Allocated once, and only
    /// grown for a line longer than it.
    private var buffer = [UInt8](repeating: 0, count: FileIO.chunkSize)
    private var start = 0
    private var end = 0
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
            if let newline = buffer[start..<end].firstIndex(of: 0x0A) {
                var lineEnd = newline
                if lineEnd > start && buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                let lineStart = start
                start = newline + 1
                try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[lineStart..<lineEnd])) }
                return true
            }
            if atEnd {
                guard start < end else { return false }
                let (lineStart, lineEnd) = (start, end)
                start = end
                try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[lineStart..<lineEnd])) }
                return true
            }
            // The unread part goes to the front; a line longer than the buffer doubles it.
            let unread = end - start
            if start > 0 {
                let from = start
                buffer.withUnsafeMutableBytes { raw in
                    if let base = raw.baseAddress { memmove(base, base + from, unread) }
                }
                (start, end) = (0, unread)
            }
            if end == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
            let filled = end
            let n = try buffer.withUnsafeMutableBytes { raw in
                try FileIO.readSome(fd, UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), path: path)
            }
            end += n
            if bytesRead == 0 && buffer[..<end].starts(with: UTF8.byteOrderMark) { start = UTF8.byteOrderMark.count }
            bytesRead += Int64(n)
            if n == 0 { atEnd = true }
        }
    }
}
