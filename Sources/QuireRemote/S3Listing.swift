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

/// A bucket's `VersioningConfiguration`: its `<Status>`, which is absent while versioning
/// was never on, else `Enabled` or `Suspended`.
final class S3VersioningParser: XMLStream.Reader {
    private var isConfiguration = false
    private var status: String?

    /// The status `body` says ("" for none); nil when it is no versioning configuration or
    /// says something else.
    static func read(_ body: Data) -> String? {
        let parser = S3VersioningParser()
        guard XMLStream.read(body, into: parser), parser.isConfiguration else { return nil }
        return parser.status
    }

    func start(_ local: String, namespace: String, depth: Int) -> Bool {
        if depth == 0 {
            isConfiguration = local == "VersioningConfiguration"
            status = ""
        }
        return depth == 1 && local == "Status"
    }

    func end(_ local: String, namespace: String, text: String) {
        guard local == "Status", status == "" else { return }
        let said = text.trimmingCharacters(in: .whitespaces)
        status = ["Enabled", "Suspended"].contains(said) ? said : nil
    }
}

/// One version of an object in a bucket that keeps them, or a delete marker (what a DELETE
/// leaves there: the key then reads as missing, its versions stay).
package struct S3ObjectVersion: Equatable, Sendable {
    package var key = "", id = ""
    package var isLatest = false, isDeleteMarker = false
}

/// One page of a ListObjectVersions answer (`ListVersionsResult`): each version and delete
/// marker with its key, id and whether it is the key's latest, and where the next page
/// starts when the answer is cut.
final class S3VersionsParser: XMLStream.Reader {
    private(set) var versions: [S3ObjectVersion] = []
    private(set) var isTruncated = false
    private(set) var nextKey = "", nextVersion = ""
    private var isListing = false
    private var version: S3ObjectVersion?

    /// Reads `body`; nil when it is no version listing.
    static func read(_ body: Data) -> S3VersionsParser? {
        let parser = S3VersionsParser()
        guard XMLStream.read(body, into: parser), parser.isListing else { return nil }
        return parser
    }

    func start(_ local: String, namespace: String, depth: Int) -> Bool {
        if depth == 0 { isListing = local == "ListVersionsResult"; return false }
        switch (depth, local) {
        case (1, "Version"), (1, "DeleteMarker"): version = S3ObjectVersion(isDeleteMarker: local == "DeleteMarker")
        case (1, "IsTruncated"), (1, "NextKeyMarker"), (1, "NextVersionIdMarker"): return true
        case (2, "Key"), (2, "VersionId"), (2, "IsLatest"): return version != nil
        default: break
        }
        return false
    }

    func end(_ local: String, namespace: String, text: String) {
        switch local {
        case "IsTruncated" where version == nil: isTruncated = text.trimmingCharacters(in: .whitespaces) == "true"
        case "NextKeyMarker": nextKey = text
        case "NextVersionIdMarker": nextVersion = text
        case "Key": version?.key = text
        case "VersionId": version?.id = text
        case "IsLatest": version?.isLatest = text.trimmingCharacters(in: .whitespaces) == "true"
        case "Version", "DeleteMarker":
            if let version, !version.key.isEmpty, !version.id.isEmpty { versions.append(version) }
            version = nil
        default: break
        }
    }
}
