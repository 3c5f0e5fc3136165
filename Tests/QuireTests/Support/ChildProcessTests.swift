import Foundation
import Testing
@testable import QuireSupport

/// The one place Quire starts programs: it reads a program's output until the program ends,
/// not until every copy of the pipe is closed, and stops one that runs past its time.
struct ChildProcessTests {
    let dir = TempDir()

    /// A program that leaves something running behind it with its standard output (a
    /// credential helper that starts its daemon) is not waited for: the run returns with
    /// what the program printed while what it left still runs.
    @Test func whatAProgramLeavesRunningIsNotWaitedFor() throws {
        let pidFile = dir.path + "/left.pid"
        let finished = try ChildProcess.run("/bin/sh", ["-c", "echo printed; sleep 30 & echo $! > '\(pidFile)'; exit 3"])
        #expect(finished.outputText == "printed\n" && finished.status == 3 && !finished.timedOut)
        let left = try #require(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        // Still running, not ended and waiting to be reaped (state Z).
        let state = (try? String(contentsOfFile: "/proc/\(left)/stat", encoding: .utf8))?.split(separator: ")").last?.split(separator: " ").first
        #expect(state != nil && state != "Z", "the run returned while what the program left behind still ran")
        kill(left, SIGKILL)
    }

    /// A program still running at its deadline is stopped, and the run says so; one that
    /// shrugs off SIGTERM is killed, and one that writes without end is stopped too.
    @Test(arguments: ["sleep 30", "trap '' TERM; echo started; sleep 30; sleep 30", "i=0; while [ $i -lt 1000 ]; do echo more; sleep 0.01; i=$((i + 1)); done"])
    func aProgramPastItsTimeIsStopped(script: String) throws {
        let finished = try ChildProcess.run("/bin/sh", ["-c", script], timeout: 0.3)
        #expect(finished.timedOut && finished.status != 0)
    }

    /// It gets standard input, output and error and no other descriptor of this process,
    /// and no signal blocked.
    @Test func aProgramGetsNoOtherDescriptorAndNoBlockedSignal() throws {
        let held = open("/dev/null", O_RDONLY)  // not close-on-exec
        try #require(held > 3, "ls holds 3 itself")
        defer { close(held) }
        let finished = try ChildProcess.run("/bin/sh", ["-c", "ls /proc/self/fd; grep SigBlk /proc/self/status"])
        let lines = finished.outputText.split(separator: "\n")
        #expect(!lines.contains { $0 == Substring(String(held)) }, "\(lines)")
        #expect(lines.contains("SigBlk:\t0000000000000000"), "\(lines)")
    }

    /// Large output comes whole, line by line too.
    @Test func largeOutputComesWhole() throws {
        let whole = try ChildProcess.run("/bin/sh", ["-c", "seq 1 200000"])
        #expect(whole.outputText.split(separator: "\n").count == 200_000 && whole.outputText.hasSuffix("200000\n"))
        var lines = 0, last = ""
        _ = try ChildProcess.run("/bin/sh", ["-c", "seq 1 200000"]) { lines += 1; last = $0 }
        #expect(lines == 200_000 && last == "200000")
    }
}
