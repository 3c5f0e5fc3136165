import Testing
@testable import QuireStore

/// What search indexes and snippets show of an entry's Markdown (`quire_plain`).
@Suite struct PlainTextTests {
    @Test(arguments: [
        ("Went to the **market** with _Anna_", "Went to the market with Anna"),
        ("snake_case and 2_000 stay", "snake_case and 2_000 stay"),
        ("A ![photo](quire:media/1) and [a link](https://example.org) here", "A  and a link here"),
        ("Нашли ~~старый~~ `код` в сло_ве", "Нашли старый код в сло_ве"),
        ("日本_語 と *東京*", "日本_語 と 東京"),
        ("cafe\u{301}_noir", "cafe\u{301}_noir"),  // a letter with a combining mark before `_`
        ("👍_👍 and _ alone and trailing_", "👍👍 and  alone and trailing"),
        ("[outer [inner](x)](y)", "outer [inner](y)"),
        ("[no target] and [unclosed (x)", "[no target] and [unclosed (x)"),
        ("!notanimage ![](", "!notanimage ![]("),
        ("", ""),
    ])
    func keepsTheWordsOfMarkdown(markdown: String, plain: String) {
        #expect(PlainText.of(markdown) == plain)
    }

    @Test func searchIndexesTheWordsNotTheMarkup() throws {
        let dir = TempDir()
        let store = try makeStore(dir)
        let id = try store.add(NewEntry(title: "", body: "Встретил **Аню** у [реки](https://example.org/lake) ![](quire:media/x)")).id
        #expect(try store.search("реки").map(\.id) == [id])
        #expect(try store.search("Аню").map(\.id) == [id])
        #expect(try store.search("example").isEmpty)
        #expect(try store.search("media").isEmpty)
    }
}
