// What an app embedding Quire does, through the public API only (QuireKit): keep a journal,
// attach a voice note with its transcript, sync it end-to-end encrypted to a repository (a
// folder here; a WebDAVBackend for a server), restore it on "another machine", and make a
// book of it. `./scripts/test` builds and runs it; it exits non-zero if anything differs.
import Foundation
import QuireCrypto
import QuireExport
import QuireRemote
import QuireStore
import QuireSync

func check(_ condition: Bool, _ what: String) {
    guard condition else {
        FileHandle.standardError.write(Data("EmbedQuire: FAILED: \(what)\n".utf8))
        exit(1)
    }
}

let work = FileManager.default.temporaryDirectory.path + "/embed-quire-" + UUID().uuidString.lowercased()
defer { try? FileManager.default.removeItem(atPath: work) }

do {
    // 1. A journal with an entry and a voice note whose transcript is searchable text.
    let phone = try Store(folder: work + "/phone", options: Store.Options(create: true))
    let entry = try phone.add(NewEntry(journal: "Дневник", title: "Утро у моря", body: "Шум волн. *Тихо.*", tags: ["море"]))
    let recording = work + "/memo.m4a"
    try Data((0..<48_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: recording))
    let memo = try phone.attach(to: entry.id, NewAttachment(path: recording, kind: .voice, duration: 3.0,
                                                            transcript: "Слышно, как чайки кричат над водой."))
    check(try phone.search("чайки").contains { $0.id == entry.id }, "the transcript is searchable")

    // 2. An encrypted repository (the passphrase decided by the app: asked, or from a keychain).
    let passphrase = try SecureBytes(copying: Array("correct horse battery staple".utf8))
    let backend = LocalBackend(root: work + "/repository")
    let repository = try Repository.initialize(backend: backend, passphrase: passphrase, cost: .interactive)
    var progressLines = 0
    let pushed = try Syncer(store: phone, repository: repository).sync { _ in progressLines += 1 }
    check(pushed.segmentsPushed >= 1 && pushed.blobsUploaded == 1, "the entry and its recording were pushed")

    // 3. Another machine: an empty store, the same repository unlocked with the passphrase.
    let laptop = try Store(folder: work + "/laptop", options: Store.Options(create: true))
    let unlocked = try Repository.open(backend: LocalBackend(root: work + "/repository"), passphrase: passphrase, expectedID: nil)
    _ = try Syncer(store: laptop, repository: unlocked).restore()
    let restored = try laptop.entries()
    check(restored.count == 1 && restored.first?.title == "Утро у моря", "the entry came back")
    let voice = restored.first?.media.first
    check(voice?.transcript == memo.transcript && voice?.blobID == memo.blobID, "the voice note and transcript came back")
    check(FileManager.default.contentsEqual(atPath: laptop.blobs.path(for: memo.blobID), andPath: recording), "byte for byte")

    // 4. A book.
    var options = EPUBOptions()
    options.title = "Дневник"
    let book = work + "/journal.epub"
    let summary = try EPUBExporter(store: laptop, options: options, templates: try TemplateSet()).write(to: book)
    check(summary.entries == 1 && FileManager.default.fileExists(atPath: book), "the book was written")
    print("EmbedQuire: stored, synced, restored and exported \(summary.entries) entry with its voice note (\(summary.bytes) bytes of EPUB).")
} catch {
    FileHandle.standardError.write(Data("EmbedQuire: \(error)\n".utf8))
    exit(1)
}
