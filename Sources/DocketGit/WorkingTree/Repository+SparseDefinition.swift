import DocketSystem
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a sparse checkout takes in, as git reads `info/sparse-checkout`: gitignore patterns, where the last one
/// that matches a path decides, and one that matches none of them is decided by its folders, deepest first.
public struct SparseDefinition: Sendable {
    struct Pattern: Sendable {
        /// A pattern after '!': what it matches is left out.
        let negated: Bool
        /// A pattern with a '/' before its end: matched against the whole path, else against the last name.
        let anchored: Bool
        /// A pattern ending in '/': it matches folders only.
        let foldersOnly: Bool
        let glob: String
    }
    let patterns: [Pattern]

    /// The definition in a file's text (one pattern a line; blank lines and '#' comments left out).
    public init(text: String) {
        patterns = text.split(whereSeparator: \.isNewline).compactMap { line in
            var pattern = line.trimmingCharacters(in: .whitespaces)
            guard !pattern.isEmpty, !pattern.hasPrefix("#") else { return nil }
            let negated = pattern.hasPrefix("!")
            if negated { pattern.removeFirst() }
            let foldersOnly = pattern.hasSuffix("/")
            if foldersOnly { pattern.removeLast() }
            let anchored = pattern.contains("/")
            if pattern.hasPrefix("/") { pattern.removeFirst() }
            return pattern.isEmpty
                ? nil : Pattern(negated: negated, anchored: anchored, foldersOnly: foldersOnly, glob: pattern)
        }
    }

    /// Whether the sparse checkout takes in the file at `path` (relative to the working tree, '/' between names).
    public func includes(_ path: String) -> Bool {
        let names = path.split(separator: "/").map(String.init)
        for depth in stride(from: names.count, to: 0, by: -1) {
            let candidate = names.prefix(depth).joined(separator: "/")
            if let decision = decide(candidate, name: names[depth - 1], isFolder: depth < names.count) {
                return decision
            }
        }
        return false
    }

    private func decide(_ path: String, name: String, isFolder: Bool) -> Bool? {
        for pattern in patterns.reversed() where isFolder || !pattern.foldersOnly {
            let matched =
                pattern.anchored
                ? fnmatch(pattern.glob, path, FNM_PATHNAME) == 0 : fnmatch(pattern.glob, name, 0) == 0
            if matched { return !pattern.negated }
        }
        return nil
    }
}

extension Repository {
    /// The sparse checkout's definition while one is on (`core.sparseCheckout`, and git takes files outside it as
    /// left out: no `sparse.expectFilesOutsideOfPatterns`); nil otherwise.
    public var sparseDefinition: SparseDefinition? {
        guard looksAtPresentSkippedFiles,
            let data = try? Folder.readFile(gitdir + "info/sparse-checkout", limit: 1 << 22)
        else { return nil }
        return SparseDefinition(text: String(decoding: data, as: UTF8.self))
    }
}
