import CZip
import Foundation

/// A zip archive written with libzip, reproducibly: every entry gets the same given DOS
/// time (libzip would otherwise write file modification times converted to local time)
/// and the same Unix attributes, so equal input gives equal bytes on any machine and in
/// any `TZ`. Files are added by path and streamed at `close`, so a 2 GiB recording never
/// sits in memory. The only file that talks to libzip.
final class ZipWriter {
    private var archive: OpaquePointer?
    let path: String
    private let dosTime: UInt16
    private let dosDate: UInt16

    /// Creates a new archive at `path` (which must not exist) whose entries carry `time`.
    init(path: String, time: LocalDate) throws {
        var code: Int32 = 0
        guard let archive = zip_open(path, ZIP_CREATE | ZIP_EXCL, &code) else {
            throw ExportError(.io, path: path, detail: "cannot create the archive (libzip error \(code))")
        }
        self.archive = archive
        self.path = path
        let year = min(max(time.year, 1980), 2107)
        dosTime = UInt16(time.hour << 11 | time.minute << 5 | time.second / 2)
        dosDate = UInt16((year - 1980) << 9 | time.month << 5 | time.day)
    }

    deinit { if let archive { zip_discard(archive) } }

    /// Adds `bytes` as `name`; deflated unless `compress` is false.
    func add(_ name: String, bytes: [UInt8], compress: Bool = true) throws {
        guard let archive else { throw closed() }
        // libzip reads a buffer only at zip_close: hand it memory it frees itself.
        let count = max(bytes.count, 1)
        guard let memory = malloc(count) else { throw ExportError(.io, path: path, detail: "out of memory") }
        bytes.withUnsafeBytes { if let base = $0.baseAddress { memcpy(memory, base, bytes.count) } }
        guard let source = zip_source_buffer(archive, memory, zip_uint64_t(bytes.count), 1) else {
            free(memory)
            throw failure("cannot add \(name)")
        }
        try add(name, source: source, compress: compress)
    }

    /// Adds `text` (UTF-8) as `name`.
    func add(_ name: String, text: String, compress: Bool = true) throws {
        try add(name, bytes: Array(text.utf8), compress: compress)
    }

    /// Adds the file at `file` as `name`, read at `close`; stored, not deflated, by default
    /// (photos and recordings are compressed already).
    func add(_ name: String, file: String, compress: Bool = false) throws {
        guard let archive else { throw closed() }
        guard let source = zip_source_file(archive, file, 0, -1) else { throw failure("cannot read \(file)") }
        try add(name, source: source, compress: compress)
    }

    private func add(_ name: String, source: OpaquePointer, compress: Bool) throws {
        guard let archive else { throw closed() }
        let index = zip_file_add(archive, name, source, zip_flags_t(ZIP_FL_ENC_UTF_8))
        guard index >= 0 else {
            zip_source_free(source)
            throw failure("cannot add \(name)")
        }
        let method: Int32 = compress ? ZIP_CM_DEFLATE : ZIP_CM_STORE
        guard zip_set_file_compression(archive, zip_uint64_t(index), method, 0) == 0,
              zip_file_set_dostime(archive, zip_uint64_t(index), dosTime, dosDate, 0) == 0,
              zip_file_set_external_attributes(archive, zip_uint64_t(index), 0, zip_uint8_t(ZIP_OPSYS_UNIX), 0o100644 << 16) == 0
        else { throw failure("cannot set up \(name)") }
    }

    /// Writes the archive; `progress` hears the fraction done while libzip copies.
    func close(progress: ((Double) -> Void)? = nil) throws {
        guard let archive else { throw closed() }
        let box = progress.map { ProgressBox($0) }
        if let box {
            zip_register_progress_callback_with_state(archive, 0.01, zipProgress, nil, Unmanaged.passUnretained(box).toOpaque())
        }
        let result = withExtendedLifetime(box) { zip_close(archive) }
        guard result == 0 else {
            let reason = String(cString: zip_strerror(archive))
            zip_discard(archive)
            self.archive = nil
            throw ExportError(.io, path: path, detail: reason)
        }
        self.archive = nil
    }

    private func failure(_ what: String) -> ExportError {
        ExportError(.io, path: path, detail: what + ": " + (archive.map { String(cString: zip_strerror($0)) } ?? "closed"))
    }

    private func closed() -> ExportError { ExportError(.io, path: path, detail: "archive already closed") }
}

private final class ProgressBox {
    let report: (Double) -> Void
    init(_ report: @escaping (Double) -> Void) { self.report = report }
}

private func zipProgress(_ archive: OpaquePointer?, _ fraction: Double, _ state: UnsafeMutableRawPointer?) {
    guard let state else { return }
    Unmanaged<ProgressBox>.fromOpaque(state).takeUnretainedValue().report(fraction)
}
