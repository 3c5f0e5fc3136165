import Foundation
import Testing
@testable import QuireStore

/// A restore's index build reads and tokenizes the rows on a second connection and hands the
/// tokens over as FTS5 asks (`SearchFeed`): the index must be the one Quire's tokenizer makes
/// of what the store holds, in every script, across many batches, with empty columns
/// between, and found by search afterwards.
@Suite struct SearchFeedTests {
    static let texts = [
        ("Поездка", "Вчера мы гуляли по **Москве** и видели Кремль."),
        ("日記", "今日は東京タワーに行きました。とても楽しかったです。"),
        ("", "ذَهَبْتُ إلى المَكْتَبَةِ في الصباح"),
        ("Música", ""),
        ("Walking", "Long walk along the [river](https://example.org) with Sam.\n\n- one\n- two"),
    ]

    @Test(arguments: [false, true])
    func aRestoredIndexIsTheTokenizersOwn(feedFails: Bool) throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        try store.setRestoring("a-repository")  // merges now leave the index to the build
        var ids: [String] = []
        // More rows than the feed's batches hold, so batches follow one another.
        for index in 0..<700 {
            let (title, body) = Self.texts[index % Self.texts.count]
            var entry = NewEntry(title: title, body: body + (index % 7 == 0 ? "" : " number\(index)"))
            entry.tags = index % 3 == 0 ? ["trip", "день"] : []
            ids.append(try store.add(entry).id)
        }
        let voice = try #require(ids.last)
        try store.attach(to: voice, NewAttachment(path: dir.file("memo.m4a", bytes: [1, 2, 3]), transcript: "call the plumber about the radiator"))
        #expect(try store.search("river").isEmpty)  // not indexed yet

        // A feed that cannot open its connection: the rows are read and tokenized on this one.
        try store.indexRestoredText(feedPath: feedFails ? dir.path + "/no-such-store/journal.sqlite" : nil)

        #expect(store.database.tokenizerCache.feed == nil)
        // FTS5 tokenizes every row's columns again and checks the index holds exactly those tokens.
        try store.database.execute("INSERT INTO search (search, rank) VALUES ('integrity-check', 1)")
        let rows = try store.database.prepare("SELECT count(*) FROM search").first { $0.int(0) }
        #expect(rows == 700)
        #expect(try store.search("Москва", limit: 1000).count == 140)
        #expect(try store.search("東京", limit: 1000).count == 140)
        #expect(try store.search("المكتبة", limit: 1000).count == 140)
        #expect(try store.search("number699").map(\.id) == [ids[699]])
        #expect(try store.search("день", limit: 1000).count == 234)
        #expect(try store.search("radiator").map(\.id) == [voice])
    }

    /// An import of at least `Store.searchRowsTokenizedAside` entries has its rows tokenized
    /// on a second thread (`fillSearch(tokenizingAside:)`): the index must be the tokenizer's
    /// own in every script, for new entries and for entries the import changed (their old
    /// tokens gone), and find what an import in smaller pieces (one `INSERT … SELECT` each)
    /// finds.
    @Test func aLargeImportsIndexIsTheTokenizersOwn() throws {
        let dir = TempDir()
        let count = Store.searchRowsTokenizedAside + 200
        func file(_ name: String, edited: Bool, _ range: Range<Int>) throws -> String {
            let lines = try range.map { index in
                let (title, body) = Self.texts[index % Self.texts.count]
                var line: [String: Any] = [
                    "id": String(format: "6F1C2B9A-0000-4000-8000-%012d", index),
                    "created": "2025-01-01T00:00:00Z",
                    "title": title,
                    "body": body + (edited ? " изменено\(index)" : " number\(index)"),
                ]
                if index % 3 == 0 { line["tags"] = ["trip", "день"] }
                return String(decoding: try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]), as: UTF8.self)
            }
            return dir.file(name, lines.joined(separator: "\n"))
        }
        let whole = try makeStore(dir, name: "whole")
        try whole.importJSONLines(at: try file("first.jsonl", edited: false, 0..<count))
        #expect(whole.database.tokenizerCache.feed == nil)
        // FTS5 tokenizes every row's columns again and checks the index holds exactly those tokens.
        try whole.database.execute("INSERT INTO search (search, rank) VALUES ('integrity-check', 1)")
        #expect(try whole.search("number\(count - 1)").count == 1)
        #expect(try whole.search("東京", limit: 10_000).count == count / 5)

        // Every entry changed by a second import: the old words go, the new ones come.
        let edited = try file("edited.jsonl", edited: true, 0..<count)
        try whole.importJSONLines(at: edited)
        try whole.database.execute("INSERT INTO search (search, rank) VALUES ('integrity-check', 1)")
        #expect(try whole.search("number7").isEmpty)
        #expect(try whole.search("изменено7").count == 1)

        // The same journal imported in pieces below the threshold finds the same entries.
        let pieces = try makeStore(dir, name: "pieces")
        let half = Store.searchRowsTokenizedAside / 2
        for start in stride(from: 0, to: count, by: half) {
            try pieces.importJSONLines(at: try file("piece\(start).jsonl", edited: true, start..<min(count, start + half)))
        }
        for query in ["Москва", "東京", "المكتبة", "день", "river", "изменено1200", "muśica", "música", "трип"] {
            #expect(try whole.search(query, limit: 10_000).map(\.id) == pieces.search(query, limit: 10_000).map(\.id), "\(query)")
        }
        #expect(try whole.search("Москва", limit: 10_000).count == count / 5)
        let rows = "SELECT rowid, title, body, transcripts, tags, place FROM search ORDER BY rowid"
        func contents(_ store: Store) throws -> [String] {
            var all: [String] = []
            try store.database.prepare(rows).forEach { row in all.append((0...5).map { row.text(Int32($0)) }.joined(separator: "|")) }
            return all
        }
        #expect(try contents(whole) == contents(pieces))
    }

    /// A first import's index is built aside (`SearchBuild`) and copied in; an entry the
    /// source names twice, the second time after its row went aside, ends with its last text;
    /// each body is indexed as its words, as any other import's (`SearchBuild.markdownColumn`).
    @Test func aFirstImportsIndexBuiltAsideHoldsEachEntrysLastText() throws {
        let dir = TempDir()
        let count = Store.searchRowsTokenizedAside + 300
        var lines = (0..<count).map { index in
            #"{"id": "6F1C2B9A-0000-4000-8000-\#(String(format: "%012d", index))", "created": "2025-01-01T00:00:00Z", "title": "первый\#(index)", "body": "東京 river [мост](https://example.com/hiddenword)"}"#
        }
        lines.append(#"{"id": "6F1C2B9A-0000-4000-8000-000000000005", "created": "2025-01-01T00:00:00Z", "title": "второй", "body": "Москва"}"#)
        let store = try makeStore(dir)
        try store.importJSONLines(at: dir.file("twice.jsonl", lines.joined(separator: "\n")))
        try store.database.execute("INSERT INTO search (search, rank) VALUES ('integrity-check', 1)")
        #expect(try store.search("первый5").isEmpty)
        #expect(try store.search("второй").count == 1 && store.search("Москва").count == 1)
        #expect(try store.search("первый1299").count == 1)
        #expect(try store.search("東京", limit: 10_000).count == count - 1)
        // The body's words as search reads them (`quire_plain`): a link's words, not its target.
        #expect(try store.search("мост", limit: 10_000).count == count - 1 && store.search("hiddenword").isEmpty)
        // The index takes the next edit as any other.
        try store.importJSONLines(at: dir.file("more.jsonl", #"{"id": "6F1C2B9A-0000-4000-8000-000000000007", "created": "2025-01-01T00:00:00Z", "title": "третий"}"#))
        try store.database.execute("INSERT INTO search (search, rank) VALUES ('integrity-check', 1)")
        #expect(try store.search("третий").count == 1 && store.search("первый7").isEmpty)
    }

    /// A new restore's index is built beside its merges (`RestoreIndex`), each transaction
    /// sending the rows of the entries it made: an entry changed after its row went (edited,
    /// deleted, given a transcript) is put right when the index is put in place; after a
    /// write that failed, the index is built whole instead. Either way it is the tokenizer's
    /// own index of the entries as they end.
    @Test(arguments: [false, true])
    func aRestoredIndexBuiltBesideTheMergesHoldsEachEntrysLastText(aWriteFails: Bool) throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        try store.setRestoring("a-repository")
        try store.buildRestoredIndexAside()
        var ids: [String] = []
        for index in 0..<600 {
            let (title, body) = Self.texts[index % Self.texts.count]
            var entry = NewEntry(title: title, body: body + " number\(index)")
            entry.tags = index % 3 == 0 ? ["trip", "день"] : []
            ids.append(try store.add(entry).id)
        }
        // Later in the log: changes to entries whose rows went long before.
        _ = try store.edit(entryID: ids[4], EntryEdit(body: "переписано заново"))
        try store.remove(entryID: ids[9])
        try store.attach(to: ids[14], NewAttachment(path: dir.file("memo.m4a", bytes: [1, 2, 3]), transcript: "call the plumber about the radiator"))
        if aWriteFails {
            struct Stop: Error {}
            #expect(throws: Stop.self) {
                try store.importEntries { emit in
                    try emit(ImportedEntry(entry: Entry(id: UUID().uuidString, journal: Store.defaultJournal, title: "lostword", body: "",
                                                        created: ts("2025-01-01T00:00:00Z"), modified: ts("2025-01-01T00:00:00Z"),
                                                        tags: [], starred: false, location: nil, media: []), modified: nil, media: []))
                    throw Stop()
                }
            }
        }
        ids.append(try store.add(NewEntry(title: "последняя", body: "the very last entry")).id)
        #expect(try store.search("river").isEmpty)  // not in place yet
        let scratch = try #require(store.restoreIndex?.file.path)
        #expect(FileManager.default.fileExists(atPath: scratch))

        try store.indexRestoredText()

        #expect(store.restoreIndex == nil)
        #expect(!FileManager.default.fileExists(atPath: scratch), "the file the index was built in is gone")
        try store.database.execute("INSERT INTO search (search, rank) VALUES ('integrity-check', 1)")
        #expect(try store.database.prepare("SELECT count(*) FROM search").first { $0.int(0) } == 600)
        #expect(try store.search("number4").isEmpty && store.search("переписано").map(\.id) == [ids[4]])
        #expect(try store.search("number9").isEmpty)
        #expect(try store.search("radiator").map(\.id) == [ids[14]])
        #expect(try store.search("lostword").isEmpty)
        #expect(try store.search("последняя").map(\.id) == [ids[600]])
        #expect(try store.search("number599").map(\.id) == [ids[599]])
        #expect(try store.search("東京", limit: 1000).count == 120)
        #expect(try store.search("день", limit: 1000).count == 199)  // one of the 200 deleted
        // Edits after the restore refresh the index as usual.
        _ = try store.edit(entryID: ids[20], EntryEdit(title: "потом"))
        try store.database.execute("INSERT INTO search (search, rank) VALUES ('integrity-check', 1)")
        #expect(try store.search("потом").map(\.id) == [ids[20]])
    }
    /// A restore's index file names its process: one whose process is gone (a crash, a power
    /// cut) is removed when the next is made in the folder; a running one's is left alone.
    @Test func anIndexFileOfAProcessGoneIsRemovedByTheNext() throws {
        let dir = TempDir()
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let names = [ScratchIndexFile.prefix + "\(gone.processIdentifier)-0badc0de.sqlite",
                     ScratchIndexFile.prefix + "\(getpid())-1badc0de.sqlite", ScratchIndexFile.prefix + "1-2badc0de.sqlite", "journal.sqlite"]
        for name in names { #expect(FileManager.default.createFile(atPath: dir.path + "/" + name, contents: Data("x".utf8))) }
        let made = ScratchIndexFile(in: dir.path)
        #expect(made.path.hasPrefix(dir.path + "/" + ScratchIndexFile.prefix + "\(getpid())-"))
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left == names.dropFirst().sorted(), "the running processes' files (this one's, init's) and the store stay")
    }
}
