/// A note's first line `# Title` taken as the entry's title, the way Day One and Obsidian
/// users title their notes; the rest is the body.
enum TitleLine {
    static func split(_ text: String) -> (title: String, body: String) {
        guard text.hasPrefix("# ") else { return ("", text) }
        let line = text.prefix { $0 != "\n" }
        let title = line.dropFirst(2).trimmingCharacters(in: .whitespaces)
        var body = text.dropFirst(line.count)
        while body.first == "\n" { body = body.dropFirst() }
        return (title, String(body))
    }
}
