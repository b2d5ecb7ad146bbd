import DocketModel
import Foundation

/// Named filters kept on this machine (Taskwarrior's contexts), and the one
/// switched on. Each is kept as the words that were typed for it, read
/// again at every use, so a date in it (`--due-before eow`) is counted from
/// the day it is used. They live in `.git/docket/contexts.json`: never
/// committed or synced, as a context says where this machine's person is
/// (at work, at home), not what the list holds.
public struct FilterContexts: Codable, Equatable, Sendable {
    /// Each context's words, by name.
    public var filters: [String: [String]]
    /// The context switched on, if any.
    public var active: String?

    /// These contexts, with `active` switched on.
    public init(filters: [String: [String]] = [:], active: String? = nil) {
        self.filters = filters
        self.active = active
    }

    /// The context switched on and its words; nil when none is (or the one named is gone).
    public var current: (name: String, words: [String])? {
        guard let active, let words = filters[active] else { return nil }
        return (active, words)
    }

    /// Why `name` cannot name a context, or nil when it can: one word of letters, digits, `-`, `_` and `.`,
    /// starting with a letter or digit, and none of the words `docket context` itself takes.
    public static func problem(with name: String) -> String? {
        if reserved.contains(name.lowercased()) {
            return "'\(name)' is a word docket context takes itself; choose another name"
        }
        let allowed = name.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" || $0 == "."
        }
        guard allowed, let first = name.unicodeScalars.first, CharacterSet.alphanumerics.contains(first),
            name.count <= 64
        else {
            return
                "a context's name is one word of at most 64 letters, digits, '-', '_' and '.', starting with a letter or digit"
        }
        return nil
    }

    /// The words `docket context` takes in place of a name.
    public static let reserved: Set<String> = ["none", "set", "rm", "list", "use", "help"]

    private enum CodingKeys: String, CodingKey { case filters, active }
}

extension Store {
    static let contextsFile = "contexts.json"

    /// The contexts kept on this machine; none when none were ever saved.
    public func filterContexts() throws -> FilterContexts {
        guard let text = try localText(Self.contextsFile) else { return FilterContexts() }
        do {
            return try DocketJSON.decode(FilterContexts.self, from: Data(text.utf8))
        } catch {
            throw StoreError.state(
                .unreadableLocalFile(
                    path: try localFile(Self.contextsFile).path, reason: decodingReason(error),
                    advice: "fix it, or remove it to start afresh (its contexts go with it)"))
        }
    }

    /// Changes the contexts kept on this machine, under the store's lock, and returns them as written.
    @discardableResult
    public func changeFilterContexts(_ change: (inout FilterContexts) throws -> Void) throws -> FilterContexts {
        try withLock {
            var contexts = try filterContexts()
            try change(&contexts)
            let data = try DocketJSON.encode(contexts)
            try writeLocalText(String(decoding: data, as: UTF8.self), to: Self.contextsFile)
            return contexts
        }
    }
}
