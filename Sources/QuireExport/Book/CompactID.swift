/// An entry's id held in 16 bytes when it is a UUID as Quire writes them (lower-case, with
/// hyphens), else as its text: a book of 100,000 entries keeps every id for its links and
/// calendars, and as strings they took 8 MB more than as numbers. The same text comes back.
struct CompactID: Hashable {
    private enum Storage: Hashable {
        case uuid(UInt64, UInt64)
        case text(String)
    }

    private let storage: Storage

    init(_ id: String) {
        storage = Self.uuid(id).map { .uuid($0.0, $0.1) } ?? .text(id)
    }

    /// The id as it was given.
    var text: String {
        switch storage {
        case .text(let text): return text
        case .uuid(let high, let low):
            let digits = Self.hex(high, 16) + Self.hex(low, 16)
            var text = ""
            text.reserveCapacity(36)
            for (index, digit) in digits.enumerated() {
                if index == 8 || index == 12 || index == 16 || index == 20 { text.append("-") }
                text.append(digit)
            }
            return text
        }
    }

    private static func hex(_ value: UInt64, _ width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: width - digits.count) + digits
    }

    /// The two halves of a canonical lower-case UUID; nil for any other text.
    private static func uuid(_ id: String) -> (UInt64, UInt64)? {
        let bytes = Array(id.utf8)
        guard bytes.count == 36 else { return nil }
        var value: (UInt64, UInt64) = (0, 0), digits = 0
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            if digits < 16 { value.0 = value.0 << 4 | UInt64(nibble) } else { value.1 = value.1 << 4 | UInt64(nibble) }
            digits += 1
        }
        return value
    }
}

extension CompactID: Comparable {
    /// An order to find ids by (`EntryIndex`): UUIDs by their value, before any other id.
    static func < (a: CompactID, b: CompactID) -> Bool {
        switch (a.storage, b.storage) {
        case let (.uuid(a0, a1), .uuid(b0, b1)): return (a0, a1) < (b0, b1)
        case let (.text(a), .text(b)): return a < b
        case (.uuid, .text): return true
        case (.text, .uuid): return false
        }
    }
}

/// The entries of a book, each with its number: the ids sorted once, and found by a binary
/// search. A set of 100,000 ids held 6 MB (a hash table grown to twice what it needed);
/// this holds 2.4.
struct EntryIndex: Sendable {
    private let ids: [CompactID]

    init(_ ids: [CompactID]) {
        var sorted = ids
        sorted.sort()
        self.ids = sorted
    }

    var count: Int { ids.count }

    /// The entry's number in the book's index, or nil when the book does not hold it.
    func number(of id: CompactID) -> Int? {
        var low = 0, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low < ids.count && ids[low] == id ? low : nil
    }

    func number(of id: String) -> Int? { number(of: CompactID(id)) }
}
