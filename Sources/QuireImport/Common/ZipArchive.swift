import CZip
import Foundation
import QuireStore
import QuireSupport

/// A zip archive read in place with libzip: its names checked once, its entries streamed,
/// never unpacked onto disk or whole into memory. The only file of the Import layer that
/// talks to libzip.
final class ZipArchive: @unchecked Sendable {  // entries are read by one import thread at a time
    private let archive: OpaquePointer
    let path: String
    /// Entry names (files only) to their index.
    private(set) var names: [String: UInt64] = [:]

    /// Opens `path` and checks every entry name: one that is absolute, climbs out with `..`,
    /// or uses backslashes is refused with the whole archive, since such an archive was not
    /// written by the app it claims to come from.
    /// - Throws: `ImportError` naming the file (damaged, not a zip) or the entry.
    init(path: String) throws {
        self.path = path
        let fd: Int32
        do {
            fd = try SourceFile.named(path).openDescriptor()
        } catch {
            throw ImportError(path: path, detail: "cannot be read (\(error))")
        }
        var code: Int32 = 0
        guard let archive = zip_fdopen(fd, ZIP_RDONLY | ZIP_CHECKCONS, &code) else {
            close(fd)
            throw ImportError(path: path, detail: "is not a readable zip archive (\(Self.message(code)))")
        }
        self.archive = archive
        let count = zip_get_num_entries(archive, 0)
        // From here on, `deinit` closes the archive whatever is thrown.
        guard count >= 0 else { throw ImportError(path: path, detail: "is not a readable zip archive") }
        for index in 0..<UInt64(count) {
            guard let raw = zip_get_name(archive, index, zip_flags_t(ZIP_FL_ENC_GUESS)) else { continue }
            let name = String(decoding: UnsafeRawBufferPointer(start: raw, count: strlen(raw)), as: UTF8.self)
            guard Self.isSafe(name) else {
                throw ImportError(path: path, place: "entry \(TextSnippet.quoted(name))",
                                  detail: "its path leaves the archive's folder; nothing was imported")
            }
            if !name.hasSuffix("/") { names[name] = index }
        }
    }

    deinit { zip_discard(archive) }

    /// A relative path of plain components: no leading `/`, no `..`, no `\`, no NUL.
    static func isSafe(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("\\"), !name.contains("\u{0}") else { return false }
        return !name.split(separator: "/", omittingEmptySubsequences: false).contains("..")
    }

    /// The uncompressed size the archive claims for `name`.
    func size(of name: String) -> UInt64? {
        guard let index = names[name] else { return nil }
        var info = zip_stat_t()
        zip_stat_init(&info)
        guard zip_stat_index(archive, index, 0, &info) == 0, info.valid & UInt64(ZIP_STAT_SIZE) != 0 else { return nil }
        return info.size
    }

    /// The whole of entry `name`, refused beyond `limit` bytes (a JSON file).
    func read(_ name: String, limit: Int) throws -> Data {
        let stream = try open(name)
        var data = Data()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = try stream.read(into: buffer)
            if n == 0 { return data }
            guard data.count + n <= limit else {
                throw ImportError(path: path, place: name, detail: "is larger than \(ByteCount.text(Int64(limit)))")
            }
            data.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
    }

    /// A stream of entry `name`'s bytes, checked against its CRC at the end.
    func open(_ name: String) throws -> ByteStream {
        guard let index = names[name] else { throw ImportError(path: path, place: name, detail: "is not in the archive") }
        guard let file = zip_fopen_index(archive, index, 0) else {
            throw ImportError(path: path, place: name, detail: "cannot be read (\(String(cString: zip_strerror(archive))))")
        }
        return EntryStream(archive: self, file: file, shown: path + ": " + name)
    }

    private static func message(_ code: Int32) -> String {
        var error = zip_error_t()
        zip_error_init_with_code(&error, code)
        defer { zip_error_fini(&error) }
        return String(cString: zip_error_strerror(&error)).lowercased()
    }

    private final class EntryStream: ByteStream {
        let archive: ZipArchive  // keeps the archive open while the entry is read
        let file: OpaquePointer
        let shown: String

        init(archive: ZipArchive, file: OpaquePointer, shown: String) {
            self.archive = archive
            self.file = file
            self.shown = shown
        }

        deinit { zip_fclose(file) }

        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            let n = zip_fread(file, buffer.baseAddress, UInt64(buffer.count))
            guard n >= 0 else {
                throw StoreError(.fileUnreadable, path: shown, detail: "damaged in the archive (\(String(cString: zip_file_strerror(file)).lowercased()))")
            }
            return Int(n)
        }
    }
}
