import Testing
@testable import QuireStore

@Suite struct SubtitleTests {
    @Test func parsesSubRip() throws {
        let srt = "\u{FEFF}1\r\n00:00:00,000 --> 00:00:02,100\r\nПривет,\r\nмир.\r\n\r\n2\r\n00:00:02,100 --> 00:01:04,750\r\n二番目\r\n"
        let segments = try Subtitles.parse(srt, format: .srt)
        #expect(segments == [Segment(start: 0, end: 2.1, text: "Привет, мир."), Segment(start: 2.1, end: 64.75, text: "二番目")])
        #expect(Segment.transcript(of: segments) == "Привет, мир. 二番目")
    }

    @Test func parsesWebVTT() throws {
        let vtt = """
            WEBVTT - voice note

            NOTE recorded on the train

            intro
            00:01.500 --> 00:03.000 align:start
            <v Anna>Hello &amp; welcome</v>

            01:00:00.000 --> 01:00:01.000
            <i>end</i>
            """
        let segments = try Subtitles.parse(vtt, format: .vtt)
        #expect(segments == [Segment(start: 1.5, end: 3, text: "Hello & welcome"), Segment(start: 3600, end: 3601, text: "end")])
    }

    @Test(arguments: [
        ("1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n00:00:0x,000 --> 00:00:03,000\nbad\n", Subtitles.Format.srt, 6),
        ("1\n00:00:05,000 --> 00:00:02,000\nbackwards\n", .srt, 2),
        ("just text\n", .srt, 1),
        ("1\n00:00:01.000 --> 00:00:02.000\nvtt separators in srt\n", .srt, 2),
        ("not a header\n\n00:01.000 --> 00:02.000\nx\n", .vtt, 1),
        ("WEBVTT\n\n00:01.000 --> 00:02.000\nfine\n\n00:61.000 --> 00:62.000\nbad seconds\n", .vtt, 6),
    ])
    func malformedFilesNameTheLine(text: String, format: Subtitles.Format, line: Int) {
        #expect {
            _ = try Subtitles.parse(text, format: format, path: "x.\(format.rawValue)")
        } throws: { ($0 as? StoreError)?.line == line }
    }

    @Test func emptyFilesHaveNoSegments() throws {
        #expect(try Subtitles.parse("", format: .srt).isEmpty)
        #expect(try Subtitles.parse("WEBVTT\n", format: .vtt).isEmpty)
    }
}
