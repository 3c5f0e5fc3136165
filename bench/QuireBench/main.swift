import Foundation
import QuireCrypto
import QuireRemote
import QuireStore
import QuireSync

// In-process measurements that a command-line timing would drown in process start-up.
//   quire-bench search STORE ROUNDS QUERY...
//       Opens STORE once, runs every QUERY ROUNDS times, prints p50/p95/max latency in ms.
//   quire-bench blobs URL FOLDER OUT
//       Creates a repository at URL (cheap KDF), uploads every file of FOLDER as an encrypted
//       blob, then downloads them all into OUT; prints both times and request counts.
//       WebDAV credentials: QUIRE_WEBDAV_USER / QUIRE_WEBDAV_PASSWORD.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("quire-bench: \(message)\n".utf8))
    exit(2)
}

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

func search(_ args: [String]) throws {
    guard args.count >= 3, let rounds = Int(args[1]) else { fail("usage: quire-bench search STORE ROUNDS QUERY...") }
    let store = try Store(folder: args[0])
    let queries = Array(args[2...])
    var samples: [Double] = []
    var hits = 0
    for _ in 0..<rounds {
        for query in queries {
            let start = now()
            hits += try store.search(query, limit: 20).count
            samples.append((now() - start) * 1000)
        }
    }
    samples.sort()
    func percentile(_ p: Double) -> Double { samples[min(samples.count - 1, Int(Double(samples.count) * p))] }
    print(String(format: "search: %d queries, p50 %.3f ms, p95 %.3f ms, max %.3f ms (%d hits)",
                 samples.count, percentile(0.5), percentile(0.95), samples.last ?? 0, hits))
}

func blobs(_ args: [String]) throws {
    guard args.count == 3 else { fail("usage: quire-bench blobs URL FOLDER OUT") }
    let env = ProcessInfo.processInfo.environment
    let backend = try Remotes.backend(url: args[0], user: env["QUIRE_WEBDAV_USER"], password: env["QUIRE_WEBDAV_PASSWORD"])
    let repository = try Repository.initialize(backend: backend, passphrase: try SecureBytes(copying: Array("bench".utf8)),
                                               cost: .minimum)
    let files = try FileManager.default.contentsOfDirectory(atPath: args[1]).sorted()
    var ids: [String] = []
    var start = now()
    for name in files { ids.append(try repository.uploadBlob(fileAt: args[1] + "/" + name)) }
    let up = now() - start
    let upRequests = (backend as? WebDAVBackend)?.requestCount ?? 0
    try FileManager.default.createDirectory(atPath: args[2], withIntermediateDirectories: true)
    start = now()
    for (name, id) in zip(files, ids) { try repository.downloadBlob(id, to: args[2] + "/" + name) }
    let down = now() - start
    let downRequests = ((backend as? WebDAVBackend)?.requestCount ?? 0) - upRequests
    print(String(format: "quire blobs: %d files, upload %.2f s (%d requests), download %.2f s (%d requests)",
                 files.count, up, upRequests, down, downRequests))
    print(String(format: "upload_seconds=%.3f download_seconds=%.3f", up, down))
}

let args = Array(CommandLine.arguments.dropFirst())
do {
    switch args.first {
    case "search": try search(Array(args.dropFirst()))
    case "blobs": try blobs(Array(args.dropFirst()))
    default: fail("usage: quire-bench search|blobs ...")
    }
} catch {
    fail("\(error)")
}
