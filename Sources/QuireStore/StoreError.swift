import Foundation
import CSQLite

/// The one error type of the Store layer. It carries a kind for callers to branch on and
/// context (path, line, SQLite code) — never entry text. The CLI turns it into one line.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// The store folder or database cannot be opened or is not a Quire store.
        case unreadable
        /// Another process holds the store's write lock.
        case busy
        /// The store was written by a newer Quire.
        case newerSchema
        /// No record with that id (or prefix).
        case notFound
        /// More than one record matches the id prefix.
        case ambiguous
        /// An argument or a field value is not acceptable.
        case invalid
        /// A line of an interchange or subtitle file is malformed.
        case malformed
        /// A file that should be read cannot be.
        case fileUnreadable
        /// Writing files failed (permissions, a device error).
        case io
        /// The disk (or the user's quota) is full.
        case noSpace
        /// The store was opened for reading alone, or may not be written by this user.
        case readOnly
        /// Any other SQLite failure.
        case database
    }

    public let kind: Kind
    /// File or folder the error is about, if any.
    public var path: String?
    /// 1-based line in `path`, if any.
    public var line: Int?
    /// What is wrong, in a few words, without user content.
    public var detail: String
    /// SQLite's result code, if it came from SQLite.
    package var code: Int32?

    package init(_ kind: Kind, path: String? = nil, line: Int? = nil, detail: String, code: Int32? = nil) {
        self.kind = kind
        self.path = path
        self.line = line
        self.detail = detail
        self.code = code
    }

    /// A local file `path` could not be read or written (`what` says which), in the system's
    /// words; a full disk or quota is `.noSpace`.
    package static func file(_ path: String, _ what: String, errno code: Int32 = errno) -> StoreError {
        let kind: Kind = code == ENOSPC || code == EDQUOT ? .noSpace : .io
        return StoreError(kind, path: path, detail: what + (code == 0 ? "" : ": " + FileIO.errnoText(code)))
    }

    public var description: String {
        var parts: [String] = []
        if let path {
            parts.append(line.map { "\(path):\($0)" } ?? path)
        } else if let line {
            parts.append("line \(line)")
        }
        parts.append(detail)
        return parts.joined(separator: ": ")
    }

    static func sqlite(_ rc: Int32, message: String, path: String, systemErrno: Int32 = 0) -> StoreError {
        // A full disk, however SQLite met it (SQLITE_FULL, or an I/O error whose cause was
        // ENOSPC or a quota): said as such, with the store's path.
        if rc & 0xff == SQLITE_FULL || (rc & 0xff == SQLITE_IOERR && (systemErrno == ENOSPC || systemErrno == EDQUOT)) {
            return StoreError(.noSpace, path: path, detail: "no space left on the disk that holds it; free some and try again", code: rc)
        }
        switch rc & 0xff {
        case SQLITE_BUSY, SQLITE_LOCKED:
            return StoreError(.busy, path: path, detail: "the store is in use by another process", code: rc)
        case SQLITE_READONLY:
            return StoreError(.readOnly, path: path, detail: "this store may not be written here (permission denied, or a read-only copy)", code: rc)
        case SQLITE_NOTADB, SQLITE_CORRUPT, SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH:
            return StoreError(.unreadable, path: path, detail: message, code: rc)
        case SQLITE_FULL, SQLITE_IOERR:
            return StoreError(.io, path: path, detail: message, code: rc)
        default:
            return StoreError(.database, path: path, detail: message, code: rc)
        }
    }
}
