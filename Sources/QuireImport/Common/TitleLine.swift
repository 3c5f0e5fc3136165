/// A note's first line `# Title` taken as the entry's title, the way Day One and Obsidian
/// users title their notes; the rest is the body. Read scalar by scalar: a title that begins
/// with a combining mark makes one `Character` of it and the space after `#`.
enum TitleLine {
    static func split(_ text: String) -> (title: String, body: String) {
        let scalars = text.unicodeScalars
        guard scalars.starts(with: "# ".unicodeScalars) else { return ("", text) }
        let end = scalars.firstIndex(of: "\n") ?? scalars.endIndex
        let title = String(Substring(scalars[scalars.index(scalars.startIndex, offsetBy: 2)..<end])).trimmingCharacters(in: .whitespaces)
        var body = scalars[end...]
        while body.first == "\n" { body = body.dropFirst() }
        return (title, String(Substring(body)))
    }
}
