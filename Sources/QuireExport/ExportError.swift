/// The one error type of the Export layer: what went wrong and, where it helps, the file
/// (a template, the output, a cover image). Never entry text.
public struct ExportError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A template cannot be read, parsed, or does not render to well-formed XML.
        case template
        /// An option's value cannot be used (a cover that is not an image, a missing folder).
        case invalid
        /// Writing the output failed.
        case io
    }

    public let kind: Kind
    public var path: String?
    public var detail: String

    public init(_ kind: Kind, path: String? = nil, detail: String) {
        self.kind = kind
        self.path = path
        self.detail = detail
    }

    public var description: String {
        guard let path else { return detail }
        return "\(path): \(detail)"
    }
}
