import Foundation
import QuireStore

/// Where a packed attachment's encrypted bytes are: one extent of a pack per part, in order.
/// Each part is a secretstream of its own whose associated data names the attachment, the
/// part and the number of parts, so parts cannot be swapped, dropped or reordered unseen.
package struct BlobLocation: Equatable, Sendable {
    package struct Extent: Equatable, Sendable {
        package var pack: String
        package var offset: Int64
        package var length: Int64
    }

    package var extents: [Extent]
    /// How many times the attachment moved: 0 where it was first uploaded, one more each time
    /// a device uploads it anew (its pack was collected) or a prune repacks it. Devices keep
    /// the location with the higher generation, the greater text between equals (see
    /// `Store.setRemoteBlobs`), so every device ends up with the same one whatever order it
    /// hears of them in, and a stale location never replaces a newer one.
    package var generation: Int = 0

    /// The most parts one attachment may have: 2 GiB in parts of 64 KiB, the smallest a
    /// server limit can make them, is 32,768.
    static let maxParts = 1 << 20

    init(extents: [Extent], generation: Int = 0) {
        self.extents = extents
        self.generation = generation
    }

    /// `[[pack, offset, length], ...]`, or `{"g": generation, "e": [...]}` once it moved
    /// (readers before generations refuse that form rather than misread it).
    var json: JSONValue {
        let list = JSONValue.array(extents.map { .array([.string($0.pack), .number(Double($0.offset)), .number(Double($0.length))]) })
        return generation == 0 ? list : .object(["g": .number(Double(generation)), "e": list])
    }

    var text: String { JSONWriter.value(json) }

    /// Parses a location from another device; nil for anything malformed (a pack path that is
    /// not one, a negative or fractional number, no extent or too many).
    init?(json: JSONValue) {
        var list = json, generation = 0
        if let o = json.object {
            guard o.count == 2, let g = o["g"]?.integer, g > 0, g < 1 << 30, let e = o["e"] else { return nil }
            (list, generation) = (e, g)
        }
        self.generation = generation
        guard let items = list.array, !items.isEmpty, items.count <= Self.maxParts else { return nil }
        var extents: [Extent] = []
        extents.reserveCapacity(items.count)
        for item in items {
            guard let a = item.array, a.count == 3, let pack = a[0].string, Pack.isValidPath(pack),
                  let offset = a[1].integer, let length = a[2].integer, offset >= 0, length > 0 else { return nil }
            extents.append(Extent(pack: pack, offset: Int64(offset), length: Int64(length)))
        }
        self.extents = extents
    }

    init?(text: String?) {
        guard let text, let value = try? JSONValue.parse(text) else { return nil }
        self.init(json: value)
    }

    /// The name a part's stream is bound to: the blob id alone when it is whole (the same as
    /// a format-1 blob object), `<id>#<part>/<parts>` for a part.
    static func streamName(_ remote: String, part: Int, of parts: Int) -> String {
        parts == 1 ? remote : "\(remote)#\(part)/\(parts)"
    }
}

/// An attachment as the repository knows it: its id (keyed hash of the plaintext) and, in
/// format 2, where its bytes are packed; without a location it is `blobs/<2 hex>/<id>`.
package struct RemoteBlob: Equatable, Sendable {
    package var id: String
    package var location: BlobLocation?

    package init(id: String, location: BlobLocation? = nil) {
        self.id = id
        self.location = location
    }

    /// The object a message names for it: the first pack, or the blob object.
    var object: String { location?.extents.first?.pack ?? Repository.blobPath(id) }
}

/// Pack objects: `packs/<device>/<32 hex>`, one folder per device so each device makes its
/// folder once, with random names written once, so no upload can replace another's object.
enum Pack {
    static let folder = "packs"

    static func newPath(device: String) -> String {
        folder + "/" + device + "/" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    static func isValidPath(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0] == "packs" && parts[1].count == 36
            && parts[1].utf8.allSatisfy { $0 == 45 || (48...57).contains($0) || (97...102).contains($0) }
            && parts[2].utf8.count == 32 && parts[2].utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
