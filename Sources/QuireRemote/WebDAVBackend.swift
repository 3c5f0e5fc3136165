import Foundation

/// A repository on a WebDAV server, through libcurl. Uses only what Apache mod_dav, nginx
/// (dav + dav-ext) and rclone all do: PUT, GET (ranged), PROPFIND Depth 1, MKCOL, DELETE and
/// MOVE with an absolute Destination and an explicit Overwrite. Create-only writes are PUT to
/// a temporary name, then MOVE with `Overwrite: F` (412 when taken, on every server tried).
package final class WebDAVBackend: PublishSteps, CountsRequests {
    /// The collection URL, always with a trailing slash.
    package let base: String
    private let settings: HTTPSettings
    private let curl: Curl
    /// Folders known to exist, so MKCOL is sent once per folder per session.
    /// The root too: a repository URL may name a collection that does not exist yet.
    private var knownFolders: Set<String> = []
    /// Called before each retry with (attempt, delay); tests count retries with it.
    package var onRetry: ((Int, Double) -> Void)?
    /// Test hook, called between uploading a create-only object's temporary and moving it.
    package var publishStep: (() -> Void)?

    package func onPublishStep(_ step: (() -> Void)?) { publishStep = step }
    package var requestsSent: Int { requestCount }
    /// Requests made, for `sync --json` and benchmarks.
    package private(set) var requestCount = 0

    package var location: String { Self.redacted(base) }

    package init(url: String, settings: HTTPSettings) throws {
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
            throw RemoteError(.invalid, detail: "a WebDAV URL starts with https://")
        }
        guard let parsed = URL(string: url), let host = parsed.host else { throw RemoteError(.invalid, detail: "not a valid URL") }
        guard parsed.password == nil else {
            throw RemoteError(.invalid, detail: "put the password in QUIRE_WEBDAV_PASSWORD, --password-file or ~/.netrc, not in the URL")
        }
        let overTLS = url.hasPrefix("https://")
        let loopback = Self.isLoopback(host)
        guard overTLS || loopback || settings.insecureHTTP else {
            throw RemoteError(.invalid, detail: "http:// would send the password and every request in clear across the network: use https://, or give --insecure-http to `quire remote set` (or `quire restore`) if that network is yours")
        }
        base = url.hasSuffix("/") ? url : url + "/"
        self.settings = settings
        let origin = "\(parsed.scheme ?? "")://\(host.lowercased()):\(parsed.port ?? (overTLS ? 443 : 80))"
        curl = try Curl(settings: settings, basicAllowed: overTLS || loopback, origin: origin)
    }

    /// This machine by name or address (`localhost`, 127.0.0.0/8, `::1`): plain HTTP there
    /// crosses no network.
    static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if h == "localhost" || h == "::1" { return true }
        let octets = h.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Whether `url` is Nextcloud's or ownCloud's WebDAV (under `/remote.php/`): they move what
    /// a DELETE names into the account's trash bin, kept 30 days or more unless emptied.
    package static func hasTrashBin(_ url: String) -> Bool {
        guard let parts = URLComponents(string: url), ["http", "https"].contains(parts.scheme?.lowercased() ?? "") else { return false }
        return parts.path.contains("/remote.php/")
    }

    package static func redacted(_ url: String) -> String {
        guard var parts = URLComponents(string: url) else { return url }
        parts.password = nil
        return parts.string ?? url
    }

    // MARK: - URLs

    private static let unreserved: CharacterSet = {
        var set = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        set.insert(charactersIn: "-._~")
        return set
    }()

    func url(_ path: String, folder: Bool = false) -> String {
        let encoded = path.split(separator: "/").map {
            String($0).addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? String($0)
        }.joined(separator: "/")
        return base + encoded + (folder && !encoded.isEmpty ? "/" : "")
    }

    // MARK: - Requests with retries

    /// `HTTPSettings.withRetries`, telling `onRetry` of each retry.
    private func withRetries<T>(_ path: String, _ attempt: (_ retry: Bool) throws -> T) throws -> T {
        try settings.withRetries(path, onRetry: onRetry, attempt)
    }

    private func send(_ request: HTTPRequest, path: String) throws -> HTTPResponse {
        requestCount += 1
        return try curl.perform(request)
    }

    /// Maps a status outside `accepted` to an error.
    private func check(_ response: HTTPResponse, path: String, accepted: Set<Int>) throws {
        let status = response.status
        if accepted.contains(status) { return }
        switch status {
        case 401: throw RemoteError(.unauthorized, path: path, status: status, detail: "the server wants a valid user and password")
        case 403: throw RemoteError(.forbidden, path: path, status: status, detail: "the server refuses access")
        case 404, 410: throw RemoteError(.notFound, path: path, status: status, detail: "not found")
        case 412: throw RemoteError(.exists, path: path, status: status, detail: "already exists")
        case 413: throw RemoteError(.tooLarge, path: path, status: status, detail: "the server refuses a request body this large")
        case 507: throw RemoteError(.insufficientStorage, path: path, status: status, detail: "the server is out of space")
        case 423, 429, 500, 502, 503, 504:
            throw RemoteError(.transient, path: path, status: status, detail: "the server is busy or failing")
        default:
            throw RemoteError(.protocolError, path: path, status: status, detail: "unexpected answer")
        }
    }

    /// Apache's mod_dav answers 502 "Destination URI refers to different scheme or port" when
    /// it is reached through a proxy that ends TLS: the Destination names the address Quire
    /// uses, which is not the one Apache believes is its own. No retry helps (five of them
    /// took four seconds, then said the server was busy): it is said once, with the remedy,
    /// tried on this machine's Apache behind a TLS front (`ServerName` with the scheme and port).
    private func checkDestination(_ response: HTTPResponse, path: String, destination: String) throws {
        guard response.status == 502, String(decoding: response.errorBody, as: UTF8.self).contains("Destination URI") else { return }
        let parts = URLComponents(string: destination)
        let address = (parts?.scheme ?? "https") + "://" + (parts?.host ?? "HOST") + (parts?.port.map { ":\($0)" } ?? "")
        throw RemoteError(.protocolError, path: path, status: 502,
                          detail: "the server refuses to move an object to \(Self.redacted(destination)): it is reached through a proxy that ends TLS "
                              + "and takes its own address to be another (Apache: set ServerName \(address); or have the proxy rewrite the Destination header)", advises: true)
    }

    // MARK: - Folders

    /// Creates `folder` and its missing parents (MKCOL: 201 made, 405 already there). The
    /// folder itself is asked for first: its parents usually exist, and then one request does
    /// (a 409 says a parent is missing; those are made, and the folder asked for again).
    /// Servers answer a MKCOL of a folder that exists in more ways than 405: Apache sometimes
    /// 403 when another client made it a moment before, some 409. Any of those is checked
    /// (PROPFIND Depth 0) and passed over when the folder is there; only then is it an error.
    private func ensureFolder(_ folder: String) throws {
        guard !knownFolders.contains(folder) else { return }
        let made = try withRetries(folder) { _ in try makeCollection(folder, parentMissingIsAnError: folder.isEmpty) }
        if !made {
            try ensureFolder(parentPath(folder))
            _ = try withRetries(folder) { _ in try makeCollection(folder, parentMissingIsAnError: true) }
        }
        knowExists(folder)
    }

    /// One MKCOL of `folder`: true when the folder exists afterwards, false when its parent
    /// may be missing (unless that is an error here): 409 by RFC 4918; 404 and 500 are what
    /// some servers answer a PUT into a missing folder with, so they are taken alike.
    private func makeCollection(_ folder: String, parentMissingIsAnError: Bool) throws -> Bool {
        let response = try send(HTTPRequest(method: "MKCOL", url: url(folder, folder: true)), path: folder)
        if response.status == 403, try folderExists(folder) { return true }
        // Asked again once the parents are made, where a 409 that means "exists" is checked.
        if !parentMissingIsAnError && [404, 409, 500].contains(response.status) { return false }
        if response.status == 409 {
            if try folderExists(folder) { return true }
            throw RemoteError(.notFound, path: folder, status: 409, detail: folder.isEmpty
                ? "the folder above \(location) does not exist on the server" : "its parent folder is missing")
        }
        try check(response, path: folder, accepted: [200, 201, 204, 301, 405])
        return true
    }

    /// Remembers that `folder` and every folder above it exist (an answer about something
    /// inside them said so), so no MKCOL is sent for them.
    private func knowExists(_ folder: String) {
        var known = folder
        while !known.isEmpty && knownFolders.insert(known).inserted { known = parentPath(known) }
        knownFolders.insert("")
    }

    /// Whether `folder` exists as a collection (PROPFIND Depth 0).
    private func folderExists(_ folder: String) throws -> Bool {
        let body = #"<propfind xmlns="DAV:"><prop><resourcetype/></prop></propfind>"#
        let sink = PropfindSink()
        let response = try send(HTTPRequest(method: "PROPFIND", url: url(folder, folder: true),
                                            headers: ["Depth: 0", "Content-Type: application/xml"],
                                            body: DataSource(Data(body.utf8)), sink: sink, timeout: settings.listingTimeout), path: folder)
        guard response.status == 207 else { return false }
        try Self.checkListing(sink, path: folder)
        return sink.parser.items.contains { $0.isCollection }
    }

    /// A 207 whose body is not exactly one well-formed multistatus document was cut short, or
    /// had something written after it (rclone, when a file vanishes while it lists, sends a
    /// whole multistatus and then `Internal Server Error`): the listing may be incomplete, so it
    /// is a transient failure, asked again like a 503. A listing refused for its size is not.
    private static func checkListing(_ sink: PropfindSink, path: String) throws {
        guard !sink.succeeded else { return }
        if let refusal = sink.parser.refusal {
            throw RemoteError(.protocolError, path: path, status: 207, detail: "the server's folder listing has \(refusal)")
        }
        throw RemoteError(.transient, path: path, status: 207,
                          detail: "the server's folder listing was cut short or had other text after it (not one well-formed XML document)")
    }

    package func makeFolder(_ path: String) throws {
        try validatePath(path)
        try ensureFolder(path)
    }

    private func parent(of path: String) -> String {
        let p = parentPath(path)
        return p == "/" ? "" : p
    }

    // MARK: - Backend

    package func put(_ path: String, from source: ByteSource) throws {
        try validatePath(path)
        let folder = parentPath(path)
        try withRetries(path) { _ in
            guard try source.rewind() else { throw RemoteError(.localIO, path: path, detail: "upload cannot restart") }
            var response = try send(HTTPRequest(method: "PUT", url: url(path), body: source), path: path)
            // Optimistic: the folder usually exists. A missing parent answers 409 (Apache), 404
            // (rclone) or 500 (nginx); make the folders and try once more.
            if [404, 409, 500].contains(response.status) {
                knownFolders.remove(folder)
                try ensureFolder(folder)
                guard try source.rewind() else { throw RemoteError(.localIO, path: path, detail: "upload cannot restart") }
                response = try send(HTTPRequest(method: "PUT", url: url(path), body: source), path: path)
            }
            try check(response, path: path, accepted: [200, 201, 204])
        }
        knowExists(folder)
    }

    package func publish(_ path: String, from source: ByteSource) throws {
        try validatePath(path)
        let folder = parent(of: path)
        let temp = (folder.isEmpty ? "" : folder + "/") + temporaryPrefix + UUID().uuidString.lowercased()
        try put(temp, from: source)
        publishStep?()
        do {
            try move(temp, to: path, overwrite: false)
        } catch {
            try? delete(temp)
            throw error
        }
    }

    package func get(_ path: String, range: Range<Int64>?, into sink: ByteSink) throws {
        try validatePath(path)
        try withRetries(path) { retry in
            if retry { try sink.reset() }
            var request = HTTPRequest(method: "GET", url: url(path), sink: sink)
            if let range {
                guard !range.isEmpty else { return }
                request.headers.append("Range: bytes=\(range.lowerBound)-\(range.upperBound - 1)")
                request.range = range  // a server that ignores Range answers 200: the transfer trims it
            }
            let response = try send(request, path: path)
            try check(response, path: path, accepted: [200, 206])
        }
        knowExists(parentPath(path))
    }

    package func list(_ folder: String) throws -> [RemoteEntry] {
        try validatePath(folder, allowRoot: true)
        // No XML declaration: an XML document without one is UTF-8, and this one is ASCII.
        // Every sync lists `heads/`, so the 38 bytes it would take go up every time.
        let body = #"<propfind xmlns="DAV:"><prop><resourcetype/><getcontentlength/></prop></propfind>"#
        let folderURL = url(folder, folder: true)
        let items: [PropfindParser.Item] = try withRetries(folder) { _ in
            let sink = PropfindSink()
            let response = try send(HTTPRequest(method: "PROPFIND", url: folderURL,
                                                headers: ["Depth: 1", "Content-Type: application/xml"],
                                                body: DataSource(Data(body.utf8)), sink: sink,
                                                timeout: settings.listingTimeout), path: folder)
            try check(response, path: folder, accepted: [207])
            try Self.checkListing(sink, path: folder)
            return sink.parser.items
        }
        knowExists(folder)
        let own = Self.decodedPath(folderURL)
        var entries: [RemoteEntry] = []
        for item in items {
            let path = Self.decodedPath(item.href)
            let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
            if trimmed == (own.hasSuffix("/") ? String(own.dropLast()) : own) { continue }  // the folder itself
            guard let name = trimmed.split(separator: "/").last.map(String.init), !name.hasPrefix(temporaryPrefix) else { continue }
            // Only direct children of the folder we asked about count.
            guard parentPath(trimmed) == (own.hasSuffix("/") ? String(own.dropLast()) : own) else { continue }
            entries.append(RemoteEntry(name: name, isFolder: item.isCollection || path.hasSuffix("/"), size: item.isCollection ? nil : item.length))
        }
        return entries.sorted { $0.name < $1.name }
    }

    /// The percent-decoded path of an href, which servers give as a path or a full URL,
    /// in either hex case, sometimes with `+`.
    static func decodedPath(_ href: String) -> String {
        var path = href
        if let parts = URLComponents(string: href), parts.host != nil { path = parts.percentEncodedPath }
        return path.removingPercentEncoding ?? path
    }

    package func delete(_ path: String) throws {
        try validatePath(path)
        try withRetries(path) { retry in
            let response = try send(HTTPRequest(method: "DELETE", url: url(path)), path: path)
            // A retry after a lost answer may find the object already gone: that is success.
            if retry && response.status == 404 { return }
            try check(response, path: path, accepted: [200, 202, 204])
        }
    }

    package func move(_ from: String, to: String, overwrite: Bool) throws {
        try validatePath(from)
        try validatePath(to)
        try ensureFolder(parent(of: to))
        try withRetries(from) { retry in
            // An absolute Destination (Apache answers 400 to a bare path) and an explicit Overwrite.
            let response = try send(HTTPRequest(method: "MOVE", url: url(from),
                                                headers: ["Destination: " + url(to), "Overwrite: " + (overwrite ? "T" : "F")]),
                                    path: from)
            if response.status == 412 { throw RemoteError(.exists, path: to, status: 412, detail: "already exists") }
            // A retry after a lost answer finds the source gone: the first MOVE most likely
            // happened. Say "exists" and let the caller check what is at the destination.
            if retry && response.status == 404 { throw RemoteError(.exists, path: to, status: 404, detail: "already moved") }
            try checkDestination(response, path: from, destination: url(to))
            try check(response, path: from, accepted: [200, 201, 204])
        }
    }
}
