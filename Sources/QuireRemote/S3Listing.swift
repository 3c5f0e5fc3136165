import Foundation

/// One page of a ListObjectsV2 answer (`ListBucketResult`), read as a stream: the keys with
/// their sizes, the common prefixes (the "folders" under a delimiter), and the token of the
/// next page when the answer is cut there. Sizes are only ever shown or compared; an ETag
/// is never read (a multipart ETag is no MD5).
final class S3ListParser: XMLStream.Reader {
    struct Object {
        var key: String
        var size: Int64?
    }

    private(set) var objects: [Object] = []
    private(set) var prefixes: [String] = []
    private(set) var isTruncated = false
    private(set) var nextToken: String?
    private var rootIsListing = false
    private var inContents = false, inPrefixes = false
    private var key = "", size: Int64?
    private lazy var stream = XMLStream(reader: self, maxTextBytes: 8 << 10)

    /// No page holds more than this (S3 gives at most 1,000).
    static let maxObjectsPerPage = 100_000

    var refusal: String? { stream.refusal }

    @discardableResult
    func feed(_ bytes: UnsafeRawBufferPointer) -> Bool { stream.feed(bytes) }

    func finish() -> Bool {
        guard stream.finish() else { return false }
        guard rootIsListing else {
            stream.refuse("a root element other than ListBucketResult")
            return false
        }
        return true
    }

    func start(_ local: String, namespace: String, depth: Int) -> Bool {
        if depth == 0 { rootIsListing = local == "ListBucketResult"; return false }
        switch (depth, local) {
        case (1, "Contents"): inContents = true; key = ""; size = nil
        case (1, "CommonPrefixes"): inPrefixes = true
        case (1, "IsTruncated"), (1, "NextContinuationToken"): return true
        case (2, "Key"), (2, "Size"): return inContents
        case (2, "Prefix"): return inPrefixes
        default: break
        }
        return false
    }

    func end(_ local: String, namespace: String, text: String) {
        switch local {
        case "IsTruncated" where !inContents: isTruncated = text.trimmingCharacters(in: .whitespaces) == "true"
        case "NextContinuationToken": nextToken = text
        case "Key" where inContents: key = text
        case "Size" where inContents: size = Int64(text.trimmingCharacters(in: .whitespaces))
        case "Prefix" where inPrefixes: prefixes.append(text)
        case "Contents":
            if !key.isEmpty { objects.append(Object(key: key, size: size)) }
            inContents = false
            if objects.count > Self.maxObjectsPerPage { stream.refuse("more than \(Self.maxObjectsPerPage) keys in one page") }
        case "CommonPrefixes": inPrefixes = false
        default: break
        }
    }
}

/// Feeds a listing's body into its parser as it downloads.
final class S3ListSink: ByteSink {
    let parser = S3ListParser()
    private var ok = true
    func write(_ bytes: UnsafeRawBufferPointer) throws { if ok { ok = parser.feed(bytes) } }
    func reset() throws { throw RemoteError(.protocolError, detail: "a listing cannot be resumed") }
    var succeeded: Bool { ok && parser.finish() }
}

/// The `<Code>` and `<Message>` of an S3 error body (`<Error>…</Error>`).
final class S3ErrorParser: XMLStream.Reader {
    private(set) var code = ""
    private(set) var message = ""

    /// Reads `body`; nil when it is not an S3 error document.
    static func read(_ body: Data) -> (code: String, message: String)? {
        let parser = S3ErrorParser()
        guard XMLStream.read(body, into: parser), !parser.code.isEmpty else { return nil }
        return (parser.code, parser.message)
    }

    func start(_ local: String, namespace: String, depth: Int) -> Bool { depth == 1 && (local == "Code" || local == "Message") }

    func end(_ local: String, namespace: String, text: String) {
        if local == "Code" { code = text }
        if local == "Message" { message = text }
    }
}
