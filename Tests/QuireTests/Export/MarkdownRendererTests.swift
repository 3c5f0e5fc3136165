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

    /// Obsidian's marks print as Obsidian shows them: comments hidden, highlights marked,
    /// callouts boxed under their title, a link to a note not imported left as its words;
    /// code keeps all of them as written.
    @Test func obsidiansMarksAreShownAsObsidianShowsThem() {
        let note = """
            Market %%private: too dear%% with Marie; see [[Ideas]], [[Trip#Day 2]] and [[Trip|the trip]].

            A ==really **good** day== and a == b, ==unclosed.

            > [!tip]- Remember
            > Bread.

            > [!note]
            > Plain.

            > Just a quote.

            %%
            a hidden
            block
            %%
            After. `%%kept%% [[kept]] ==kept==`

            ```
            %%fenced%% [[fenced]]
            ```
            """
        let html = MarkdownRenderer.html(note)
        #expect(html.contains("<p>Market with Marie; see Ideas, Trip &gt; Day 2 and the trip.</p>"), "\(html)")
        #expect(html.contains("<p>A <mark>really <strong>good</strong> day</mark> and a == b, ==unclosed.</p>"), "\(html)")
        #expect(html.contains("<div class=\"callout callout-tip\">\n<div class=\"callout-title\">\n<p>Remember</p>\n</div>\n<p>Bread.</p>\n</div>"), "\(html)")
        #expect(html.contains("<div class=\"callout-title\">\n<p>Note</p>"), "the kind names an untitled callout: \(html)")
        #expect(html.contains("<blockquote>\n<p>Just a quote.</p>"))
        #expect(!html.contains("hidden") && !html.contains("private"))
        #expect(html.contains("<code>%%kept%% [[kept]] ==kept==</code>"))
        #expect(html.contains("%%fenced%% [[fenced]]"))

        // With Windows line ends: a fence is still a fence (a tilde one is no inline code).
        let windows = MarkdownRenderer.html("Before [[Gone]].\r\n\r\n~~~\r\n%%fenced%% [[fenced]]\r\n~~~\r\n%%\r\nhidden\r\n%%\r\nAfter.")
        #expect(windows.contains("<p>Before Gone.</p>") && windows.contains("%%fenced%% [[fenced]]"), "\(windows)")
        #expect(!windows.contains("hidden") && windows.contains("After."), "\(windows)")

        let blocks = MarkdownRenderer.blocks(note)
        #expect(blocks.contains(.paragraph([.text("A "), .highlight([.text("really "), .strong([.text("good")]), .text(" day")]),
                                            .text(" and a == b, ==unclosed.")])), "\(blocks)")
        #expect(blocks.contains(.callout(kind: "tip", title: [.text("Remember")], [.paragraph([.text("Bread.")])])), "\(blocks)")
    }

    /// A transcript's paragraphs end at blank lines, with Unix or Windows line ends.
    @Test func transcriptParagraphsEndAtBlankLines() {
        let text = "Первая строка\nи вторая.\n\n  Second paragraph.  \n\n\n"
        #expect(Transcript.paragraphs(text) == ["Первая строка и вторая.", "Second paragraph."])
        #expect(Transcript.paragraphs(text.replacingOccurrences(of: "\n", with: "\r\n")) == ["Первая строка и вторая.", "Second paragraph."])
        #expect(Transcript.paragraphs("").isEmpty && Transcript.paragraphs("\r\n \r\n").isEmpty)
    }

    /// The PDF numbers footnotes as a reader counts them, in the order the text refers to
    /// them, whatever their labels; one never referred to is left out (as cmark does).
    @Test func footnotesAreNumberedInTheOrderOfReference() {
        let blocks = MarkdownRenderer.blocks("A claim[^source] and another[^1].\n\n[^1]: First.\n[^source]: The source.\n[^unused]: Never.\n")
        #expect(blocks == [
            .paragraph([.text("A claim"), .footnoteReference("1"), .text(" and another"), .footnoteReference("2"), .text(".")]),
            .footnote(label: "1", [.paragraph([.text("The source.")])]),
            .footnote(label: "2", [.paragraph([.text("First.")])]),
        ], "\(blocks)")
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
