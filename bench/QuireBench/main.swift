import Foundation
import QuireStore

// In-process measurements that a command-line timing would drown in process start-up.
// Usage: quire-bench search STORE ROUNDS QUERY...
//   Opens STORE once, runs every QUERY ROUNDS times, prints p50/p95/max latency in ms.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("quire-bench: \(message)\n".utf8))
    exit(2)
}

let args = Array(CommandLine.arguments.dropFirst())
guard args.count >= 4, args[0] == "search", let rounds = Int(args[2]) else {
    fail("usage: quire-bench search STORE ROUNDS QUERY...")
}
do {
    let store = try Store(folder: args[1])
    let queries = Array(args[3...])
    var samples: [Double] = []
    var hits = 0
    for _ in 0..<rounds {
        for query in queries {
            let start = DispatchTime.now().uptimeNanoseconds
            hits += try store.search(query, limit: 20).count
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
        }
    }
    samples.sort()
    func percentile(_ p: Double) -> Double { samples[min(samples.count - 1, Int(Double(samples.count) * p))] }
    print(String(format: "search: %d queries, p50 %.3f ms, p95 %.3f ms, max %.3f ms (%d hits)",
                 samples.count, percentile(0.5), percentile(0.95), samples.last ?? 0, hits))
} catch {
    fail("\(error)")
}
