import Foundation
import Testing
@testable import QuireCrypto
@testable import QuireRemote
@testable import QuireSync

@Suite struct RepositoryTests {
    @Test(arguments: Backends.names)
    func initOpenAndRefuseASecondInit(backend name: String) throws {
        let (backend, keep) = try Backends.make(name)
        defer { _ = keep }
        let repo = try Repository.initialize(backend: backend, passphrase: try secret("pass one"), cost: testCost)
        let opened = try Repository.open(backend: backend, passphrase: try secret("pass one"), expectedID: repo.id)
        #expect(opened.id == repo.id)
        #expect(Data(bytes: opened.keys.master.bytes, count: 32) == Data(bytes: repo.keys.master.bytes, count: 32))
        #expect {
            _ = try Repository.initialize(backend: backend, passphrase: try secret("other"), cost: testCost)
        } throws: { ($0 as? SyncError)?.kind == .alreadyExists }
        #expect {
            _ = try Repository.open(backend: backend, passphrase: try secret("pass two"), expectedID: repo.id)
        } throws: { ($0 as? CryptoError)?.kind == .wrongPassphrase }
        #expect {
            _ = try Repository.open(backend: backend, passphrase: try secret("pass one"), expectedID: "another-repository")
        } throws: { ($0 as? SyncError)?.kind == .wrongRepository }
        let (empty, keepEmpty) = try Backends.make(name)
        defer { _ = keepEmpty }
        #expect {
            _ = try Repository.open(backend: empty, passphrase: try secret("pass one"), expectedID: repo.id)
        } throws: { ($0 as? SyncError)?.kind == .noRepository }
    }

    /// With a second connection, the key files are listed over it while the description is
    /// read over the first: each request waits for the other to have begun, so done one after
    /// the other they would never meet (the meeting's deadline fails the test loudly).
    @Test func theKeyFilesAreListedOverASecondConnectionWhileTheDescriptionIsRead() throws {
        let dir = TempDir()
        let backend = LocalBackend(root: dir.path + "/repo")
        let repo = try Repository.initialize(backend: backend, passphrase: try secret("pw"), cost: testCost)
        let meeting = Meeting()
        let main = MeetingBackend(backend, meeting: meeting, at: Repository.configPath, arriving: "description", awaiting: "keys")
        let side = MeetingBackend(backend, meeting: meeting, at: Repository.keysFolder, arriving: "keys", awaiting: "description")
        let opened = try Repository.open(backend: main, passphrase: try secret("pw"), expectedID: repo.id, listingOver: side)
        #expect(opened.id == repo.id)
        #expect(Data(bytes: opened.keys.master.bytes, count: 32) == Data(bytes: repo.keys.master.bytes, count: 32))
        #expect(main.met == 1 && side.met == 1)

        // What the description says comes first, whatever the listing met.
        #expect {
            _ = try Repository.open(backend: backend, passphrase: try secret("pw"), expectedID: "another-repository", listingOver: backend)
        } throws: { ($0 as? SyncError)?.kind == .wrongRepository }
        let refusing = MeetingBackend(backend, meeting: Meeting(), at: "", arriving: "", awaiting: "", refusingLists: true)
        #expect {
            _ = try Repository.open(backend: LocalBackend(root: dir.path + "/empty"), passphrase: try secret("pw"), expectedID: nil, listingOver: refusing)
        } throws: { ($0 as? SyncError)?.kind == .noRepository }
        // A listing that fails on a repository that is there is the listing's error.
        #expect {
            _ = try Repository.open(backend: backend, passphrase: try secret("pw"), expectedID: repo.id, listingOver: refusing)
        } throws: { ($0 as? RemoteError)?.kind == .forbidden }
        #expect {
            _ = try Repository.open(backend: backend, passphrase: try secret("other"), expectedID: repo.id, listingOver: backend)
        } throws: { ($0 as? CryptoError)?.kind == .wrongPassphrase }
    }

    @Test(arguments: Backends.names)
    func changingThePassphraseKeepsBothUsableUntilTheOldIsRemoved(backend name: String) throws {
        let (backend, keep) = try Backends.make(name)
        defer { _ = keep }
        let repo = try Repository.initialize(backend: backend, passphrase: try secret("old"), cost: testCost)
        try backend.putData("data/marker", Data("untouched".utf8))
        let before = try backend.list(Repository.keysFolder).map(\.name)
        try repo.changePassphrase(to: try secret("new"), cost: testCost)
        #expect(try Repository.open(backend: backend, passphrase: try secret("new"), expectedID: repo.id).id == repo.id)
        #expect(throws: CryptoError.self) { _ = try Repository.open(backend: backend, passphrase: try secret("old"), expectedID: repo.id) }
        let after = try backend.list(Repository.keysFolder).map(\.name)
        #expect(after.count == 1 && !before.contains(after[0]))
        #expect(try backend.getData("data/marker") == Data("untouched".utf8))  // no data rewritten
    }

    @Test func aCrashBetweenWritingTheNewKeyAndRemovingTheOldLeavesBothWorking() throws {
        let dir = TempDir()
        let backend = LocalBackend(root: dir.path + "/repo")
        let repo = try Repository.initialize(backend: backend, passphrase: try secret("old"), cost: testCost)
        // The first step of changePassphrase alone: what a crash right after it leaves.
        let file = try KeyFile.wrap(repo.keys, passphrase: try secret("new"), repositoryID: repo.id, cost: testCost)
        try backend.publishData("keys/second", try file.encoded())
        #expect(try Repository.open(backend: backend, passphrase: try secret("old"), expectedID: repo.id).id == repo.id)
        #expect(try Repository.open(backend: backend, passphrase: try secret("new"), expectedID: repo.id).id == repo.id)
    }

    @Test(arguments: Backends.names)
    func blobsRoundTripAndDamageIsNamed(backend name: String) throws {
        let (backend, keep) = try Backends.make(name)
        defer { _ = keep }
        let dir = TempDir()
        let repo = try Repository.initialize(backend: backend, passphrase: try secret("p"), cost: testCost)
        let big = pseudoRandomBytes(3 * BlobCipher.chunkSize + 12_345, seed: 5)
        let files = [dir.file("big.bin", bytes: big), dir.file("empty", bytes: []), dir.file("small.jpg", bytes: Array("jpeg".utf8))]
        var ids: [String] = []
        for file in files { ids.append(try repo.uploadBlob(fileAt: file)) }
        #expect(try repo.uploadBlob(fileAt: files[0]) == ids[0])  // already there: fine
        for (file, id) in zip(files, ids) {
            try repo.downloadBlob(id, to: dir.path + "/out")
            #expect(FileManager.default.contentsEqual(atPath: file, andPath: dir.path + "/out"))
        }
        // Swap: the server serves another blob's bytes under this name.
        let other = try backend.getData(Repository.blobPath(ids[2]))
        try backend.putData(Repository.blobPath(ids[0]), other)
        #expect {
            try repo.downloadBlob(ids[0], to: dir.path + "/swapped")
        } throws: { ($0 as? CryptoError)?.object == Repository.blobPath(ids[0]) }
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/swapped"))  // nothing half-written locally
        // A flipped byte.
        var damaged = try backend.getData(Repository.blobPath(ids[2]))
        damaged[damaged.count - 3] ^= 0x01
        try backend.putData(Repository.blobPath(ids[2]), damaged)
        #expect {
            try repo.downloadBlob(ids[2], to: dir.path + "/damaged")
        } throws: { ($0 as? CryptoError)?.kind == .unauthenticated }
    }

    /// Everything a journal holds, uploaded, and then the server's bytes searched for it.
    @Test(arguments: Backends.names)
    func theServerNeverSeesPlaintext(backend name: String) throws {
        let (backend, keep) = try Backends.make(name)
        defer { _ = keep }
        let dir = TempDir()
        let repo = try Repository.initialize(backend: backend, passphrase: try secret("p"), cost: testCost)
        let secrets = ["Сон о море в Крыму", "transcript: meet Anna at the pharmacy", "tag-very-private", "Voice 014 secret-name.ogg",
                       "日記の秘密", "مذكرات سرية"]
        let record = try JSONSerialization.data(withJSONObject: ["title": secrets[0], "transcript": secrets[1], "tags": [secrets[2]],
                                                                 "filename": secrets[3], "body": secrets[4] + " " + secrets[5]])
        try backend.publishData("log/device/1", try repo.box.seal(record, path: "log/device/1"))
        try repo.uploadBlob(fileAt: dir.file("attachment", bytes: Array((secrets.joined(separator: "\n") + "\n").utf8) + pseudoRandomBytes(200_000)))
        var everything = Data()
        func collect(_ folder: String) throws {
            for entry in try backend.list(folder) {
                let path = folder.isEmpty ? entry.name : folder + "/" + entry.name
                #expect(!secrets.contains { path.contains($0) })
                if entry.isFolder { try collect(path) } else { everything.append(try backend.getData(path)) }
            }
        }
        try collect("")
        #expect(everything.count > 200_000)
        for text in secrets + ["pharmacy", "Anna", "Крым", "secret-name"] {
            #expect(everything.range(of: Data(text.utf8)) == nil, "'\(text)' is readable on the server")
        }
    }
}

/// Servers that answer badly: each a clear error, retried where it may pass.
@Suite struct WebDAVErrorTests {
    func backend(_ server: StubServer, attempts: Int = 3) throws -> WebDAVBackend {
        var settings = HTTPSettings(user: "u", password: "p")
        settings.attempts = attempts
        settings.backoff = 0.001
        return try WebDAVBackend(url: server.url, settings: settings)
    }

    @Test(arguments: [(401, RemoteError.Kind.unauthorized), (403, .forbidden), (404, .notFound), (507, .insufficientStorage),
                      (500, .transient), (503, .transient), (418, .protocolError)])
    func statusesBecomeKinds(status: Int, kind: RemoteError.Kind) throws {
        let server = try StubServer { _ in .init(status: status, body: Data("<html>nope</html>".utf8)) }
        let dav = try backend(server)
        #expect {
            _ = try dav.getData("quire-repo.json")
        } throws: { error in
            guard let e = error as? RemoteError else { return false }
            return e.kind == kind && e.status == status && e.path == "quire-repo.json"
        }
        // Only transient answers are retried.
        let expected = kind == .transient ? 3 : (status == 401 ? server.requests.count : 1)
        #expect(server.requests.count == expected)
    }

    @Test func transientFailuresAreRetriedUntilTheyPass() throws {
        let counter = Counter()
        let server = try StubServer { _ in
            counter.next() < 2 ? .init(status: 503) : .init(status: 200, body: Data("ok".utf8))
        }
        let dav = try backend(server, attempts: 5)
        var retries: [Int] = []
        dav.onRetry = { attempt, _ in retries.append(attempt) }
        #expect(try dav.getData("x") == Data("ok".utf8))
        #expect(retries == [1, 2])
    }

    /// A listing cut short or not XML at all may be a server failing mid-answer: asked again,
    /// then a transient error.
    @Test(arguments: ["<not xml", "<?xml version=\"1.0\"?><D:multistatus xmlns:D=\"DAV:\"><D:response>", ""])
    func malformedListingsAreAskedAgain(body: String) throws {
        let server = try StubServer { _ in .init(status: 207, headers: ["Content-Type": "application/xml"], body: Data(body.utf8)) }
        let dav = try backend(server, attempts: 2)
        #expect {
            _ = try dav.list("")
        } throws: { ($0 as? RemoteError)?.kind == .transient }
        #expect(server.requests.count == 2)
    }

    /// A whole document that is not a multistatus is no listing: a protocol error at once.
    @Test(arguments: ["<!DOCTYPE x [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]><x>&b;</x>",
                      "<html><body>Welcome</body></html>"])
    func documentsThatAreNotListingsAreProtocolErrors(body: String) throws {
        let server = try StubServer { _ in .init(status: 207, headers: ["Content-Type": "application/xml"], body: Data(body.utf8)) }
        let dav = try backend(server, attempts: 2)
        #expect {
            _ = try dav.list("")
        } throws: { ($0 as? RemoteError)?.kind == .protocolError && "\($0)".contains("other than DAV:multistatus") }
        #expect(server.requests.count == 1)
    }

    @Test func listingParsesHrefsAsServersWriteThem() throws {
        let xml = """
            <?xml version="1.0" encoding="utf-8"?>
            <D:multistatus xmlns:D="DAV:">
            <D:response><D:href>/repo/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop></D:propstat></D:response>
            <D:response><D:href>http://127.0.0.1/repo/keys/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop></D:propstat></D:response>
            <D:response><D:href>/repo/%d0%b6%D1%83%D1%80%D0%BD%D0%B0%D0%BB</D:href><D:propstat><D:prop><D:resourcetype/><D:getcontentlength>42</D:getcontentlength></D:prop></D:propstat></D:response>
            <D:response><D:href>/repo/.tmp-123</D:href><D:propstat><D:prop><D:resourcetype/></D:prop></D:propstat></D:response>
            <D:response><D:href>/repo/a%20b.txt</D:href><D:propstat><D:prop><D:getcontentlength>7</D:getcontentlength></D:prop></D:propstat></D:response>
            </D:multistatus>
            """
        let server = try StubServer { _ in .init(status: 207, body: Data(xml.utf8)) }
        let entries = try backend(server).list("")
        #expect(entries == [RemoteEntry(name: "a b.txt", isFolder: false, size: 7), RemoteEntry(name: "keys", isFolder: true, size: nil),
                            RemoteEntry(name: "журнал", isFolder: false, size: 42)])
        let request = try #require(server.requests.first)
        #expect(request.method == "PROPFIND" && request.headers["depth"] == "1")
        #expect(request.headers["content-type"]?.hasPrefix("application/xml") == true)
        #expect(request.headers["expect"] == nil)
    }

    @Test func passwordsNeverAppearInURLsOrErrors() throws {
        #expect(throws: RemoteError.self) { _ = try WebDAVBackend(url: "https://me:hunter2@example.org/dav/", settings: HTTPSettings()) }
        let server = try StubServer { _ in .init(status: 401) }
        let dav = try WebDAVBackend(url: server.url, settings: HTTPSettings(user: "me", password: "hunter2-secret"))
        do {
            _ = try dav.getData("x")
        } catch {
            #expect(!"\(error)".contains("hunter2"))
        }
    }

    /// A download is handed to the disk every 8 MiB and, uncached, dropped from the page
    /// cache behind it; a part downloaded again cuts the file back past such a step. Every
    /// byte must still be the last one written.
    @Test(arguments: [true, false])
    func aFileSinkKeepsEveryByteAcrossWritebackAndRestarts(cached: Bool) throws {
        let dir = TempDir()
        let path = dir.path + "/download"
        let sink = try FileSink(path: path, cached: cached)
        let mib = 1 << 20
        func write(_ count: Int, _ byte: UInt8) throws {
            let chunk = [UInt8](repeating: byte, count: mib)
            for _ in 0..<count { try chunk.withUnsafeBytes { try sink.write($0) } }
        }
        try write(20, 1)
        try sink.reset(to: Int64(9 * mib + 5))
        try write(12, 2)
        try sink.sync()
        let data = try #require(FileManager.default.contents(atPath: path))
        #expect(sink.written == Int64(data.count))
        #expect(data == Data(repeating: 1, count: 9 * mib + 5) + Data(repeating: 2, count: 12 * mib))
    }

    /// An uncached file is written with direct I/O a whole number of blocks at a time, from a
    /// buffer the writes of odd sizes fill; a restart cuts back into the staged bytes or into
    /// those already on disk, and the last partial block goes at `sync`. Every byte must be
    /// the one written last at its place, in order, and the file exactly as long: each byte
    /// here tells its offset and the round that wrote it.
    @Test(arguments: [0, 1, 4095, 4096, 4097, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 12345])
    func anUncachedFileKeepsEveryByteInPlace(length: Int) throws {
        let dir = TempDir()
        let path = dir.path + "/download"
        let sink = try FileSink(path: path, cached: false)
        var expected: [UInt8] = []
        func byte(_ offset: Int, _ round: Int) -> UInt8 { UInt8(truncatingIfNeeded: offset &* 31 &+ offset >> 8 &+ round &* 101) }
        func write(upTo end: Int, round: Int) throws {
            let sizes = [1000, 65_553, 7, 4096, 300_001]
            var next = 0
            while expected.count < end {
                let count = min(sizes[next % sizes.count], end - expected.count)
                let chunk = (expected.count..<(expected.count + count)).map { byte($0, round) }
                try chunk.withUnsafeBytes { try sink.write($0) }
                expected += chunk
                next += 1
            }
        }
        try write(upTo: length, round: 1)
        for (cut, round) in [(length - 1, 2), (length - length / 5, 3), (length / 3, 4)] where cut >= 0 {
            try sink.reset(to: Int64(cut))
            expected.removeLast(expected.count - cut)
            try write(upTo: length, round: round)
        }
        try sink.sync()
        try write(upTo: length + 4097, round: 5)  // after the sync, through the page cache
        try sink.sync()
        let data = try #require(FileManager.default.contents(atPath: path))
        #expect(sink.written == Int64(expected.count))
        #expect(data.count == expected.count)
        #expect(data == Data(expected))
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { defer { value += 1 }; return value } }
}

/// Requests that must be in flight at the same time: each arrives, then waits for the other
/// to have arrived, up to a deadline that fails the test loudly (never a measure of speed).
final class Meeting: @unchecked Sendable {
    struct Missed: Error {}
    private let condition = NSCondition()
    private var arrived = Set<String>()

    func arrive(_ name: String, awaiting other: String) throws {
        condition.lock()
        defer { condition.unlock() }
        arrived.insert(name)
        condition.broadcast()
        let limit = Date().addingTimeInterval(Hang.limit)
        while !arrived.contains(other) {
            if !condition.wait(until: limit) { throw Missed() }
        }
    }
}

/// A connection whose first request for `path` (a GET or a listing) meets another's; with
/// `refusingLists`, every listing is refused.
final class MeetingBackend: Backend, @unchecked Sendable {
    let inner: Backend
    let meeting: Meeting
    let path: String, name: String, other: String
    let refusingLists: Bool
    private(set) var met = 0

    init(_ inner: Backend, meeting: Meeting, at path: String, arriving name: String, awaiting other: String, refusingLists: Bool = false) {
        (self.inner, self.meeting, self.path, self.name, self.other, self.refusingLists) = (inner, meeting, path, name, other, refusingLists)
    }

    private func meet(_ requested: String) throws {
        guard requested == path, met == 0 else { return }
        met += 1
        try meeting.arrive(name, awaiting: other)
    }

    var location: String { inner.location }
    func put(_ path: String, from source: ByteSource) throws { try inner.put(path, from: source) }
    func publish(_ path: String, from source: ByteSource) throws { try inner.publish(path, from: source) }
    func get(_ path: String, range: Range<Int64>?, into sink: ByteSink) throws {
        try meet(path)
        try inner.get(path, range: range, into: sink)
    }
    func list(_ folder: String) throws -> [RemoteEntry] {
        if refusingLists { throw RemoteError(.forbidden, path: folder, status: 403, detail: "listing refused") }
        try meet(folder)
        return try inner.list(folder)
    }
    func delete(_ path: String) throws { try inner.delete(path) }
    func move(_ from: String, to: String, overwrite: Bool) throws { try inner.move(from, to: to, overwrite: overwrite) }
    func makeFolder(_ path: String) throws { try inner.makeFolder(path) }
}
