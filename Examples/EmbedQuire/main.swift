// What an app embedding Quire does, through QuireKit's public API only (`Journal`): keep a
// journal, attach a voice note with its transcript and one heard by the app's own engine, sync it end-to-end encrypted to a
// repository (a folder here; an https:// WebDAV address for a server), restore it on
// "another machine", and make a book of it. `./scripts/test` builds and runs it; it exits
// non-zero if anything differs.
import Foundation
import QuireKit

/// An app's own speech-to-text behind Quire's one swap point (a platform's recogniser, say);
/// Quire cuts the recording into WAV pieces with ffmpeg and asks it for timed text.
final class AppEngine: TranscriptionEngine {
    var info = EngineInfo(engine: "app 1", model: "demo", languages: ["en"])
    func start() throws {}
    func stop() {}
    func transcribe(wav path: String, language: String?) throws -> [EngineSegment] {
        [EngineSegment(start: 0.2, end: 0.9, text: " The gulls are back.")]
    }
}

/// One second of silence as a 16 kHz mono WAV file.
func silence(at path: String) throws {
    var bytes: [UInt8] = Array("RIFF".utf8) + [0x44, 0x7D, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0, 1, 0, 1, 0]
    bytes += [0x80, 0x3E, 0, 0, 0, 0x7D, 0, 0, 2, 0, 16, 0] + Array("data".utf8) + [0, 0x7D, 0, 0]
    try Data(bytes + [UInt8](repeating: 0, count: 32_000)).write(to: URL(fileURLWithPath: path))
}

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
    let phone = try Journal(folder: work + "/phone", create: true)
    let entry = try phone.store.add(NewEntry(journal: "Дневник", title: "Утро у моря", body: "Шум волн. *Тихо.*", tags: ["море"]))
    let recording = work + "/memo.m4a"
    try Data((0..<48_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: recording))
    let memo = try phone.store.attach(to: entry.id, NewAttachment(path: recording, kind: .voice, duration: 3.0,
                                                                  transcript: "Слышно, как чайки кричат над водой."))
    check(try phone.store.search("чайки").contains { $0.id == entry.id }, "the transcript is searchable")
    // A voice note without words, heard on this machine: a draft the user may correct.
    try silence(at: work + "/later.wav")
    let later = try phone.store.attach(to: entry.id, NewAttachment(path: work + "/later.wav", kind: .voice))
    check(try phone.notesAwaitingTranscription().map(\.id) == [later.id], "the new note awaits a transcript")
    let heard = try phone.transcribePending(engine: AppEngine())
    check(heard.transcribed.count == 1 && heard.transcriber == "app 1 demo", "the app's engine heard it")
    check(try phone.store.search("gulls").contains { $0.id == entry.id }, "the draft is searchable")

    // 2. An encrypted repository. The app decides where the passphrase comes from (asked, or
    //    a keychain); once unlocked, the key is cached in the store and later syncs need none.
    let passphrase = try SecureBytes(copying: Array("correct horse battery staple".utf8))
    let address = RemoteAddress(url: "file://" + work + "/repository")
    try phone.setRemote(address)
    try phone.createRepository(passphrase: passphrase, cost: .interactive)
    var progressLines = 0
    let pushed = try phone.sync(.cachedKeyOnly) { _ in progressLines += 1 }
    check(pushed.segmentsPushed >= 1 && pushed.blobsUploaded == 2, "the entry and its recordings were pushed")

    // 3. Another machine: an empty store, the same repository unlocked with the passphrase.
    let laptop = try Journal(folder: work + "/laptop", create: true)
    try laptop.restore(from: address, .cachedKeyOr(passphrase: { passphrase }))
    let restored = try laptop.store.entries()
    check(restored.count == 1 && restored.first?.title == "Утро у моря", "the entry came back")
    let voice = restored.first?.media.first { $0.id == memo.id }
    check(voice?.transcript == memo.transcript && voice?.size == memo.size, "the voice note and transcript came back")
    check(FileManager.default.contentsEqual(atPath: laptop.store.file(of: memo), andPath: recording), "byte for byte")
    check(try laptop.sync(.cachedKeyOnly).segmentsPulled == 0, "the restored store syncs on with its cached key")
    check(try laptop.remote()?.repositoryID != nil && laptop.remote()?.address.url == address.url, "the laptop syncs where the phone does")

    // A new passphrase, from either machine: the old one no longer opens the repository.
    let newPassphrase = try SecureBytes(copying: Array("a longer and newer passphrase".utf8))
    try laptop.changePassphrase(from: passphrase, to: newPassphrase, cost: .interactive)
    try phone.checkRepository(passphrase: newPassphrase)
    check((try? phone.checkRepository(passphrase: passphrase)) == nil, "the old passphrase is refused")

    // 4. A book.
    var options = EPUBOptions()
    options.title = "Дневник"
    let book = work + "/journal.epub"
    let summary = try laptop.exportBook(to: book, options: options)
    check(summary.entries == 1 && FileManager.default.fileExists(atPath: book), "the book was written")
    var print_ = PDFOptions()
    print_.title = "Дневник"
    print_.pageSize = .sixByNine
    let pdf = work + "/journal.pdf"
    let printed = try laptop.exportPDF(to: pdf, options: print_)
    check(printed.pages >= 7 && printed.recordings == 2 && printed.warnings.isEmpty, "the book to print was typeset")
    print("EmbedQuire: stored, synced, restored and exported \(summary.entries) entry with its voice note (\(summary.bytes) bytes of EPUB, \(printed.pages) pages of PDF).")
} catch {
    FileHandle.standardError.write(Data("EmbedQuire: \(error)\n".utf8))
    exit(1)
}
