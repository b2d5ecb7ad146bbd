/// Tags as they are stored: each without a leading "+", sorted, each once.
public enum Tags {
    /// `tags` sorted, each once.
    public static func normalized<S: Sequence>(_ tags: S) -> [String] where S.Element == String {
        Array(Set(tags)).sorted()
    }

    /// `tags` after adding `add` and removing `remove`.
    public static func applying(add: [String], remove: [String], to tags: [String]) -> [String] {
        normalized(Set(tags).union(add).subtracting(remove))
    }

    /// Why one of `tags` cannot be a tag, naming it; nil when all can.
    @Sendable public static func problem(in tags: [String]) -> String? {
        for tag in tags { if let problem = problem(with: tag) { return "the tag \"\(tag)\": \(problem)" } }
        return nil
    }

    /// Why `tag` cannot be a tag, or nil when it can: a tag is one word, not empty, with no control characters.
    public static func problem(with tag: String) -> String? {
        if tag.isEmpty { return "a tag cannot be empty" }
        if tag.unicodeScalars.contains(where: {
            $0.properties.isWhitespace || $0.properties.generalCategory == .control
        }) {
            return "a tag is one word, without spaces or control characters"
        }
        if tag.hasPrefix("+") || tag.hasPrefix("-") { return "a tag cannot start with + or -" }
        return nil
    }
}
