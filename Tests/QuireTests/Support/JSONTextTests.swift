import Foundation
import Testing
import QuireSupport

/// JSON text must be valid UTF-8: the parser takes exactly the strings Swift's own
/// validation takes, byte for byte, whatever their length (each length takes its own path:
/// inline, shared between rows, allocated), and refuses the others with one error.
@Suite struct JSONTextTests {
    /// Bytes that make and break UTF-8: ASCII, continuation bytes, every kind of lead byte,
    /// the ones never allowed (C0, C1, F5-FF), the edges of overlong and surrogate forms.
    static let palette: [[UInt8]] = [
        [0x61], [0x7A], [0x80], [0x8F], [0x90], [0x9F], [0xA0], [0xBF], [0xC0], [0xC1], [0xC2], [0xDF], [0xE0], [0xED], [0xEF],
        [0xF0], [0xF4], [0xF5], [0xFF], [0xEF, 0xBF, 0xBD], [0xF0, 0x9F, 0x98], [0xF0, 0x9F, 0x98, 0x80], [0xED, 0xA0, 0x80],
        [0xE0, 0x80, 0xAF], [0xC3, 0xA9], [0xD0, 0xB6], [0xE6, 0x9D, 0xB1], [0xF4, 0x90, 0x80, 0x80],
    ]

    @Test(arguments: [0, 20, 100])
    func stringsAreTakenExactlyWhenTheyAreUTF8(padding: Int) throws {
        var generator = SystemRandomNumberGenerator()
        var samples: [[UInt8]] = Self.palette + Self.palette.flatMap { a in Self.palette.map { a + $0 } }
        for _ in 0..<1500 {
            samples.append((0..<Int.random(in: 1...6, using: &generator)).flatMap { _ in Self.palette.randomElement(using: &generator) ?? [] })
        }
        var wrong: [String] = []
        for sample in samples {
            // Before and after: a bad sequence at the end of a string is a case of its own.
            for text in [sample + Array(repeating: 0x62, count: padding), Array(repeating: 0x62, count: padding) + sample] {
                let expected = String(validating: text, as: UTF8.self)
                let document = Array("[\"".utf8) + text + Array("\", \"".utf8) + text + Array("\"]".utf8)
                for sharing in [false, true] {
                    let parsed = document.withUnsafeBufferPointer { try? JSONValue.parse($0, sharingStrings: sharing) }
                    let strings = parsed?.array?.compactMap(\.string)
                    let fine = expected.map { strings == [$0, $0] && $0.utf8.elementsEqual(text) } ?? (parsed == nil)
                    if !fine { wrong.append("\(text.map { String($0, radix: 16) }) sharing \(sharing): \(String(describing: strings))") }
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) wrong, e.g. \(wrong.prefix(3))")
    }
}
