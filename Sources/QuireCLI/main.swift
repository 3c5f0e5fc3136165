import CLinux
import Foundation
import QuireKit

// Buffers of 256 KiB and more (segments, downloads in flight) come from mmap and go back to
// the system when freed. Left to itself glibc raises this threshold after the first large
// free, keeps such buffers in the heap, and a restore's peak RSS then carries fragments of
// every segment it decoded (measured: 62–65 MiB instead of 60 for 10k entries + 1 GiB).
_ = quire_set_mmap_threshold(256 << 10)

exit(QuireMain.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
