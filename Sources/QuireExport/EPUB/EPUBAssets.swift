import QuireStore

/// The attachment files a book carries, each once however many entries show it, named by
/// the blob they come from (so the same journal always gives the same names).
struct EPUBAssets {
    struct Asset {
        /// Manifest id (`img-…`, `audio-…`).
        let id: String
        /// Path inside the package folder (`media/….jpg`).
        let href: String
        let mediaType: String
        /// Where the bytes are, in the store.
        let source: String
        let isAudio: Bool
    }

    private(set) var assets: [Asset] = []
    private var byBlob: [String: Int] = [:]
    private var formats: [String: MediaFormat] = [:]

    /// The sniffed format of a media record's blob (cached per blob).
    mutating func format(of media: Media, store: Store) -> MediaFormat {
        if let known = formats[media.blobID] { return known }
        let format = MediaFormat.detect(path: store.blobs.path(for: media.blobID), declaredMime: media.mime)
        formats[media.blobID] = format
        return format
    }

    /// The asset for `media`, added on first use.
    mutating func asset(for media: Media, format: MediaFormat, store: Store) -> Asset {
        if let index = byBlob[media.blobID] { return assets[index] }
        let isAudio = format.mediaType.hasPrefix("audio/")
        let stem = String(media.blobID.prefix(24))
        let asset = Asset(id: (isAudio ? "audio-" : "img-") + stem, href: "media/" + stem + "." + format.fileExtension,
                          mediaType: format.mediaType, source: store.blobs.path(for: media.blobID), isAudio: isAudio)
        byBlob[media.blobID] = assets.count
        assets.append(asset)
        return asset
    }
}
