import Foundation

/// The language a book speaks around its entries: its month names and dates, its own words,
/// its direction. Asked for (`--lang ru`), or else the language most of its entries are
/// written in, where their text tells it (`TextLanguage`): more than half of the entries whose
/// language shows, when those are at least half of the book. Else the locale of the
/// environment (`LC_ALL`, `LC_MESSAGES`, `LANG`, the first one set), else English.
package struct BookLanguage: Sendable {
    /// How the language was chosen.
    package enum Source: String, Sendable {
        case requested, entries, environment, fallback
    }

    /// A BCP 47 tag (`ru`, `pt-BR`, `ar-u-nu-arab`).
    package let code: String
    /// "rtl" for a right-to-left book (Arabic, Hebrew, Persian, Urdu…), else "ltr".
    package let direction: String
    package let source: Source
    package let words: BookWords
    package let dates: BookDates

    package var isRightToLeft: Bool { direction == "rtl" }
    /// The language subtag alone: `pt` of `pt-BR`.
    package var base: String { String(code.prefix { $0 != "-" }) }

    /// The language `tag` names.
    /// - Throws: `LanguageError` when `tag` is not a BCP 47 tag, or names a language CLDR has
    ///   no names and dates for.
    package init(tag: String, source: Source = .requested) throws {
        guard let code = Self.canonical(tag) else { throw LanguageError(tag: tag, problem: .malformed) }
        let base = String(code.split(separator: "-")[0])
        // A language told from the entries is one CLDR has; listing CLDR's (3 MB of ICU data
        // read) is only worth it for a tag from outside.
        guard source == .entries || Self.knownLanguages.contains(base) else { throw LanguageError(tag: tag, problem: .unknown) }
        self.code = code
        self.source = source
        let language = Locale.Language(identifier: code)
        direction = language.characterDirection == .rightToLeft ? "rtl" : "ltr"
        words = BookWords(for: code)
        dates = BookDates(locale: Self.gregorianLocale(code))
    }

    /// The locale of `code` with the Gregorian calendar as its own: ICU then formats dates
    /// the same way through every API (with ar-SA's Islamic calendar as the locale's, one
    /// adds an era to Gregorian years and another does not).
    static func gregorianLocale(_ code: String) -> Locale {
        var components = Locale.Components(locale: Locale(identifier: code))
        components.calendar = .gregorian
        return Locale(components: components)
    }

    /// The book's language: `requested`, else what the entries say, else the environment's, else English.
    /// - Parameters:
    ///   - votes: how many entries show each language.
    ///   - entries: how many entries the book holds.
    /// - Throws: `LanguageError` for a `requested` tag that is not one.
    package static func choose(requested: String?, votes: [String: Int], entries: Int,
                              environment: [String: String] = ProcessInfo.processInfo.environment) throws -> BookLanguage {
        if let requested { return try BookLanguage(tag: requested) }
        if let told = told(votes: votes, entries: entries), let language = try? BookLanguage(tag: told, source: .entries) {
            return language
        }
        if let tag = localeTag(environment), let language = try? BookLanguage(tag: tag, source: .environment) { return language }
        return BookLanguage(english: ())
    }

    /// The language of more than half of the entries whose language shows, when those are
    /// at least half of all `entries`.
    static func told(votes: [String: Int], entries: Int) -> String? {
        let shown = votes.values.reduce(0, +)
        guard shown * 2 >= entries, shown > 0 else { return nil }
        let top = votes.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }
        return top.flatMap { $0.value * 2 > shown ? $0.key : nil }
    }

    /// `ru-RU` from `LC_ALL=ru_RU.UTF-8` (or `LC_MESSAGES`, or `LANG`: the first one set);
    /// nil for the C and POSIX locales.
    static func localeTag(_ environment: [String: String]) -> String? {
        guard let value = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) else {
            return nil
        }
        let name = value.split(whereSeparator: { $0 == "." || $0 == "@" }).first.map(String.init) ?? ""
        guard name != "C", name != "POSIX", !name.isEmpty else { return nil }
        return canonical(name.replacingOccurrences(of: "_", with: "-"))
    }

    /// The languages CLDR names months and weekdays in (`ru`, `pt`, `yue`…).
    static let knownLanguages: Set<String> = Set(Locale.availableIdentifiers.map {
        String($0.split(whereSeparator: { $0 == "_" || $0 == "-" }).first ?? "").lowercased()
    })

    /// `pt-BR` from `pt-br` or `pt_BR`; nil when `tag` is not a well-formed BCP 47 tag
    /// (language, then optional script, region, variants and extensions such as `-u-nu-arab`).
    static func canonical(_ tag: String) -> String? {
        let parts = tag.replacingOccurrences(of: "_", with: "-").split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        func letters(_ s: String) -> Bool { s.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) } }
        func alphanumeric(_ s: String) -> Bool { s.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) } }
        guard let language = parts.first, (2...3).contains(language.count), letters(language) else { return nil }
        var out = [language.lowercased()]
        var index = 1
        if index < parts.count, parts[index].count == 4, letters(parts[index]) {
            out.append(parts[index].prefix(1).uppercased() + parts[index].dropFirst().lowercased())
            index += 1
        }
        if index < parts.count, (parts[index].count == 2 && letters(parts[index])) || (parts[index].count == 3 && parts[index].allSatisfy(\.isNumber)) {
            out.append(parts[index].uppercased())
            index += 1
        }
        while index < parts.count, parts[index].count >= 4, parts[index].count <= 8, alphanumeric(parts[index]),
              parts[index].count >= 5 || parts[index].first?.isNumber == true {
            out.append(parts[index].lowercased())
            index += 1
        }
        while index < parts.count {
            let singleton = parts[index]
            guard singleton.count == 1, alphanumeric(singleton) else { return nil }
            index += 1
            var values = 0
            let shortest = singleton.lowercased() == "x" ? 1 : 2  // private use takes any length
            while index < parts.count, parts[index].count >= shortest, parts[index].count <= 8, alphanumeric(parts[index]) {
                out.append(values == 0 ? singleton.lowercased() + "-" + parts[index].lowercased() : parts[index].lowercased())
                values += 1
                index += 1
            }
            guard values > 0 else { return nil }
        }
        return out.joined(separator: "-")
    }

    private init(english: Void) {
        code = "en"
        direction = "ltr"
        source = .fallback
        words = BookWords(for: "en")
        dates = BookDates(locale: Self.gregorianLocale("en"))
    }
}

/// A `--lang` that names no language a book can be written in.
package struct LanguageError: Error, CustomStringConvertible, Sendable {
    package enum Problem: Sendable { case malformed, unknown }
    package let tag: String
    package let problem: Problem

    package var description: String {
        switch problem {
        case .malformed:
            return "'\(tag)' is not a language tag: give one such as ru, es, ja, ar, pt-BR or en-GB"
        case .unknown:
            return "no month names or dates are known for the language '\(tag)': give one such as ru, es, ja, ar, pt-BR or en-GB"
        }
    }
}
