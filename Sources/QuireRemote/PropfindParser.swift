import Foundation

/// Reads a PROPFIND (Depth: 1) multistatus answer as a stream (`XMLStream`): only the
/// entries are kept, so a 100k-object listing never sits in memory as a document.
final class PropfindParser: XMLStream.Reader {
    struct Item {
        var href: String
        var isCollection: Bool
        var length: Int64?
    }

    /// A hostile server must not make a listing cost unbounded memory: no real href is longer
    /// than this, and no folder of a repository holds more entries (a 100k-object folder is
    /// the largest one measured).
    static let maxTextBytes = 8 << 10
    static let maxItems = 2_000_000

    private(set) var items: [Item] = []
    private lazy var stream = XMLStream(reader: self, maxTextBytes: Self.maxTextBytes)
    /// Why the listing was refused beyond "not valid XML", for the error message.
    var refusal: String? { stream.refusal }
    /// The document's root must be DAV:multistatus.
    private var rootIsMultistatus = false

    // The response being read.
    private var inResponse = false
    private var href = ""
    private var isCollection = false
    private var length: Int64?

    init() {}

    /// Feeds the next bytes; false once the document is malformed.
    @discardableResult
    func feed(_ bytes: UnsafeRawBufferPointer) -> Bool { stream.feed(bytes) }

    /// Ends the document; false when it was malformed or incomplete, or (with a `refusal`)
    /// a whole document that is not a DAV:multistatus.
    func finish() -> Bool {
        guard stream.finish() else { return false }
        if !rootIsMultistatus {
            stream.refuse("a root element other than DAV:multistatus")
            return false
        }
        return true
    }

    private static let dav = "DAV:"

    func start(_ local: String, namespace: String, depth: Int) -> Bool {
        if depth == 0 { rootIsMultistatus = namespace == Self.dav && local == "multistatus" }
        guard namespace == Self.dav else { return false }
        switch local {
        case "response":
            inResponse = true
            href = ""
            isCollection = false
            length = nil
        case "href", "getcontentlength":
            return inResponse
        case "collection":
            if inResponse { isCollection = true }
        default:
            break
        }
        return false
    }

    func end(_ local: String, namespace: String, text: String) {
        guard namespace == Self.dav else { return }
        switch local {
        case "href":
            if inResponse && href.isEmpty { href = text.trimmingCharacters(in: .whitespacesAndNewlines) }
        case "getcontentlength":
            length = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines))
        case "response":
            if !href.isEmpty { items.append(Item(href: href, isCollection: isCollection, length: length)) }
            if items.count > Self.maxItems { stream.refuse("more than \(Self.maxItems) entries in one folder") }
            inResponse = false
        default:
            break
        }
    }
}

/// Feeds a PROPFIND response body into the parser as it downloads.
final class PropfindSink: ByteSink {
    let parser = PropfindParser()
    private var ok = true
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        if ok { ok = parser.feed(bytes) }
    }
    func reset() throws {
        throw RemoteError(.protocolError, detail: "a listing cannot be resumed")
    }
    var succeeded: Bool { ok && parser.finish() }
}
