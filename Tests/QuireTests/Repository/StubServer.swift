import Foundation

/// A tiny HTTP/1.1 server on 127.0.0.1 (a free port) answering with whatever `handler` says:
/// for servers that fail in ways a real one will not on demand. Closes each connection.
final class StubServer: @unchecked Sendable {
    struct Request {
        var method: String
        var path: String
        var headers: [String: String]
        var body: Data
    }
    struct Response {
        var status: Int
        var headers: [String: String] = [:]
        var body: Data = Data()
        /// Sent as it is instead of a well-formed answer (a connection cut anywhere).
        var raw: Data?
        /// Sends `raw` (or nothing), then waits for the client to hang up: a server that
        /// stalls in the middle of an answer, until the client's own timeout ends it.
        var stalls = false
    }

    let port: UInt16
    private let socketFD: Int32
    private let handler: @Sendable (Request) -> Response
    private let lock = NSLock()
    private var _requests: [Request] = []
    private var stopped = false

    var url: String { "http://127.0.0.1:\(port)/repo/" }
    var requests: [Request] { lock.withLock { _requests } }

    init(handler: @escaping @Sendable (Request) -> Response) throws {
        self.handler = handler
        (socketFD, port) = try Loopback.listen()
        Thread.detachNewThread { [self] in serve() }
    }

    deinit { stop() }

    func stop() {
        lock.withLock {
            if !stopped { stopped = true; shutdown(socketFD, Int32(SHUT_RDWR)); close(socketFD) }
        }
    }

    private func serve() {
        while true {
            let client = accept(socketFD, nil, nil)
            if client < 0 { return }
            handle(client)
            close(client)
        }
    }

    private func handle(_ client: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var received = Data()
        var headerEnd: Range<Data.Index>?
        while headerEnd == nil {
            let n = read(client, &buffer, buffer.count)
            if n <= 0 { return }
            received.append(contentsOf: buffer[0..<n])
            headerEnd = received.range(of: Data("\r\n\r\n".utf8))
        }
        guard let end = headerEnd else { return }
        let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = head.first?.split(separator: " ") ?? []
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            if let colon = line.firstIndex(of: ":") {
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        var body = Data(received[end.upperBound...])
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while body.count < length {
            let n = read(client, &buffer, min(buffer.count, length - body.count))
            if n <= 0 { break }
            body.append(contentsOf: buffer[0..<n])
        }
        let request = Request(method: requestLine.first.map(String.init) ?? "", path: requestLine.count > 1 ? String(requestLine[1]) : "",
                              headers: headers, body: body)
        lock.withLock { _requests.append(request) }
        let response = handler(request)
        var text = "HTTP/1.1 \(response.status) Stub\r\nContent-Length: \(response.body.count)\r\nConnection: close\r\n"
        for (k, v) in response.headers { text += "\(k): \(v)\r\n" }
        text += "\r\n"
        let out = response.raw ?? (response.stalls ? Data() : Data(text.utf8) + response.body)
        out.withUnsafeBytes { p in
            var offset = 0
            while offset < p.count {
                let n = write(client, p.baseAddress.map { $0 + offset }, p.count - offset)
                if n <= 0 { return }
                offset += n
            }
        }
        if response.stalls {
            let limit = Date().addingTimeInterval(Hang.limit)
            while Date() < limit {
                var poller = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
                if poll(&poller, 1, 1000) != 0 && read(client, &buffer, buffer.count) <= 0 { return }
            }
        }
    }
}
