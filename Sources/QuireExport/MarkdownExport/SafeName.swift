import Foundation

/// File names that are safe on every common filesystem (ext4, APFS, NTFS, FAT, SMB shares):
/// no path separators or characters Windows refuses, no control characters, no leading or
/// trailing dots and spaces, no reserved device names (CON, NUL, COM1…), NFC-normalised
/// (APFS and ext4 would otherwise see two names), at most 120 bytes of UTF-8, and unique
/// among their siblings ignoring case (macOS and Windows do).
enum SafeName {
    static let forbidden: Set<Unicode.Scalar> = ["/", "\\", ":", "*", "?", "\"", "<", ">", "|"]
    static let reserved = Set(["con", "prn", "aux", "nul"] + (1...9).flatMap { ["com\($0)", "lpt\($0)"] })
    static let maxBytes = 120

    /// A slug for an entry title: lowercase letters and digits of any script, words joined
    /// by "-"; "entry" when nothing is left.
    static func slug(_ title: String, maxCharacters: Int = 60) -> String {
        var out = ""
        var pendingDash = false
        for scalar in title.precomposedStringWithCanonicalMapping.lowercased().unicodeScalars {
            let keep = scalar.properties.isAlphabetic || scalar.properties.numericType != nil
                || scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .spacingMark
            if keep {
                if pendingDash && !out.isEmpty { out += "-" }
                pendingDash = false
                out.unicodeScalars.append(scalar)
            } else {
                pendingDash = true
            }
            // Bytes first: counting characters walks them all, and a letter under 50,000
            // accents is one character (that count for each made an export of minutes).
            if out.utf8.count > maxBytes || out.count >= maxCharacters { break }
        }
        out = String(out.prefix(maxCharacters))
        while out.utf8.count > maxBytes - 20 { out.removeLast() }
        while out.hasSuffix("-") { out.removeLast() }
        return out.isEmpty ? "entry" : out
    }

    /// An original attachment name made safe: the last path component only, forbidden and
    /// control characters replaced by "_", trimmed, shortened keeping the extension.
    static func fileName(_ original: String, fallbackExtension: String) -> String {
        let lastComponent = original.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var name = ""
        for scalar in lastComponent.precomposedStringWithCanonicalMapping.unicodeScalars {
            if forbidden.contains(scalar) || scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                || scalar.properties.generalCategory == .format || scalar.properties.generalCategory == .lineSeparator
                || scalar.properties.generalCategory == .paragraphSeparator {
                name += "_"
            } else {
                name.unicodeScalars.append(scalar)
            }
        }
        name = name.trimmingCharacters(in: CharacterSet(charactersIn: " ."))
        var (stem, ext) = split(name)
        if ext.isEmpty || ext.utf8.count > 10 || !ext.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }) {
            stem = name
            ext = fallbackExtension
        }
        stem = stem.trimmingCharacters(in: CharacterSet(charactersIn: " ."))
        if stem.isEmpty { stem = "attachment" }
        if reserved.contains(stem.lowercased()) || reserved.contains(stem.lowercased().split(separator: ".").first.map(String.init) ?? "") {
            stem = "_" + stem
        }
        while stem.utf8.count + ext.utf8.count + 1 > maxBytes - 10 { stem.removeLast() }
        stem = stem.trimmingCharacters(in: CharacterSet(charactersIn: " ."))
        return ext.isEmpty ? stem : stem + "." + ext
    }

    /// `name`, or `name-2`, `name-3`… before the extension: the first not in `taken`
    /// (compared ignoring case). Adds the result to `taken`.
    static func unique(_ name: String, in taken: inout Set<String>) -> String {
        var candidate = name
        var n = 2
        let (stem, ext) = split(name)
        while taken.contains(candidate.lowercased()) {
            candidate = stem + "-\(n)" + (ext.isEmpty ? "" : "." + ext)
            n += 1
        }
        taken.insert(candidate.lowercased())
        return candidate
    }

    /// ("photo", "jpg") for "photo.jpg"; ("photo", "") for "photo" or ".profile".
    static func split(_ name: String) -> (String, String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }

    /// A relative link target: each path segment percent-encoded except unreserved ASCII.
    static func linkPath(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
            }
        }
        return out
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
