/// The one error type of the Import layer: the file, where in it (an entry, a line), and
/// what is wrong. Never entry text beyond the few characters that locate it.
public struct ImportError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public var place: String?
    public var detail: String

    package init(path: String, place: String? = nil, detail: String) {
        self.path = path
        self.place = place
        self.detail = detail
    }

    public var description: String {
        [path, place, detail].compactMap { $0 }.joined(separator: ": ")
    }
}
