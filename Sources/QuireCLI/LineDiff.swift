/// Two versions of a text side by side as a person reads a diff: the lines both hold, then
/// what only one holds, marked. Longest common subsequence of lines; texts too long for that
/// (over 2,000 lines each) are shown whole, one after the other.
enum LineDiff {
    enum Line: Equatable {
        case both(String)
        case onlyOld(String)
        case onlyNew(String)
    }

    static func lines(from old: String, to new: String) -> [Line] {
        let a = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard a.count <= 2000, b.count <= 2000 else { return a.map(Line.onlyOld) + b.map(Line.onlyNew) }
        // lengths[i][j]: the longest common run of a[i...] and b[j...].
        var lengths = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lengths[i][j] = a[i] == b[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var out: [Line] = []
        var (i, j) = (0, 0)
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                out.append(.both(a[i]))
                i += 1
                j += 1
            } else if i < a.count, j == b.count || lengths[i + 1][j] >= lengths[i][j + 1] {
                out.append(.onlyOld(a[i]))  // what goes before what comes, as diffs show it
                i += 1
            } else {
                out.append(.onlyNew(b[j]))
                j += 1
            }
        }
        return out
    }
}
