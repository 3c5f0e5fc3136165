import Foundation
import QuireStore

/// The one error type of the Export layer: what went wrong and, where it helps, the file
/// (a template, the output, a cover image). Never entry text.
public struct ExportError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// A template cannot be read, parsed, or does not render to well-formed XML.
        case template
        /// An option's value cannot be used (a cover that is not an image, a missing folder).
        case invalid
        /// Writing the output failed.
        case io
    }

    public let kind: Kind
    public var path: String?
    public var detail: String

    package init(_ kind: Kind, path: String? = nil, detail: String) {
        self.kind = kind
        self.path = path
        self.detail = detail
    }

    public var description: String {
        guard let path else { return detail }
        return "\(path): \(detail)"
    }
}

/// Where an export writes, checked before anything is made there, so a failure names the
/// folder the person gave and why (never a hidden temporary name inside it).
enum OutputFolder {
    /// - Throws: `ExportError.io` naming `folder` when it is missing or not writable.
    static func check(_ folder: String) throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw ExportError(.io, path: folder, detail: "no such folder")
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            throw ExportError(.io, path: folder, detail: "permission denied: this user may not write in this folder")
        }
    }

    /// Puts a finished book written under `temporary` in place as `path`: the owner's alone (a
    /// book is the journal in plaintext; libraries create files as the umask allows), renamed,
    /// the folder synced. Returns its size.
    static func publish(_ temporary: String, as path: String, in folder: String) throws -> Int64 {
        guard chmod(temporary, 0o600) == 0, rename(temporary, path) == 0 else { throw ExportError(.io, path: path, detail: FileIO.errnoText()) }
        FileIO.syncFolder(folder)
        return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// A new private folder (0700) in `folder` for a book being written, registered with
    /// `Leftovers` so a stopped export removes it.
    static func workFolder(in folder: String, prefix: String) throws -> (path: String, token: Int) {
        let path = folder + "/" + prefix + UUID().uuidString.lowercased()
        guard mkdir(path, 0o700) == 0 else { throw ExportError(.io, path: folder, detail: "cannot write here: " + FileIO.errnoText()) }
        return (path, Leftovers.register(path))
    }

    /// Test hook: with `QUIRE_TEST_EXPORT_HOLD` set to a file, an export that reached `point`
    /// (its work under way at `path`) writes `path` there and waits to be stopped, so a test
    /// interrupts it mid-way without racing it.
    static func hold(at path: String) {
        guard let file = ProcessInfo.processInfo.environment["QUIRE_TEST_EXPORT_HOLD"] else { return }
        FileManager.default.createFile(atPath: file + ".tmp", contents: Data((path + "\n").utf8))
        rename(file + ".tmp", file)
        while true { pause() }
    }

    static func removeWork(_ work: (path: String, token: Int)) {
        try? FileManager.default.removeItem(atPath: work.path)
        Leftovers.forget(work.token)
    }

    /// `error` with a hidden working name under `temporary` replaced by `target`.
    static func naming(_ target: String, for error: Error, temporary: String) -> Error {
        if let e = error as? ExportError, e.path?.hasPrefix(temporary) == true { return ExportError(e.kind, path: target, detail: e.detail) }
        if var e = error as? StoreError, e.path?.hasPrefix(temporary) == true { e.path = target; return e }
        return error
    }
}
