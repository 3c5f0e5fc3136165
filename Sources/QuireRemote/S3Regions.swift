import Synchronization

/// The region an S3 service said a remote's bucket is in, shared by every connection a
/// journal makes: the first that learns it (`S3Backend` follows the region an answer
/// names) spares the others the wrong request, and the next run starts there
/// (`RemoteSettings.learnedRegion`), as `AuthSchemes` does for WebDAV's scheme.
package final class S3Regions: Sendable {
    private struct State {
        var region: String?
        var news = false
    }

    private let state = Mutex(State())

    package init() {}

    /// Takes what an earlier run learned, unless this run has learned something since.
    package func remember(_ region: String?) {
        state.withLock { if !$0.news { $0.region = region } }
    }

    /// The region to sign for, when one was learned.
    var current: String? { state.withLock { $0.region } }

    func learn(_ region: String) {
        state.withLock { state in
            if state.region != region { state.news = true }
            state.region = region
        }
    }

    /// What to remember for the next run; nil when this run learned nothing new.
    package var toRemember: String? { state.withLock { $0.news ? $0.region : nil } }
}
