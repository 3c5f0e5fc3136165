import Foundation

/// The words Quire itself puts in a book ("Contents", "Voice note", the colophon), in one
/// language: the catalogue `messages/<language>.txt` carried in the binary, each key it lacks
/// taken from English. `{name}` in a text is filled in by `text(_:_:)`.
package struct BookWords: Sendable {
    /// The catalogue's language (`pt` for `pt-BR`), or "en" when Quire has none for it.
    package let language: String
    let texts: [String: String]

    /// The catalogues Quire carries: language → key → text.
    static let catalogues: [String: [String: String]] = {
        var all: [String: [String: String]] = [:]
        for (name, encoded) in EmbeddedMessages.base64 where name.hasSuffix(".txt") && !name.contains("/") {
            guard let data = Data(base64Encoded: encoded) else { continue }
            all[String(name.dropLast(4))] = parse(String(decoding: data, as: UTF8.self))
        }
        return all
    }()

    /// The languages with a catalogue of their own.
    package static var languages: [String] { catalogues.keys.sorted() }

    /// The words for a BCP 47 tag: its own catalogue (`pt-BR` → `pt`), else English.
    package init(for tag: String) {
        let base = String(tag.split(separator: "-").first ?? "").lowercased()
        language = Self.catalogues[base] == nil ? "en" : base
        texts = (Self.catalogues["en"] ?? [:]).merging(Self.catalogues[language] ?? [:]) { _, own in own }
    }

    /// The text of `key` with each `{name}` of `values` filled in; the key itself when no
    /// catalogue has it (a mistake a test catches, never a crash).
    package func text(_ key: String, _ values: [String: String] = [:]) -> String {
        var text = texts[key] ?? key
        for (name, value) in values { text = text.replacingOccurrences(of: "{" + name + "}", with: value) }
        return text
    }

    /// Every key and its text, for templates (`{{words.contents}}`).
    var all: [String: String] { texts }

    /// `key = text` lines; `#` starts a comment line.
    static func parse(_ source: String) -> [String: String] {
        var texts: [String: String] = [:]
        for line in source.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let text = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if !key.isEmpty { texts[key] = text }
        }
        return texts
    }
}
