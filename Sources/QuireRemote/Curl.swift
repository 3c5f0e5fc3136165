import CCurl
import Foundation
import Synchronization

/// One HTTP exchange.
struct HTTPRequest {
    var method: String
    var url: String
    var headers: [String] = []
    /// Request body, streamed.
    var body: ByteSource?
    /// Where a 2xx response body goes; other bodies are kept (first 4 KiB) for messages.
    var sink: ByteSink?
    /// The byte range asked for with a Range header; a 200 answer is trimmed to it.
    var range: Range<Int64>?
    /// Seconds the whole exchange may take (nil: no limit beyond the low-speed one, for
    /// attachments whose size sets their time).
    var timeout: Int?
}

struct HTTPResponse {
    var status: Int
    /// Header names lower-cased; the last response's headers only (after auth round trips).
    var headers: [String: String]
    /// The start of a non-2xx body.
    var errorBody: Data
}

/// Connection settings for the WebDAV backend.
package struct HTTPSettings: Sendable {
    package var user: String?
    /// Never logged, never put in a URL or process arguments.
    package var password: String?
    package var connectTimeout: Int = 30
    /// Abort when fewer than 1 byte/s flows for this many seconds.
    package var lowSpeedTime: Int = 60
    /// How long a server that took the connection may stay silent before it has said
    /// anything at all on it (at most `lowSpeedTime`): a wrong port or a hung server is
    /// named within a minute (`silentAttempts` tries), not after five long timeouts.
    package var firstAnswerTime: Int = 15
    /// Tries for a server that never answers, or refuses the connection.
    package var silentAttempts = 3
    /// Hears what a person waiting should know ("waiting for the server…", "asking
    /// again…"); called on the thread making the request.
    package var notice: (@Sendable (String) -> Void)?
    /// The longest a folder listing may take: a server trickling a byte a second must not
    /// hold a sync for ever.
    package var listingTimeout: Int = 300
    package var verifyTLS = true
    /// A PEM file of the certificates that may vouch for the server (its own CA, or its
    /// self-signed certificate), instead of the system's: a server of one's own with a
    /// private CA. Nil: the system's store.
    package var caFile: String?
    /// Attempts for transient failures (423, 429, 5xx, dropped connections).
    package var attempts = 5
    /// First back-off delay; doubles each attempt.
    package var backoff: Double = 0.25
    /// The user said `--insecure-http`: an `http://` server beyond loopback is accepted. Even
    /// then only Digest is offered there: Basic would hand the password to anyone on the path.
    package var insecureHTTP = false
    /// curl's `--resolve` entries (`HOST:PORT:ADDRESS`): tests reach a named host on loopback.
    var resolve: [String] = []
    /// S3: requests are signed with AWS Signature V4 for this region (libcurl's own signing;
    /// `user` is the access key, `password` its secret), and `~/.netrc` is not read.
    package var sigV4Region: String?
    /// The scheme each server asked for, shared by every connection made from copies of
    /// these settings: a new connection does not meet the challenge again. A journal hands
    /// in its own, seeded with what an earlier run learned, and keeps what this one learns.
    package var schemes = AuthSchemes()

    package init(user: String? = nil, password: String? = nil) {
        self.user = user
        self.password = password
    }
}

/// The authentication scheme each server (scheme, host and port) asked for, and the one an
/// earlier run learned (`remembered`: "basic" or "digest"), tried first so that a sync's
/// first request does not meet a 401: a round trip and half a kilobyte saved every sync.
package final class AuthSchemes: Sendable {
    private struct State {
        var learned: [String: Int] = [:]
        var guess: Int?
        var news: String?
    }

    private let state = Mutex(State())

    package init() {}

    /// Takes what an earlier run learned ("basic", "digest"), unless this run has learned or
    /// forgotten something since.
    package func remember(_ name: String?) {
        state.withLock { if $0.news == nil { $0.guess = Self.method(named: name) } }
    }

    subscript(origin: String) -> Int? {
        get { state.withLock { $0.learned[origin] } }
        set {
            state.withLock { state in
                state.learned[origin] = newValue
                if let newValue, newValue != state.guess { state.news = Self.name(of: newValue) }
            }
        }
    }

    /// The remembered scheme, until a server answers that it wants another.
    var remembered: Int? { state.withLock { $0.guess } }

    /// The remembered scheme was wrong (the server changed): forgotten, for this run and the next.
    func forgetRemembered() {
        state.withLock { state in
            state.guess = nil
            state.news = state.news ?? ""
        }
    }

    /// What to remember for the next run, when it differs from what was remembered: a
    /// scheme's name, or "" to forget; nil when there is nothing new.
    package var toRemember: String? { state.withLock { $0.news } }

    private static func method(named name: String?) -> Int? {
        switch name {
        case "basic": return QUIRE_CURLAUTH_BASIC
        case "digest": return QUIRE_CURLAUTH_DIGEST
        default: return nil
        }
    }

    private static func name(of method: Int) -> String? {
        method == QUIRE_CURLAUTH_BASIC ? "basic" : method == QUIRE_CURLAUTH_DIGEST ? "digest" : nil
    }
}

/// A libcurl easy handle, reused across requests so the connection stays alive.
/// The only file that talks to libcurl.
///
/// The handle is not reset between requests (`curl_easy_reset` forgets a Digest nonce, and
/// every request then meets a 401 first: two round trips, and a body sent until the
/// challenge arrives). Instead every option a request may set is set by every request.
final class Curl {
    private let handle: UnsafeMutableRawPointer
    private let settings: HTTPSettings
    /// Basic and Digest until the server has said which it wants; then that one alone, so
    /// each request is one round trip: Basic is then sent up front, and Digest answers the
    /// nonce the handle keeps. Another connection to the same server starts from what this
    /// one learned. Over plain HTTP beyond loopback, Digest only: an active attacker
    /// answering "Basic only" must not get the password (nor the one `~/.netrc` holds).
    private var authMethods: Int
    /// Whether Basic may be sent: over TLS, or to this machine.
    private let basicAllowed: Bool
    /// `authMethods` is the scheme an earlier run learned, not yet confirmed by this server.
    private var guessing = false
    /// Scheme, host and port: whom `settings.schemes` remembers.
    private let origin: String
    /// Host and port, as messages name the server.
    let server: String
    /// The server has answered something on this connection: from then on it is a server
    /// that talks, and silence is measured by `lowSpeedTime`.
    private var heardFromServer = false
    private static let globalInit: Bool = curl_global_init(QUIRE_CURL_GLOBAL_DEFAULT) == CURLE_OK
    /// libcurl's own words for the last failure (`CURLOPT_ERRORBUFFER`): what was wrong with a
    /// certificate, which `curl_easy_strerror` does not say. Lives as long as the handle.
    private let errorWords = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    /// The bytes handed to one send of a body (libcurl allows up to 2 MiB).
    static let uploadBufferSize = 512 << 10

    init(settings: HTTPSettings, basicAllowed: Bool, origin: String) throws {
        guard Self.globalInit, let handle = curl_easy_init() else {
            throw RemoteError(.localIO, detail: "libcurl failed to initialise")
        }
        self.handle = handle
        errorWords.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        quire_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorWords)
        self.settings = settings
        self.basicAllowed = basicAllowed
        self.origin = origin
        server = origin.components(separatedBy: "://").last ?? origin
        authMethods = basicAllowed ? QUIRE_CURLAUTH_BASIC | QUIRE_CURLAUTH_DIGEST : QUIRE_CURLAUTH_DIGEST
        if let learned = settings.schemes[origin], learned == QUIRE_CURLAUTH_DIGEST || basicAllowed {
            authMethods = learned
        } else if settings.user != nil, let remembered = settings.schemes.remembered, remembered == QUIRE_CURLAUTH_DIGEST || basicAllowed {
            authMethods = remembered
            guessing = true
        }
    }

    /// Printable ASCII only: libcurl's words may quote what a server sent.
    private static func plain(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(200).map { (32...126).contains($0.value) ? $0 : "?" }))
    }

    deinit {
        curl_easy_cleanup(handle)
        errorWords.deallocate()
    }

    /// Performs `request` once. Transport failures throw; any HTTP status returns.
    func perform(_ request: HTTPRequest) throws -> HTTPResponse {
        let transfer = Transfer(request: request)
        var headerList: UnsafeMutablePointer<curl_slist>?
        // An empty Expect: stops libcurl waiting for 100-continue that some servers never send.
        // An empty Accept: drops libcurl's `*/*`, which says nothing: on a home line every
        // request's header bytes count (a sync after one edit is three requests).
        // Not for S3: libcurl 7.88's SigV4 signs a header removed this way as an empty one it
        // then does not send, and every server answers SignatureDoesNotMatch (S3 servers
        // answer 100-continue, so the wait it saves is not there).
        let removed = settings.sigV4Region == nil ? ["Expect:", "Accept:"] : []
        for header in request.headers + removed { headerList = curl_slist_append(headerList, header) }
        defer { curl_slist_free_all(headerList) }
        var resolveList: UnsafeMutablePointer<curl_slist>?
        for entry in settings.resolve { resolveList = curl_slist_append(resolveList, entry) }
        defer { curl_slist_free_all(resolveList) }

        quire_curl_setopt_string(handle, CURLOPT_URL, request.url)
        quire_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        if resolveList != nil { quire_curl_setopt_slist(handle, CURLOPT_RESOLVE, resolveList) }
        quire_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        quire_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, settings.connectTimeout)
        quire_curl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
        quire_curl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, settings.lowSpeedTime)
        // Silence before an answer begins is timed by `curlProgress`, to the second.
        transfer.silenceLimit = heardFromServer ? settings.lowSpeedTime : min(settings.firstAnswerTime, settings.lowSpeedTime)
        transfer.server = server
        transfer.notice = settings.notice
        quire_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
        quire_curl_setopt_xferinfo(handle, curlProgress)
        quire_curl_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1)
        quire_curl_setopt_long(handle, CURLOPT_TIMEOUT, request.timeout ?? 0)
        quire_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, settings.verifyTLS ? 1 : 0)
        quire_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, settings.verifyTLS ? 2 : 0)
        if let caFile = settings.caFile { quire_curl_setopt_string(handle, CURLOPT_CAINFO, caFile) }
        quire_curl_setopt_long(handle, CURLOPT_NETRC, settings.sigV4Region == nil ? QUIRE_CURL_NETRC_OPTIONAL : 0)
        quire_curl_setopt_string(handle, CURLOPT_USERAGENT, "quire/0.1")
        if let user = settings.user { quire_curl_setopt_string(handle, CURLOPT_USERNAME, user) }
        if let password = settings.password { quire_curl_setopt_string(handle, CURLOPT_PASSWORD, password) }
        if let region = settings.sigV4Region {
            quire_curl_setopt_string(handle, CURLOPT_AWS_SIGV4, "aws:amz:\(region):s3")
        } else {
            quire_curl_setopt_long(handle, CURLOPT_HTTPAUTH, authMethods)
        }
        quire_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)
        // The method, from a clean slate: HTTPGET undoes an earlier request's UPLOAD.
        quire_curl_setopt_long(handle, CURLOPT_HTTPGET, 1)
        // A HEAD's answer has no body whatever its Content-Length says (S3 asks with HEAD).
        quire_curl_setopt_long(handle, CURLOPT_NOBODY, request.method == "HEAD" ? 1 : 0)
        quire_curl_setopt_off(handle, CURLOPT_INFILESIZE_LARGE, -1)
        if let body = request.body {
            quire_curl_setopt_long(handle, CURLOPT_UPLOAD, 1)
            // Fewer, larger sends than the default 64 KiB (bodies run to 16 MiB).
            quire_curl_setopt_long(handle, CURLOPT_UPLOAD_BUFFERSIZE, Self.uploadBufferSize)
            if let size = body.size { quire_curl_setopt_off(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(size)) }
        }
        quire_curl_setopt_read(handle, curlRead)
        quire_curl_setopt_seek(handle, curlSeek)
        let custom = request.method != "GET" && request.method != "HEAD" && !(request.method == "PUT" && request.body != nil)
        quire_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, custom ? request.method : nil)
        quire_curl_setopt_write(handle, curlWrite)
        quire_curl_setopt_header(handle, curlHeader)

        errorWords[0] = 0
        let code: CURLcode = withExtendedLifetime(transfer) {
            let context = Unmanaged.passUnretained(transfer).toOpaque()
            quire_curl_setopt_pointer(handle, CURLOPT_READDATA, context)
            quire_curl_setopt_pointer(handle, CURLOPT_SEEKDATA, context)
            quire_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
            quire_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
            quire_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)
            transfer.handle = handle
            return curl_easy_perform(handle)
        }
        if transfer.heardAnything { heardFromServer = true }
        if let error = transfer.error { throw error }
        guard code == CURLE_OK else { throw transportError(code, transfer) }
        guard transfer.headersEnded else {
            throw RemoteError(.transient, detail: "the connection closed in the middle of the server's answer")
        }
        var status = 0
        quire_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var offered = 0
        quire_curl_getinfo_long(handle, CURLINFO_HTTPAUTH_AVAIL, &offered)
        if settings.sigV4Region != nil { return HTTPResponse(status: status, headers: transfer.headers, errorBody: transfer.errorBody) }
        if offered != 0 && status != 401 && settings.user != nil {
            authMethods = offered & QUIRE_CURLAUTH_DIGEST != 0 || !basicAllowed ? QUIRE_CURLAUTH_DIGEST : QUIRE_CURLAUTH_BASIC
            settings.schemes[origin] = authMethods
            guessing = false
        } else if status != 401 {
            guessing = false
        }
        // The remembered scheme is not what the server wants now: forget it and ask again
        // with the one it offered (a Digest nonce from this 401 is kept by the handle).
        let allowed = basicAllowed ? QUIRE_CURLAUTH_BASIC | QUIRE_CURLAUTH_DIGEST : QUIRE_CURLAUTH_DIGEST
        if status == 401 && guessing && offered & allowed & ~authMethods != 0 {
            guessing = false
            authMethods = offered & QUIRE_CURLAUTH_DIGEST != 0 || !basicAllowed ? QUIRE_CURLAUTH_DIGEST : QUIRE_CURLAUTH_BASIC
            settings.schemes.forgetRemembered()
            if (try request.body?.rewind()) ?? true {
                let again = try perform(request)
                if again.status != 401 { settings.schemes[origin] = authMethods }
                return again
            }
        }
        if status == 401 && !basicAllowed && offered & QUIRE_CURLAUTH_DIGEST == 0 && offered & QUIRE_CURLAUTH_BASIC != 0 {
            throw RemoteError(.unauthorized, status: status,
                              detail: "the server asks for Basic authentication over http://, which would send the password in clear; use https://")
        }
        return HTTPResponse(status: status, headers: transfer.headers, errorBody: transfer.errorBody)
    }

    private func transportError(_ code: CURLcode, _ transfer: Transfer) -> RemoteError {
        let message = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_PEER_FAILED_VERIFICATION:
            // A server of one's own often has a certificate no public CA signed: say how to trust it.
            return RemoteError(.unreachable, detail: "\(server): its TLS certificate is not one this machine trusts (\(errorWords[0] == 0 ? message : Self.plain(String(cString: errorWords)))): "
                               + (settings.caFile.map { "the CA file \($0) does not vouch for it; check it is the server's CA" }
                                  ?? "for a self-signed certificate or a private CA, give its certificate with --ca-file F (remote set, restore)"), advises: true)
        case CURLE_SSL_CACERT_BADFILE:
            return RemoteError(.unreachable, detail: "cannot read the CA file \(settings.caFile ?? ""): give a PEM file of certificates with --ca-file F", advises: true)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_SSL_CONNECT_ERROR,
             CURLE_SSL_CERTPROBLEM, CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return RemoteError(.unreachable, detail: "\(server): " + message)
        case CURLE_COULDNT_CONNECT:
            return RemoteError(.refused, detail: "\(server) refused the connection (\(message.lowercased()))")
        case CURLE_ABORTED_BY_CALLBACK where transfer.gaveUpWaiting, CURLE_OPERATION_TIMEDOUT where !transfer.heardAnything:
            return RemoteError(.noAnswer, detail: "\(server) took the connection but sent no answer in \(transfer.silenceLimit) s")
        default:
            // Refused or dropped connections, timeouts, partial bodies: worth another try.
            return RemoteError(.transient, detail: message)
        }
    }
}

/// State shared with libcurl's C callbacks for one request.
private final class Transfer {
    let request: HTTPRequest
    var handle: UnsafeMutableRawPointer?
    var headers: [String: String] = [:]
    var errorBody = Data()
    var error: Error?
    /// Bytes of the current response body seen so far.
    var bodyOffset: Int64 = 0
    /// The current response's header block ended (its blank line came): a connection cut
    /// inside the headers can otherwise pass for a whole answer without a body.
    var headersEnded = false
    /// Some answer began (a status line came).
    var heardAnything = false
    /// For the notices of a wait: who is waited for, how long it may stay silent, the
    /// bytes seen at the last look and since when nothing moved.
    var server = ""
    var silenceLimit = 0
    var notice: (@Sendable (String) -> Void)?
    var lastMoved = (bytes: Int64(-1), at: Date())
    var lastNotice = 0
    /// `curlProgress` ended the exchange: `silenceLimit` seconds passed with no answer.
    var gaveUpWaiting = false

    init(request: HTTPRequest) { self.request = request }

    var status: Int {
        var status = 0
        if let handle { quire_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status) }
        return status
    }
}

private func transfer(_ pointer: UnsafeMutableRawPointer?) -> Transfer? {
    pointer.map { Unmanaged<Transfer>.fromOpaque($0).takeUnretainedValue() }
}

private func curlWrite(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let t = transfer(context), let data else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
    let status = t.status
    if (200..<300).contains(status), let sink = t.request.sink {
        do {
            let start = t.bodyOffset
            t.bodyOffset += Int64(bytes.count)
            if status == 200, let range = t.request.range {
                let lower = max(range.lowerBound, start), upper = min(range.upperBound, t.bodyOffset)
                if lower < upper { try sink.write(UnsafeRawBufferPointer(rebasing: bytes[Int(lower - start)..<Int(upper - start)])) }
            } else {
                try sink.write(bytes)
            }
        } catch {
            t.error = error
            return 0
        }
    } else if t.errorBody.count < 4096 {
        t.errorBody.append(contentsOf: bytes.prefix(4096 - t.errorBody.count))
    }
    return bytes.count
}

private func curlHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let t = transfer(context), let data else { return 0 }
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self)
    if line.hasPrefix("HTTP/") {
        t.heardAnything = true
        t.headers = [:]  // a new response (after 100 Continue or an auth round trip)
        t.errorBody = Data()
        t.bodyOffset = 0
        t.headersEnded = false
    } else if line == "\r\n" || line == "\n" {
        t.headersEnded = true
    } else if let colon = line.firstIndex(of: ":") {
        let name = line[..<colon].lowercased()
        t.headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
    }
    return size * count
}

private func curlRead(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let t = transfer(context), let body = t.request.body, let buffer else { return QUIRE_CURL_READFUNC_ABORT }
    // curl sends what one call returns, so the buffer is filled whole where the body has
    // the bytes: a sealed source hands over a chunk (64 KiB and a tag) at a time, and a
    // short read would go out as a send, and a TCP segment, of its own.
    let room = size * count
    var filled = 0
    do {
        while filled < room {
            let n = try body.read(into: UnsafeMutableRawBufferPointer(start: buffer + filled, count: room - filled))
            guard n > 0 else { break }
            filled += n
        }
        return filled
    } catch {
        t.error = error
        return QUIRE_CURL_READFUNC_ABORT
    }
}

private func curlSeek(_ context: UnsafeMutableRawPointer?, _ offset: curl_off_t, _ origin: Int32) -> Int32 {
    guard let t = transfer(context), let body = t.request.body, offset == 0, origin == SEEK_SET,
          (try? body.rewind()) == true else { return QUIRE_CURL_SEEKFUNC_CANTSEEK }
    return QUIRE_CURL_SEEKFUNC_OK
}

/// Times the silence of a server that has not begun to answer: nothing moving either way
/// for `silenceLimit` seconds ends the exchange. Meanwhile it tells the person waiting, every
/// second from the fifth on (sooner when the limit is short), how long it has waited.
private func curlProgress(_ context: UnsafeMutableRawPointer?, _ downTotal: curl_off_t, _ downNow: curl_off_t,
                          _ upTotal: curl_off_t, _ upNow: curl_off_t) -> Int32 {
    guard let t = transfer(context), !t.heardAnything else { return 0 }
    let moved = Int64(downNow) + Int64(upNow)
    let now = Date()
    if moved != t.lastMoved.bytes { t.lastMoved = (moved, now) }
    let quiet = Int(now.timeIntervalSince(t.lastMoved.at))
    if quiet >= t.silenceLimit {
        t.gaveUpWaiting = true
        return 1
    }
    if let notice = t.notice, quiet >= min(5, max(1, t.silenceLimit / 2)) && quiet != t.lastNotice {
        t.lastNotice = quiet
        notice("waiting for \(t.server) to answer… \(quiet) s (gives up at \(t.silenceLimit) s)")
    }
    return 0
}
