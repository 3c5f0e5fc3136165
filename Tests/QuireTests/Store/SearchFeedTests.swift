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
}
