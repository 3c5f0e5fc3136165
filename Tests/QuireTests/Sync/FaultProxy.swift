import Foundation

/// An HTTP proxy on 127.0.0.1 (a free port) in front of a real WebDAV server that misbehaves
/// on request: answers 500/503/507, cuts the upload or the response mid-body, or stalls.
/// One request per connection; `policy` decides for the n-th request (0-based).
final class FaultProxy: @unchecked Sendable {
    enum Fault: Equatable {
        case pass
        case status(Int)
        /// Reads half the request body, then hangs up.
        case cutUpload
        /// Forwards, then returns only half of the response before hanging up.
        case cutResponse
        /// Answers nothing until the client gives up and hangs up (a stalled server); after
        /// `Hang.limit` it forwards after all, and `stallsOutwaited` says the client never did.
        case stall
        /// Forwards, then adds `Internal Server Error` after the body of the answer, as rclone
        /// does when a file vanishes while it lists a folder.
        case textAfterBody
    }

    let port: UInt16
    let upstreamHost: String
    let upstreamPort: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var count = 0
    private var _log: [String] = []
    private var _unauthenticated = 0
    private var _injected: [Fault] = []
    private var _stallsOutwaited = 0
    private var _policy: @Sendable (Int, String, String) -> Fault = { _, _, _ in .pass }
    /// Decides the fault for (n, method, path), n counting the requests since it was set.
    var policy: @Sendable (Int, String, String) -> Fault {
        get { lock.withLock { _policy } }
        set { lock.withLock { _policy = newValue; count = 0 } }
    }

    var log: [String] { lock.withLock { _log } }
    /// The faults applied so far, in order (a test checks that what it names happened).
    var injected: [Fault] { lock.withLock { _injected } }
    /// Stalled requests whose client never hung up.
    var stallsOutwaited: Int { lock.withLock { _stallsOutwaited } }
    /// Requests that came without an Authorization header (each meets a 401 upstream).
    var unauthenticated: Int { lock.withLock { _unauthenticated } }

    /// `upstream` is the server's base URL, e.g. http://127.0.0.1:8080/dav/.
    init(upstream: String) throws {
        guard let url = URL(string: upstream), let host = url.host, let port = url.port else { throw POSIXError(.EINVAL) }
        upstreamHost = host
        upstreamPort = UInt16(port)
        (listener, self.port) = try Loopback.listen()
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                Thread.detachNewThread { [self] in
                    handle(client)
                    close(client)
                }
            }
        }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// The proxy's URL for a path of the upstream (e.g. "/dav/x/").
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    private func readHead(_ fd: Int32) -> (head: String, rest: Data)? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let end = data.range(of: Data("\r\n\r\n".utf8)) {
                return (String(decoding: data[..<end.lowerBound], as: UTF8.self), Data(data[end.upperBound...]))
            }
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { return nil }
            data.append(contentsOf: buffer[0..<n])
        }
    }

    private func readExactly(_ fd: Int32, _ count: Int, into data: inout Data) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while data.count < count {
            let n = read(fd, &buffer, min(buffer.count, count - data.count))
            if n <= 0 { return false }
            data.append(contentsOf: buffer[0..<n])
        }
        return true
    }

    private func send(_ fd: Int32, _ data: Data) {
        data.withUnsafeBytes { p in
            var offset = 0
            while offset < p.count {
                let n = write(fd, p.baseAddress.map { $0 + offset }, p.count - offset)
                if n <= 0 { return }
                offset += n
            }
        }
    }

    /// Waits until the client closes its end; false after `Hang.limit` with it still open.
    private func waitForHangUp(_ fd: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let limit = Date().addingTimeInterval(Hang.limit)
        while Date() < limit {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 1000) != 0 else { continue }
            if read(fd, &buffer, buffer.count) <= 0 { return true }  // the request's body, then the hang-up
        }
        return false
    }

    private func handle(_ client: Int32) {
        guard let (head, rest) = readHead(client) else { return }
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.first ?? ""
        let parts = requestLine.split(separator: " ")
        let method = parts.first.map(String.init) ?? "", path = parts.count > 1 ? String(parts[1]) : ""
        let length = lines.compactMap { line -> Int? in
            line.lowercased().hasPrefix("content-length:") ? Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) : nil
        }.first ?? 0
        let (index, policy) = lock.withLock { defer { count += 1 }; return (count, _policy) }
        let fault = policy(index, method, path)
        let authorized = lines.contains { $0.lowercased().hasPrefix("authorization:") }
        lock.withLock {
            _log.append("\(index) \(method) \(path) \(fault)")
            if !authorized { _unauthenticated += 1 }
            if fault != .pass { _injected.append(fault) }
        }
        var body = rest
        switch fault {
        case .cutUpload:
            _ = readExactly(client, max(1, length / 2), into: &body)
            return
        case .status(let status):
            _ = readExactly(client, length, into: &body)
            send(client, Data("HTTP/1.1 \(status) Injected\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            return
        case .stall:
            if waitForHangUp(client) { return }
            lock.withLock { _stallsOutwaited += 1 }
        default:
            break
        }
        guard readExactly(client, length, into: &body) else { return }
        // Forward with the connection closed after one answer and Destination pointed upstream.
        let proxyOrigin = "http://127.0.0.1:\(port)", upstreamOrigin = "http://\(upstreamHost):\(upstreamPort)"
        lines = lines.filter { !$0.lowercased().hasPrefix("connection:") }.map { line in
            line.lowercased().hasPrefix("destination:") ? line.replacingOccurrences(of: proxyOrigin, with: upstreamOrigin) : line
        }
        lines.append("Connection: close")
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(upstream) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(upstreamHost)
        address.sin_port = upstreamPort.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return }
        send(upstream, Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body)
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(upstream, &buffer, buffer.count)
            if n <= 0 { break }
            response.append(contentsOf: buffer[0..<n])
        }
        switch fault {
        case .cutResponse: send(client, response.prefix(max(1, response.count / 2)))
        case .textAfterBody: send(client, Self.withTextAfterBody(response, "Internal Server Error\n"))
        default: send(client, response)
        }
    }

    /// `response` (a whole HTTP/1.1 answer, its body chunked or not) with `text` after its
    /// body, re-framed with a Content-Length that covers both.
    static func withTextAfterBody(_ response: Data, _ text: String) -> Data {
        guard let end = response.range(of: Data("\r\n\r\n".utf8)) else { return response }
        let head = String(decoding: response[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        var body = Data(response[end.upperBound...])
        if head.contains(where: { $0.lowercased().hasPrefix("transfer-encoding:") && $0.lowercased().contains("chunked") }) {
            var plain = Data(), rest = body[...]
            while let lineEnd = rest.range(of: Data("\r\n".utf8)) {
                let sizeText = String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size > 0 else { break }
                let start = lineEnd.upperBound
                guard rest.distance(from: start, to: rest.endIndex) >= size else { break }
                plain.append(rest[start..<rest.index(start, offsetBy: size)])
                rest = rest[rest.index(start, offsetBy: size)...].dropFirst(2)
            }
            body = plain
        }
        body.append(Data(text.utf8))
        let kept = head.filter { !["transfer-encoding:", "content-length:"].contains(where: $0.lowercased().hasPrefix) }
        return Data((kept + ["Content-Length: \(body.count)"]).joined(separator: "\r\n").utf8) + Data("\r\n\r\n".utf8) + body
    }
}
