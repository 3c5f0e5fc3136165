import Testing
@testable import QuireImport

/// Day One's text made Quire's, case by case: which escapes go, which stay because dropping
/// them would make Markdown, and how `dayone-moment` references are replaced.
@Suite struct DayOneTextTests {
    /// A first `# Title` line is the title, also when the title begins with a combining mark
    /// (one `Character` with the space before it) or holds an emoji sequence.
    @Test(arguments: [
        ("# Walk\n\nBy the river.", "Walk", "By the river."),
        ("# \u{301}Accent first\nText", "\u{301}Accent first", "Text"),
        ("#  👩‍👩‍👧 family  \n\n\nMore", "👩‍👩‍👧 family", "More"),
        ("#No space\nText", "", "#No space\nText"),
        ("# Only a title", "Only a title", ""),
    ])
    func aFirstHeadingLineIsTheTitle(text: String, title: String, body: String) {
        let split = TitleLine.split(text)
        #expect(Array(split.title.unicodeScalars) == Array(title.unicodeScalars) && split.body == body, "\(split)")
    }

    @Test(arguments: [
        // Plain punctuation loses its escape, in any script around it.
        ("Hola\\. ¿Qué tal\\? \\(bien\\)", "Hola. ¿Qué tal? (bien)"),
        ("夜の散歩\\. 桜がきれい\\!", "夜の散歩. 桜がきれい!"),
        ("Привет\\, мир\\; «цитата»\\: 50\\%", "Привет, мир; «цитата»: 50%"),
        // Escapes that matter to Markdown stay.
        ("\\*not bold\\* \\_nor this\\_ \\[link\\] \\# \\` \\\\ \\< \\| \\~", "\\*not bold\\* \\_nor this\\_ \\[link\\] \\# \\` \\\\ \\< \\| \\~"),
        // A list marker at a line's start keeps its escape; elsewhere it goes.
        ("\\- not a list\n  \\+ nor this\nword \\- dash", "\\- not a list\n  \\+ nor this\nword - dash"),
        ("\\-word", "-word"),
        ("12\\. not a list\n3\\) nor this\nin 1999\\. yes", "12\\. not a list\n3\\) nor this\nin 1999. yes"),
        ("1\\.5 stays a number", "1.5 stays a number"),
        // An escaped `!` before `[` would make an image.
        ("\\![not an image](x) but\\! this", "\\![not an image](x) but! this"),
        // The end of the text ends a word; so does a Windows line end.
        ("\\-", "\\-"),
        ("\\- a\r\n\\- b\r\n7\\.\r\n", "\\- a\r\n\\- b\r\n7\\.\r\n"),
        // A lone backslash, or one at the end, stays.
        ("a \\ b \\z c\\", "a \\ b \\z c\\"),
        ("", ""),
        ("no escapes at all", "no escapes at all"),
    ])
    func escapesGoWhereTheyMeanNothing(_ text: String, _ expected: String) {
        #expect(DayOneText.unescape(text) == expected)
    }

    @Test func momentsBecomeQuiresLinksOrANoteWhereTheFileIsMissing() {
        let text = "Start ![](dayone-moment://P1) mid ![alt text](dayone-moment:/audio/A1)\n"
            + "![](dayone-moment://GONE) and (dayone-moment:/bogus/X) stays, [x](dayone-moment:/pdfAttachment/D1)\n"
            + "![no image\n](dayone-moment:/video/V1) end ![](dayone-moment://P1)"
        var asked: [DayOneText.Moment] = []
        let out = DayOneText.replaceMoments(in: text) { moment in
            asked.append(moment)
            return moment.identifier == "GONE" || moment.identifier == "V1" ? nil : "quire:media/" + moment.identifier
        }
        #expect(asked == [.init(kind: .photo, identifier: "P1"), .init(kind: .audio, identifier: "A1"),
                          .init(kind: .photo, identifier: "GONE"), .init(kind: .pdfAttachment, identifier: "D1"),
                          .init(kind: .video, identifier: "V1"), .init(kind: .photo, identifier: "P1")])
        #expect(out == "Start ![](quire:media/P1) mid ![alt text](quire:media/A1)\n"
                + "(photo missing from the Day One export) and (dayone-moment:/bogus/X) stays, [x](quire:media/D1)\n"
                + "![no image\n](video missing from the Day One export) end ![](quire:media/P1)")
    }

    @Test func textWithoutMomentsIsLeftAsItIs() {
        let text = "ünïcödé text with (parentheses) and dayone-moment without its parenthesis: dayone-moment://P1"
        #expect(DayOneText.replaceMoments(in: text) { _ in Issue.record("nothing to replace"); return nil } == text)
        #expect(DayOneText.replaceMoments(in: "(dayone-moment://unclosed") { _ in nil } == "(dayone-moment://unclosed")
    }
}
