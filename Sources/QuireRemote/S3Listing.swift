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

/// What an S3 error body (`<Error>…</Error>`) says: its `<Code>` and `<Message>`, and
/// where a server that keeps the bucket elsewhere says it is (AWS: `<Region>` with
/// `AuthorizationHeaderMalformed`, `<Endpoint>` with `PermanentRedirect`).
final class S3ErrorParser: XMLStream.Reader {
    struct Failure {
        var code = ""
        var message = ""
        var region = ""
        var endpoint = ""
    }

    private var failure = Failure()
    private static let fields: Set<String> = ["Code", "Message", "Region", "Endpoint"]

    /// Reads `body`; nil when it is not an S3 error document.
    static func read(_ body: Data) -> Failure? {
        let parser = S3ErrorParser()
        guard XMLStream.read(body, into: parser), !parser.failure.code.isEmpty else { return nil }
        return parser.failure
    }

    func start(_ local: String, namespace: String, depth: Int) -> Bool { depth == 1 && Self.fields.contains(local) }

    func end(_ local: String, namespace: String, text: String) {
        switch local {
        case "Code": failure.code = text
        case "Message": failure.message = text
        case "Region": failure.region = text
        case "Endpoint": failure.endpoint = text
        default: break
        }
    }
}
