import Foundation

/// Sizes as people read them: `512 B`, `12.3 MiB`.
package enum ByteCount {
    package static func text(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }
}

extension ByteCount {
    /// A size as server configurations write it: `1048576`, `512K`, `1M`, `8m`, `1MiB`,
    /// `2GB` (every multiple binary, as nginx and PHP read them). Nil for anything else.
    package static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let number = Int64(digits) else { return nil }
        let shift: Int64
        switch trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces) {
        case "", "b": shift = 0
        case "k", "kb", "kib": shift = 10
        case "m", "mb", "mib": shift = 20
        case "g", "gb", "gib": shift = 30
        default: return nil
        }
        let (value, overflow) = number.multipliedReportingOverflow(by: 1 << shift)
        return overflow ? nil : value
    }
}
