import Foundation
import Testing
@testable import QuireStore
@testable import QuireSync

/// `remote set --max-object-size` and the transfer progress line, through the binary.
@Suite struct TransferCLITests {
    @Test func maxObjectSizeIsSetShownAndRefusedWhenSilly() throws {
        let dir = TempDir()
        let store = dir.path + "/s"
        #expect(try QuireBinary.run(["remote", "set", "file://" + dir.path + "/repo", "--max-object-size", "1M"], store: store).status == 0)
        let shown = try JSONValue.parse(try QuireBinary.run(["remote", "--json"], store: store).stdout).object
        #expect(shown?["max_object_size"]?.integer == 1 << 20)
        #expect(try QuireBinary.run(["remote"], store: store).stdout.contains("max object: 1.0 MiB"))
        for bad in ["12", "lots", "1T", "-5M"] {
            let run = try QuireBinary.run(["remote", "set", "file://" + dir.path + "/repo", "--max-object-size", bad], store: store)
            #expect(run.status == 2 && run.stderr.contains("--max-object-size"), "\(bad): \(run.stderr)")
        }
        // Another server starts without the old one's limit.
        #expect(try QuireBinary.run(["remote", "set", "file://" + dir.path + "/other"], store: store).status == 0)
        #expect(try JSONValue.parse(try QuireBinary.run(["remote", "--json"], store: store).stdout).object?["max_object_size"]?.integer == 0)
    }

    @Test func sizesParseAsServerConfigurationsWriteThem() {
        #expect(ByteCount.parse("1048576") == 1 << 20 && ByteCount.parse("1m") == 1 << 20 && ByteCount.parse("1 MiB") == 1 << 20)
        #expect(ByteCount.parse("512K") == 512 << 10 && ByteCount.parse("2GB") == 2 << 30)
        #expect(ByteCount.parse("") == nil && ByteCount.parse("M") == nil && ByteCount.parse("99999999999999999999G") == nil)
        #expect(ByteCount.parse("9223372036854775807G") == nil)
    }

    @Test func progressSaysObjectsBytesRateAndTimeLeft() {
        var lines: [String] = []
        let progress = TransferProgress("uploading") { lines.append($0) }
        progress.expect(objects: 4, bytes: 4 << 20)
        progress.advance(objects: 1, bytes: 1 << 20)
        #expect(lines.first == "uploading 0/4 objects, 0 B/4.0 MiB")
        #expect(progress.line.hasPrefix("uploading 1/4 objects, 1.0 MiB/4.0 MiB"))
        #expect(clockText(3725) == "1:02:05" && clockText(65) == "1:05")
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        #expect(TransferProgress.timeLeft(since: start, now: start.addingTimeInterval(0.9), done: 1, of: 4) == nil,
                "nothing to say before a second has passed")
        #expect(TransferProgress.timeLeft(since: start, now: start.addingTimeInterval(10), done: 1, of: 4) == ", 0:30 left")
        #expect(TransferProgress.timeLeft(since: start, now: start.addingTimeInterval(10), done: 0, of: 4) == nil)
    }
}
