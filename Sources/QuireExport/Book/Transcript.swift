import Foundation

/// Transcript text as both exports print it.
enum Transcript {
    /// A transcript's paragraphs: split at blank lines, lines inside a paragraph joined.
    static func paragraphs(_ text: String) -> [String] {
        var result: [String] = []
        var current: [Substring] = []
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty {
                if !current.isEmpty { result.append(current.joined(separator: " ")); current = [] }
            } else {
                current.append(Substring(trimmed))
            }
        }
        if !current.isEmpty { result.append(current.joined(separator: " ")) }
        return result
    }
}
