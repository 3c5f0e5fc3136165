import Foundation
import Testing
@testable import QuireStore
import QuireSupport

@Suite struct LineReaderTests {
    let dir = TempDir()

    private func lines(_ bytes: [UInt8]) throws -> [[UInt8]] {
        let reader = try LineReader(path: dir.file("lines", bytes: bytes))
        var out: [[UInt8]] = []
        while try reader.next({ out.append(Array($0)) }) {}
        #expect(reader.bytesRead == Int64(bytes.count))
        return out
    }

    @Test func endingsAndTheByteOrderMark() throws {
        #expect(try lines([]).isEmpty)
        #expect(try lines(Array("\n".utf8)) == [[]])
        #expect(try lines(Array("a\r\nb\n\nc".utf8)) == [Array("a".utf8), Array("b".utf8), [], Array("c".utf8)])
        #expect(try lines(UTF8.byteOrderMark + Array("я\n".utf8)) == [Array("я".utf8)])
        #expect(try lines(Array("a\rb\n".utf8)) == [Array("a\rb".utf8)])  // a lone CR is text
    }

    /// Lines across the reads' edges, a CR LF split between two reads, and one line longer
    /// than the buffer (which grows for it) come back whole.
    @Test func linesAcrossReadsAndLongerThanTheBuffer() throws {
        let chunk = FileIO.chunkSize
        var expected: [[UInt8]] = []
        var bytes: [UInt8] = []
        for n in [chunk - 3, 5, chunk * 2 + 17, 0, 1, chunk - 1] {
            let line = (0..<n).map { UInt8(0x41 + $0 % 26) }
            expected.append(line)
            bytes += line + [0x0D, 0x0A]
        }
        bytes += Array("last".utf8)
        expected.append(Array("last".utf8))
        #expect(try lines(bytes) == expected)
    }
}
