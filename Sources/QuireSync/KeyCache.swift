import Foundation
import QuireCrypto
import QuireRemote
import QuireStore

/// The repository's master key kept on this device (`<store>/repository.key`, mode 0600), so
/// `sync` needs no passphrase after the first unlock — as a phone keeps its keychain. The
/// store beside it already holds the journal in plaintext, so the key adds no new exposure of
/// what is here; `quire remote forget-key` removes it. Restore, check and passwd always ask.
package enum KeyCache {
    static func path(_ storeFolder: String) -> String { storeFolder + "/repository.key" }

    /// The kept master key for `repositoryID`, if any.
    package static func load(storeFolder: String, repositoryID: String) -> RepositoryKeys? {
        guard let data = FileManager.default.contents(atPath: path(storeFolder)),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: String],
              object["repository"] == repositoryID, let encoded = object["key"], var raw = Data(base64Encoded: encoded) else {
            return nil
        }
        defer { raw.resetBytes(in: 0..<raw.count) }
        guard let secure = try? SecureBytes(copying: [UInt8](raw)) else { return nil }
        return try? RepositoryKeys(master: secure)
    }

    package static func save(_ keys: RepositoryKeys, storeFolder: String, repositoryID: String) throws {
        var raw = keys.master.withUnsafeBytes { Data($0) }
        defer { raw.resetBytes(in: 0..<raw.count) }
        var json = try JSONSerialization.data(withJSONObject: ["repository": repositoryID, "key": raw.base64EncodedString()])
        defer { json.resetBytes(in: 0..<json.count) }
        // A fresh temporary name opened O_CREAT|O_EXCL (a link planted there fails the open,
        // never redirects the key), 0600, fsynced, renamed; every step's error is checked.
        try FileIO.writeDurably(to: path(storeFolder), mode: 0o600) { fd in
            try json.withUnsafeBytes { try FileIO.writeAll(fd, $0, path: path(storeFolder)) }
        }
    }

    /// Removes the kept key; false when none was kept.
    @discardableResult
    package static func forget(storeFolder: String) -> Bool {
        unlink(path(storeFolder)) == 0
    }
}
