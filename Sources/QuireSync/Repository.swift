import Foundation
import QuireSupport
import QuireCrypto
import QuireRemote

/// The encrypted repository on a backend (DESIGN.md, "Remote repository"):
/// - `quire-repo.json`: format and repository id, no secrets;
/// - `keys/<id>`: the master key wrapped by a passphrase (Argon2id), one file per passphrase;
/// - `blobs/<2 hex>/<blob id>`: attachments, secretstream-encrypted, named by keyed BLAKE2b.
package final class Repository {
    package let backend: Backend
    package let id: String
    package let keys: RepositoryKeys
    package let box: RecordBox
    /// The key file this session unlocked with.
    package let keyName: String
    /// The bucket `initialize` made for the repository (`MakesBuckets`), as a person names
    /// it; nil when it made none.
    package private(set) var madeBucket: String?
    /// Called as each 64 KiB chunk of a blob upload is sealed (progress; tests crash here).
    package var uploadChunk: (() -> Void)?

    package static let configPath = "quire-repo.json"
    package static let keysFolder = "keys"
    /// 2: attachments in packs (`packs/<device>/<id>`), located by the segments and snapshots
    /// that name them; blob objects of format 1 are still read.
    /// 3: change-log segments compressed with zstd before they are sealed (`WireCompression`);
    /// uncompressed ones are still read.
    ///
    /// A device that synced here before reads this file only when `heads/` does not show a
    /// log it wrote or merged, or shows a name it does not know (`Heads.confirm`). So a format
    /// that a Quire of this one's must not write into also leaves a name in `heads/` that is
    /// not a head (`format.4`, say): this Quire then reads the format here and says
    /// "upgrade Quire".
    package static let format = 3

    struct Config: Codable {
        var format: Int
        var id: String
    }

    init(backend: Backend, id: String, keys: RepositoryKeys, keyName: String) {
        self.backend = backend
        self.id = id
        self.keys = keys
        self.keyName = keyName
        self.box = RecordBox(keys: keys, repositoryID: id)
    }

    /// Creates a repository: a fresh master key, wrapped by `passphrase`, then the config.
    /// The config is published last and create-only, so of two devices initialising the same
    /// URL at once exactly one wins, and a crash leaves no half repository that looks whole.
    /// - Throws: `.alreadyExists` when a repository is there.
    package static func initialize(backend: Backend, passphrase: SecureBytes, cost: KeyCost = .moderate) throws -> Repository {
        // A bucket not made yet is made first (only here: elsewhere a missing one is a wrong
        // address). It stays if what follows fails: it is empty, and the next init uses it.
        var madeBucket: String?
        if let buckets = backend as? MakesBuckets, try !buckets.bucketExists() {
            try buckets.makeBucket()
            madeBucket = buckets.bucketName
        }
        if madeBucket == nil, try configExists(backend) {
            throw SyncError(.alreadyExists, detail: "a Quire repository already exists at \(backend.location)")
        }
        let id = UUID().uuidString.lowercased()
        let keys = try RepositoryKeys.generate()
        let keyName = try writeKeyFile(backend: backend, keys: keys, passphrase: passphrase, repositoryID: id, cost: cost)
        let config = try JSONEncoder().encode(Config(format: format, id: id))
        // The folders every device writes into, made once here, so no device's first sync
        // spends round trips finding them missing.
        for folder in [Heads.folder, LogSegment.folder, Pack.folder] { try backend.makeFolder(folder) }
        do {
            try backend.publishData(configPath, config)
        } catch let error as RemoteError where error.kind == .exists {
            // Ours after all, when an answer was lost and the retry found it in place.
            if (try? readID(backend)) != id {
                try? backend.delete(keysFolder + "/" + keyName)
                throw SyncError(.alreadyExists, detail: "a Quire repository already exists at \(backend.location)")
            }
        }
        let repository = Repository(backend: backend, id: id, keys: keys, keyName: keyName)
        repository.madeBucket = madeBucket
        return repository
    }

    /// Throws `.alreadyExists` when `backend` holds a repository, and the backend's error
    /// when it cannot be reached or listed. The repository's `keys` folder is made now (as
    /// `initialize` would), so a URL under a folder the server lacks is named before anything
    /// else is asked. A bucket not made yet is free: `initialize` makes it.
    package static func checkFree(_ backend: Backend) throws {
        if let buckets = backend as? MakesBuckets, try !buckets.bucketExists() { return }
        if try configExists(backend) {
            throw SyncError(.alreadyExists, detail: "a Quire repository already exists at \(backend.location)")
        }
        try backend.makeFolder(keysFolder)
    }

    private static func configExists(_ backend: Backend) throws -> Bool {
        do {
            return try backend.list("").contains { $0.name == configPath }
        } catch let error as RemoteError where error.kind == .notFound {
            return false
        }
    }

    /// Wraps the master key under `passphrase` into a new `keys/<random id>`; returns its name.
    private static func writeKeyFile(backend: Backend, keys: RepositoryKeys, passphrase: SecureBytes, repositoryID: String,
                                     cost: KeyCost) throws -> String {
        let file = try KeyFile.wrap(keys, passphrase: passphrase, repositoryID: repositoryID, cost: cost)
        let name = UUID().uuidString.lowercased()
        try backend.publishData(keysFolder + "/" + name, try file.encoded())
        return name
    }

    /// Moves a repository of an older format to this Quire's, before this device writes what
    /// only this format holds (a pack, a compressed segment): from then on an older Quire
    /// refuses the repository ("upgrade Quire") rather than meeting objects it cannot read.
    /// The config is written under a temporary name and moved over the old one, so no reader
    /// sees half of it.
    func moveForward() throws {
        let data = try backend.getData(Self.configPath, limit: 64 << 10)
        guard let config = try? JSONDecoder().decode(Config.self, from: data), config.id == id else {
            throw SyncError(.wrongRepository, detail: "the repository at \(backend.location) changed while syncing")
        }
        guard config.format < Self.format else { return }
        let temp = ".tmp-config-" + UUID().uuidString.lowercased()
        try backend.putData(temp, try JSONEncoder().encode(Config(format: Self.format, id: id)))
        try backend.move(temp, to: Self.configPath, overwrite: true)
    }

    /// The repository id at `backend`, without unlocking it.
    /// - Throws: `.noRepository` when there is none, `.badConfig` when it is unreadable.
    package static func readID(_ backend: Backend) throws -> String {
        let data: Data
        do {
            data = try backend.getData(configPath, limit: 64 << 10)
        } catch let error as RemoteError where error.kind == .notFound {
            throw SyncError(.noRepository, detail: "no Quire repository at \(backend.location)")
        }
        guard let config = try? JSONDecoder().decode(Config.self, from: data), !config.id.isEmpty else {
            throw SyncError(.badConfig, detail: "\(configPath) at \(backend.location) is not a Quire repository description")
        }
        guard config.format <= format else {
            throw SyncError(.badConfig, detail: "the repository at \(backend.location) uses format \(config.format); upgrade Quire")
        }
        return config.id
    }

    /// Unlocks the repository with `passphrase`. With `expectedID` (the id this store synced
    /// with), a different or missing repository is a hard error, before anything else happens.
    /// - Throws: `.noRepository`, `.wrongRepository`, `CryptoError.wrongPassphrase`.
    /// `preferredKey`, the key file that opened last time, is tried first; at most
    /// `maxKeyFilesTried` are tried in all, each bounded by `KeyCost.ceiling`, so a
    /// server that lists a thousand costly key files costs seconds, not hours.
    /// With `side`, a second connection, the key files are listed over it while the
    /// repository's description is read: one round trip fewer before the key derivation.
    package static func open(backend: Backend, passphrase: SecureBytes, expectedID: String?,
                            preferredKey: String? = nil, listingOver side: Backend? = nil) throws -> Repository {
        let listing = side.map { side in ReadAhead<Result<[String], any Error>>(depth: 1) { put in try put(Result { try keyNames(side) }) } }
        defer { listing?.stop() }
        let id = try readID(backend)
        if let expectedID, expectedID != id { throw notThisOne(backend, expected: expectedID, found: id) }
        let names = try listing.map { try $0.next()?.get() ?? [] } ?? keyNames(backend)
        guard !names.isEmpty else {
            throw SyncError(.badConfig, detail: "the repository at \(backend.location) has no key files")
        }
        var lastError: Error = CryptoError(.wrongPassphrase, detail: "the passphrase opens no key of this repository")
        let ordered = (preferredKey.map { names.contains($0) ? [$0] : [] } ?? []) + names.filter { $0 != preferredKey }
        for name in ordered.prefix(maxKeyFilesTried) {
            let path = keysFolder + "/" + name
            do {
                let file = try KeyFile.decode(try backend.getData(path, limit: 64 << 10), name: path)
                let keys = try file.unwrap(passphrase: passphrase, repositoryID: id, name: path)
                return Repository(backend: backend, id: id, keys: keys, keyName: name)
            } catch let error as CryptoError where error.kind == .wrongPassphrase || error.kind == .badKeyFile {
                lastError = error.kind == .wrongPassphrase
                    ? CryptoError(.wrongPassphrase, detail: "the passphrase opens no key of this repository") : error
            }
        }
        if ordered.count > maxKeyFilesTried, (lastError as? CryptoError)?.kind == .wrongPassphrase {
            throw CryptoError(.wrongPassphrase, detail: "the passphrase opens none of the \(maxKeyFilesTried) key files tried (the repository lists \(ordered.count); a Quire repository has one per passphrase)")
        }
        throw lastError
    }

    /// The names of the key files, sorted; none where the folder is missing.
    private static func keyNames(_ backend: Backend) throws -> [String] {
        do {
            return try backend.list(keysFolder).filter { !$0.isFolder }.map(\.name).sorted()
        } catch let error as RemoteError where error.kind == .notFound {
            return []
        }
    }

    /// Passphrases a repository may have in use at once (one key file each) that an unlock tries.
    static let maxKeyFilesTried = 8

    /// Checks that the repository at the URL is this one (its id), of a format this Quire reads.
    /// - Throws: `.noRepository`, `.badConfig`, `.wrongRepository`.
    func confirmIdentity() throws {
        let found = try Self.readID(backend)
        guard found == id else { throw Self.notThisOne(backend, expected: id, found: found) }
    }

    private static func notThisOne(_ backend: Backend, expected: String, found: String) -> SyncError {
        SyncError(.wrongRepository,
                        detail: "the repository at \(backend.location) is not the one this journal syncs with (expected \(expected.prefix(8)), found \(found.prefix(8)))")
    }

    /// Replaces this session's passphrase: the new key file is written before the old one is
    /// removed, so a crash in between leaves both passphrases working. A bucket that keeps old
    /// versions keeps the old key file as one, which the old passphrase still opens for anyone
    /// who can read it: every old version in `keys/` goes too (earlier passphrases' included),
    /// where the server lets them.
    @discardableResult
    package func changePassphrase(to passphrase: SecureBytes, cost: KeyCost = .moderate) throws -> PassphraseChange {
        let name = try Self.writeKeyFile(backend: backend, keys: keys, passphrase: passphrase, repositoryID: id, cost: cost)
        let old = Self.keysFolder + "/" + keyName
        try backend.delete(old)
        var change = PassphraseChange(keyName: name, oldKeyKept: false, oldKeyInTrash: WebDAVBackend.hasTrashBin(backend.location))
        if let versioned = backend as? KeepsOldVersions, versioned.keepsOldVersions() == true {
            do {
                try versioned.deleteOldVersions(in: Self.keysFolder)
            } catch {
                change.oldKeyKept = true
            }
        }
        return change
    }
}

/// What a passphrase change left.
public struct PassphraseChange: Sendable {
    /// The new key file's name (in `keys/`).
    public var keyName: String
    /// Whether the server still keeps an old version of the former key file, which the
    /// former passphrase opens: a bucket with versioning that would not let Quire delete it
    /// (no permission to, or Object Lock). It goes when a lifecycle rule expires it.
    public var oldKeyKept: Bool
    /// Whether the server moved the former key file into a trash bin (Nextcloud, ownCloud),
    /// where the former passphrase opens it until the bin is emptied.
    public var oldKeyInTrash: Bool
}
