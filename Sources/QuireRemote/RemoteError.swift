/// The Remote layer's one error type. Callers branch on `kind` (`isTransient`,
/// `.notFound`, `.exists`), never on message text; nothing here carries a password.
public struct RemoteError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        case notFound
        /// A create-only write found the name taken.
        case exists
        /// 401: missing or wrong credentials.
        case unauthorized
        /// 403: the server refuses.
        case forbidden
        /// 507: the server is out of space.
        case insufficientStorage
        /// 413: the request body is larger than the server accepts.
        case tooLarge
        /// 423, 429, 5xx, timeouts and dropped connections, after retries ran out.
        case transient
        /// The server took the connection and then said nothing (a wrong port, a hung server).
        case noAnswer
        /// Nothing listens at the address: the connection was refused.
        case refused
        /// The server answered something we cannot use (bad XML, unexpected status).
        case protocolError
        /// TLS, DNS, refused connection: the server cannot be reached.
        case unreachable
        /// A local file could not be read or written.
        case localIO
        /// A path or URL that is not acceptable.
        case invalid
    }

    public let kind: Kind
    /// The remote object's path, if any.
    public var path: String?
    /// The HTTP status, if one was received.
    public var status: Int?
    public var detail: String
    /// The repository's URL (without credentials), where the library knows it: an error then
    /// names the place a person typed, not a bare path inside it.
    public var location: String?
    /// The detail already says what to do (set the clock right, give another region): no
    /// general advice for the kind goes after it.
    package var advises = false

    package init(_ kind: Kind, path: String? = nil, status: Int? = nil, detail: String, advises: Bool = false) {
        self.kind = kind
        self.path = path
        self.status = status
        self.detail = detail
        self.advises = advises
    }

    /// Worth asking again: the server may answer next time.
    package var isTransient: Bool { kind == .transient || kind == .noAnswer || kind == .refused }

    public var description: String {
        var text = path.map { $0.isEmpty ? "/" : $0 } ?? ""
        if let location, let path {
            text = path.isEmpty ? location : location.hasSuffix("/") ? location + path : location + "/" + path
        }
        if !text.isEmpty { text += ": " }
        if let status { text += "HTTP \(status): " }
        return text + detail
    }
}
