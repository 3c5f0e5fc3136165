import Foundation

/// A corrected transcript keeps its timing: the new words are matched to the old ones
/// (longest common subsequence of words, compared without case and punctuation), each new
/// word goes into the segment of the old word it matches, and a new word that matches none
/// joins the segment of the matched word before it (or, at the start, after it). Each old
/// segment keeps its start and end; one left without words goes.
extension Segment {
    package static func aligned(_ text: String, to old: [Segment]) -> [Segment] {
        let newWords = text.split(whereSeparator: \.isWhitespace).map(String.init)
        var oldWords: [(word: String, segment: Int)] = []
        for (index, segment) in old.enumerated() {
            for word in segment.text.split(whereSeparator: \.isWhitespace) { oldWords.append((String(word), index)) }
        }
        guard !old.isEmpty, !newWords.isEmpty else { return [] }
        guard newWords.count <= 20_000, oldWords.count <= 20_000, newWords.count * oldWords.count <= 40_000_000 else {
            // Too long to match word by word: the words spread over the old segments by count.
            return spread(newWords, over: old)
        }
        let a = oldWords.map { key($0.word) }, b = newWords.map(key)
        var lengths = Array(repeating: Array(repeating: Int32(0), count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lengths[i][j] = a[i] == b[j] && !a[i].isEmpty ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var owner = [Int?](repeating: nil, count: b.count)
        var (i, j) = (0, 0)
        while i < a.count && j < b.count {
            if a[i] == b[j] && !a[i].isEmpty {
                owner[j] = oldWords[i].segment
                i += 1
                j += 1
            } else if lengths[i + 1][j] >= lengths[i][j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        // Words that matched nothing follow the word before them; leading ones the first match.
        let firstOwner = owner.compactMap { $0 }.first ?? 0
        var previous: Int?
        var words = [[String]](repeating: [], count: old.count)
        for (index, word) in newWords.enumerated() {
            let segment = owner[index] ?? previous ?? firstOwner
            words[segment].append(word)
            previous = segment
        }
        return old.indices.compactMap { index in
            words[index].isEmpty ? nil : Segment(start: old[index].start, end: old[index].end, text: words[index].joined(separator: " "))
        }
    }

    /// A word as matching sees it: lowercased, without punctuation around it.
    private static func key(_ word: String) -> String {
        word.lowercased().trimmingCharacters(in: .punctuationCharacters.union(.symbols))
    }

    private static func spread(_ words: [String], over old: [Segment]) -> [Segment] {
        let per = max(1, (words.count + old.count - 1) / old.count)
        return old.indices.compactMap { index in
            let slice = words.dropFirst(index * per).prefix(per)
            return slice.isEmpty ? nil : Segment(start: old[index].start, end: old[index].end, text: slice.joined(separator: " "))
        }
    }
}
