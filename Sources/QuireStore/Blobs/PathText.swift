/// Path arithmetic on strings. Foundation's `NSString.deletingLastPathComponent` traps on a
/// one-character path ("a") on Linux (swift-corelibs-foundation, Swift 6.3), and user input
/// can be exactly that, so the store does its own.
package enum PathText {
    /// Everything before the last "/" ("" for a bare name, "/" for a name in the root).
    package static func parent(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}
