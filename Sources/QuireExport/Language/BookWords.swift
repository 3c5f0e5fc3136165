import Foundation

/// The words Quire itself puts in a book ("Contents", "Voice note", the colophon), in one
/// language: the catalogue `messages/<language>.txt` carried in the binary, each key it lacks
/// taken from English. `{name}` in a text is filled in by `text(_:_:)`.
package struct BookWords: Sendable {
    /// The catalogue's language (`pt` for `pt-BR`, `zh-Hant` for `zh-TW`), or "en" when
    /// Quire has none for it.
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

    /// The words for a BCP 47 tag: its own catalogue (`pt-BR` → `pt`, `no` → `nb`), else English. Chinese
    /// is written in traditional characters (`zh-Hant`) where the tag says so or names Taiwan,
    /// Hong Kong or Macao, else in simplified ones (`zh`).
    package init(for tag: String) {
        let subtags = tag.split(separator: "-").map { $0.lowercased() }
        var base = subtags.first ?? ""
        if base == "zh", subtags.dropFirst().contains(where: { ["hant", "tw", "hk", "mo"].contains($0) }),
           !subtags.contains("hans") {
            base = "zh-Hant"
        }
        if base == "no" || base == "nn" { base = "nb" }  // Norwegian is read in Bokmål's words
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

    /// The text of `key` for `count` things, in the plural form the language gives that
    /// number (`key.one`, `key.few`, … `key.other`, as CLDR names them), `{count}` filled
    /// in with `formatted` (the number in the book's digits): "1 entry", "21 запись",
    /// "5 записей".
    package func text(_ key: String, count: Int, formatted: String) -> String {
        let form = texts[key + "." + Self.pluralCategory(count, language: language)] ?? texts[key + ".other"] ?? texts[key] ?? key
        return form.replacingOccurrences(of: "{count}", with: formatted)
    }

    /// The plural categories a catalogue's language has for whole numbers.
    package static func pluralCategories(language: String) -> Set<String> {
        Set((0...1_000).map { pluralCategory($0, language: language) })
    }

    /// CLDR's plural category of a whole number (the integer rules of CLDR 42's
    /// plurals.xml for the languages Quire has catalogues for; a language it lacks counts as
    /// English does).
    package static func pluralCategory(_ n: Int, language: String) -> String {
        let n = abs(n), tens = n % 100, units = n % 10
        switch language {
        case "ja", "zh", "zh-Hant", "ko", "vi", "id": return "other"
        case "hi", "fa": return n <= 1 ? "one" : "other"  // CLDR: i = 0 or n = 1
        case "fr", "pt": return n <= 1 ? "one" : "other"
        case "ru", "uk":
            if units == 1 && tens != 11 { return "one" }
            if (2...4).contains(units) && !(12...14).contains(tens) { return "few" }
            return "many"
        case "ar":
            switch n {
            case 0: return "zero"
            case 1: return "one"
            case 2: return "two"
            default: return (3...10).contains(tens) ? "few" : (11...99).contains(tens) ? "many" : "other"
            }
        case "he": return n == 1 ? "one" : n == 2 ? "two" : "other"
        case "pl":  // CLDR: 1 alone is one (21 is many), as few takes 2–4 but not 12–14
            if n == 1 { return "one" }
            return (2...4).contains(units) && !(12...14).contains(tens) ? "few" : "many"
        default: return n == 1 ? "one" : "other"
        }
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
