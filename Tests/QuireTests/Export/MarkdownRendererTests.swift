import Testing
@testable import QuireExport

@Suite struct MarkdownRendererTests {
    @Test func commonMarkAndGitHubExtensions() {
        let html = MarkdownRenderer.html("""
            # Море

            **Жирный**, ~~зачёркнутый~~, https://example.org и 東京.

            | a | b |
            |---|---|
            | 1 | 2 |

            - [x] done
            - [ ] todo
            """)
        #expect(html.contains("<h1>Море</h1>"))
        #expect(html.contains("<strong>Жирный</strong>"))
        #expect(html.contains("<del>зачёркнутый</del>"))
        #expect(html.contains("<a href=\"https://example.org\">https://example.org</a>"))
        #expect(html.contains("<table>") && html.contains("<td>1</td>"))
        #expect(html.contains("<input type=\"checkbox\" checked=\"\" disabled=\"\" />"))
        #expect(html.contains("東京"))
    }

    @Test func rawHTMLIsShownAsTextNeverPassedThrough() {
        let html = MarkdownRenderer.html("""
            <script>alert("x")</script>

            An <b onclick="steal()">inline</b> tag and <!-- a comment -->.
            """)
        #expect(!html.contains("<script>") && !html.contains("<b onclick"))
        #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"))
        #expect(html.contains("&lt;b onclick=&quot;steal()&quot;&gt;inline&lt;/b&gt;"))
        #expect(html.contains("&lt;!-- a comment --&gt;"))
    }

    @Test func entitiesBecomeCharactersSoNoNamedEntityReachesXHTML() {
        let html = MarkdownRenderer.html("a&nbsp;b &copy; &amp; &lt; 5 > 3")
        #expect(html.contains("a\u{00A0}b ©"))
        #expect(!html.contains("&nbsp;") && !html.contains("&copy;"))
        #expect(html.contains("&amp; &lt; 5 &gt; 3"))
    }

    @Test func emptyAndHugeBodies() {
        #expect(MarkdownRenderer.html("") == "")
        let huge = String(repeating: "Слово за словом. ", count: 50_000)
        #expect(MarkdownRenderer.html(huge).count > huge.count)
    }
}
