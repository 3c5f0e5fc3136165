import CXML2
import Foundation

/// An XML document parsed as a stream with libxml2's SAX push parser: bytes are fed as they
/// arrive and the reader keeps only what it wants, so a 100k-object listing never sits in
/// memory as a document. Nothing is fetched from the network (no external DTDs or
/// entities). The only file that talks to libxml2; a reader (`PropfindParser`,
/// `S3ListParser`) hears elements by namespace and local name, and the text of those it asks
/// to capture, each bounded.
final class XMLStream {
    /// What a reader of the stream hears.
    protocol Reader: AnyObject {
        /// An element begins; return true to capture its text (delivered to `end`).
        func start(_ local: String, namespace: String, depth: Int) -> Bool
        func end(_ local: String, namespace: String, text: String)
    }

    /// No element text a reader captures may be longer than this.
    let maxTextBytes: Int
    private weak var reader: Reader?
    private var context: xmlParserCtxtPtr?
    private(set) var failed = false
    /// Why the document was refused beyond "not valid XML", for the error message.
    private(set) var refusal: String?
    private var depth = 0
    private var text = ""
    private var capture = false

    init(reader: Reader, maxTextBytes: Int = 8 << 10) {
        self.reader = reader
        self.maxTextBytes = maxTextBytes
        var sax = xmlSAXHandler()
        sax.initialized = UInt32(XML_SAX2_MAGIC)
        sax.startElementNs = { ctx, localname, _, uri, _, _, _, _, _ in
            stream(ctx)?.start(name(localname), namespace: name(uri))
        }
        sax.endElementNs = { ctx, localname, _, uri in
            stream(ctx)?.end(name(localname), namespace: name(uri))
        }
        sax.characters = { ctx, chars, length in
            guard let s = stream(ctx), s.capture, let chars else { return }
            guard s.text.utf8.count + Int(length) <= s.maxTextBytes else {
                s.refuse("an element's text longer than \(s.maxTextBytes) bytes")
                return
            }
            s.text += String(decoding: UnsafeBufferPointer(start: chars, count: Int(length)), as: UTF8.self)
        }
        // Structured errors land here instead of on stderr; parse failure is seen by its return code.
        sax.serror = { _, _ in }
        sax.warning = nil
        context = xmlCreatePushParserCtxt(&sax, nil, nil, 0, nil)
        if let context {
            context.pointee._private = Unmanaged.passUnretained(self).toOpaque()
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

    /// Feeds the next bytes; false once the document is malformed or refused.
    @discardableResult
    func feed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !failed, let context else { return false }
        let rc = bytes.withMemoryRebound(to: CChar.self) { xmlParseChunk(context, $0.baseAddress, Int32($0.count), 0) }
        if rc != 0 { failed = true }
        return !failed
    }

    /// Ends the document; false when it was malformed, incomplete or refused.
    func finish() -> Bool {
        guard !failed, let context else { return false }
        if xmlParseChunk(context, nil, 0, 1) != 0 || context.pointee.wellFormed == 0 { failed = true }
        return !failed
    }

    /// Stops the parse: the document is refused with `reason`.
    func refuse(_ reason: String) {
        if refusal == nil { refusal = reason }
        failed = true
        capture = false
        if let context { xmlStopParser(context) }
    }

    fileprivate func start(_ local: String, namespace: String) {
        capture = reader?.start(local, namespace: namespace, depth: depth) ?? false
        depth += 1
        text = ""
    }

    fileprivate func end(_ local: String, namespace: String) {
        depth -= 1
        reader?.end(local, namespace: namespace, text: capture ? text : "")
        capture = false
        text = ""
    }

    /// A whole small document (an S3 error body) read at once; false when malformed.
    static func read(_ data: Data, into reader: Reader) -> Bool {
        let stream = XMLStream(reader: reader)
        return data.withUnsafeBytes { stream.feed($0) } && stream.finish()
    }
}

private func stream(_ ctx: UnsafeMutableRawPointer?) -> XMLStream? {
    guard let ctx else { return nil }
    let context = ctx.assumingMemoryBound(to: xmlParserCtxt.self)
    guard let me = context.pointee._private else { return nil }
    return Unmanaged<XMLStream>.fromOpaque(me).takeUnretainedValue()
}

private func name(_ p: UnsafePointer<xmlChar>?) -> String {
    p.map { String(cString: $0) } ?? ""
}
