import CXML2
import Foundation

/// Parses a PROPFIND (Depth: 1) multistatus answer as a stream with libxml2's SAX push parser:
/// bytes are fed as they arrive and only the entries are kept, so a 100k-object listing never
/// sits in memory as a document. The only file that talks to libxml2.
final class PropfindParser {
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
    private var context: xmlParserCtxtPtr?
    private var failed = false
    /// Why the listing was refused beyond "not valid XML", for the error message.
    private(set) var refusal: String?
    /// The document's root must be DAV:multistatus.
    private var depth = 0
    private var rootIsMultistatus = false

    // The response being read.
    private var inResponse = false
    private var href = ""
    private var isCollection = false
    private var length: Int64?
    private var text = ""
    private var capture = false

    init() {
        var sax = xmlSAXHandler()
        sax.initialized = UInt32(XML_SAX2_MAGIC)
        sax.startElementNs = { ctx, localname, _, uri, _, _, _, _, _ in
            parser(ctx)?.start(name(localname), namespace: name(uri))
        }
        sax.endElementNs = { ctx, localname, _, uri in
            parser(ctx)?.end(name(localname), namespace: name(uri))
        }
        sax.characters = { ctx, chars, length in
            guard let p = parser(ctx), p.capture, let chars else { return }
            guard p.text.utf8.count + Int(length) <= PropfindParser.maxTextBytes else {
                p.refuse("an href or size longer than \(PropfindParser.maxTextBytes) bytes")
                return
            }
            p.text += String(decoding: UnsafeBufferPointer(start: chars, count: Int(length)), as: UTF8.self)
        }
        // Structured errors land here instead of on stderr; parse failure is seen by its return code.
        sax.serror = { _, _ in }
        sax.warning = nil
        context = xmlCreatePushParserCtxt(&sax, nil, nil, 0, nil)
        if let context {
            context.pointee._private = Unmanaged.passUnretained(self).toOpaque()
            // Never fetch anything from the network (no external DTDs or entities).
            xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOWARNING.rawValue | XML_PARSE_NOERROR.rawValue))
        } else {
            failed = true
        }
    }

    deinit {
        if let context {
            if let doc = context.pointee.myDoc { xmlFreeDoc(doc) }
            xmlFreeParserCtxt(context)
        }
    }

    /// Feeds the next bytes; false once the document is malformed.
    @discardableResult
    func feed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !failed, let context else { return false }
        let rc = bytes.withMemoryRebound(to: CChar.self) { xmlParseChunk(context, $0.baseAddress, Int32($0.count), 0) }
        if rc != 0 { failed = true }
        return !failed
    }

    /// Ends the document; false when it was malformed or incomplete, or (with a `refusal`)
    /// a whole document that is not a DAV:multistatus.
    func finish() -> Bool {
        guard !failed, let context else { return false }
        if xmlParseChunk(context, nil, 0, 1) != 0 || context.pointee.wellFormed == 0 {
            failed = true
        } else if !rootIsMultistatus {
            refuse("a root element other than DAV:multistatus")
        }
        return !failed
    }

    private static let dav = "DAV:"

    /// Stops the parse: the listing is refused with `reason`.
    fileprivate func refuse(_ reason: String) {
        if refusal == nil { refusal = reason }
        failed = true
        capture = false
        if let context { xmlStopParser(context) }
    }

    fileprivate func start(_ local: String, namespace: String) {
        if depth == 0 { rootIsMultistatus = namespace == Self.dav && local == "multistatus" }
        depth += 1
        guard namespace == Self.dav else { return }
        switch local {
        case "response":
            inResponse = true
            href = ""
            isCollection = false
            length = nil
        case "href", "getcontentlength":
            capture = inResponse
            text = ""
        case "collection":
            if inResponse { isCollection = true }
        default:
            break
        }
    }

    fileprivate func end(_ local: String, namespace: String) {
        depth -= 1
        guard namespace == Self.dav else { return }
        switch local {
        case "href":
            if inResponse && href.isEmpty { href = text.trimmingCharacters(in: .whitespacesAndNewlines) }
            capture = false
        case "getcontentlength":
            length = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines))
            capture = false
        case "response":
            if !href.isEmpty { items.append(Item(href: href, isCollection: isCollection, length: length)) }
            if items.count > Self.maxItems { refuse("more than \(Self.maxItems) entries in one folder") }
            inResponse = false
        default:
            break
        }
    }
}

private func parser(_ ctx: UnsafeMutableRawPointer?) -> PropfindParser? {
    guard let ctx else { return nil }
    let context = ctx.assumingMemoryBound(to: xmlParserCtxt.self)
    guard let me = context.pointee._private else { return nil }
    return Unmanaged<PropfindParser>.fromOpaque(me).takeUnretainedValue()
}

private func name(_ p: UnsafePointer<xmlChar>?) -> String {
    p.map { String(cString: $0) } ?? ""
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
