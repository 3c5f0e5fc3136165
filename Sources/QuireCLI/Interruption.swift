import Foundation
import QuireKit
#if canImport(Glibc)
import Glibc
#endif

/// What a long command says when Ctrl-C (or a kill) stops it: one line, after the terminal is
/// put back as it was (echo on, if a passphrase prompt had turned it off; the progress line
/// cleared), and after anything a half-made export left is removed (`Leftovers`). The signal
/// then ends the process as it would have. Call `install` first thing in `run`, before any
/// other thread starts.
enum Interruption {
    nonisolated(unsafe) private static var terminal = termios()
    nonisolated(unsafe) private static var hasTerminal = false

    static func install(saying line: String) {
        hasTerminal = tcgetattr(STDIN_FILENO, &terminal) == 0
        let text = "quire: stopped. " + line + "\n"
        Leftovers.removeOnInterrupt { _ in
            if Interruption.hasTerminal { tcsetattr(STDIN_FILENO, TCSANOW, &Interruption.terminal) }
            let clear = isatty(STDERR_FILENO) == 1 ? "\r\u{1B}[2K" : ""
            let all = clear + text
            _ = all.withCString { write(2, $0, strlen($0)) }
        }
    }
}
