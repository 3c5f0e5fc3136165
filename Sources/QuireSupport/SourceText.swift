import Foundation

/// A text file another tool wrote, as the importers and `quire edit` read it: UTF-8, without
/// the byte order mark Windows' Notepad puts first, and with Windows line ends (CRLF) read as
/// `\n` when the file was written with them: jrnl on Windows, a vault checked out by Git with
/// `autocrlf`, an editor set to save DOS files.
///
/// Swift reads `\r\n` as one `Character`, which is not `"\n"`: a CRLF file split at `"\n"`
/// is one line. The rule is the first line break's: a file whose first line ends in CRLF
/// has every CRLF read as `\n`; one whose first line ends in `\n` keeps its bytes as they
/// are, so a body with a carriage return of its own (a Quire export read back) is not changed.
package enum SourceText {
    /// Nil when the bytes are not UTF-8.
    package static func decode(_ data: Data) -> String? {
        data.withUnsafeBytes { raw in
            var bytes = raw.bindMemory(to: UInt8.self)[...]
            if bytes.starts(with: UTF8.byteOrderMark) { bytes = bytes.dropFirst(UTF8.byteOrderMark.count) }
            guard let firstBreak = bytes.firstIndex(of: UInt8(ascii: "\n")), firstBreak > bytes.startIndex,
                  bytes[firstBreak - 1] == UInt8(ascii: "\r") else {
                return String(validating: bytes, as: UTF8.self)
            }
            var unix: [UInt8] = []
            unix.reserveCapacity(bytes.count)
            for byte in bytes {
                if byte == UInt8(ascii: "\n"), unix.last == UInt8(ascii: "\r") { unix.removeLast() }
                unix.append(byte)
            }
            return String(validating: unix, as: UTF8.self)
        }
    }

    /// `data` less a leading byte order mark (for a JSON parser, which refuses one).
    package static func withoutByteOrderMark(_ data: Data) -> Data {
        data.starts(with: UTF8.byteOrderMark) ? Data(data.dropFirst(UTF8.byteOrderMark.count)) : data
    }
}
