/// An enum whose cases have names in Quire's own formats (the store, JSON lines, the CLI's
/// words), kept inside the package: an app switches on the cases and never sees the words,
/// so they are not a raw value it could come to rely on.
package protocol NamedCases: CaseIterable {
    /// The case's name in the store, the interchange format and the CLI.
    var name: String { get }
}

extension NamedCases {
    /// The case named `name`, or nil when none is.
    package init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }
}
