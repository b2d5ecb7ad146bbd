// A mistyped name answered with the nearest one: commands, options, filter words.

/// The nearest of some names to a mistyped one, as git's "did you mean".
enum Suggest {
    /// The candidate closest to `word` by edit distance, when it is close enough to be a typo. A one-letter option
    /// (`-p`) is the one option of that letter: a short one in the other case, else the one long option it starts.
    static func nearest(_ word: String, among candidates: [String]) -> String? {
        if word.count == 2, word.hasPrefix("-"), let letter = word.last, letter.isLetter {
            let short = candidates.filter { $0.count == 2 && $0.lowercased() == word.lowercased() }
            if short.count == 1 { return short[0] }
            let long = candidates.filter { $0.hasPrefix("--" + letter.lowercased()) }
            return long.count == 1 ? long[0] : nil
        }
        // A start of one name ("--prio") is that name, however far it is from shorter ones.
        let started = candidates.filter { word.count >= 3 && $0.hasPrefix(word.lowercased()) }
        if started.count == 1 { return started[0] }
        let scored = candidates.map { ($0, distance(word.lowercased(), $0)) }.min { $0.1 < $1.1 }
        guard let (best, score) = scored,
            score <= max(1, (min(word.count, best.count) + 2) / 3)
                || best.hasPrefix(word.lowercased()) && word.count >= 2
        else { return nil }
        return best
    }

    /// Levenshtein distance, with a swap of two neighbours counted as one edit.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }
}
