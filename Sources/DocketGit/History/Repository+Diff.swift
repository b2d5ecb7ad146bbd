import DocketCGit2
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension Repository {
    /// The paths that differ between two trees (nil is the empty tree), under the given folders; throws
    /// `TooManyFiles` as soon as the walk has looked at more than `limit` entries of the two trees (a subtree the
    /// same on both sides is not looked into), before looking at the rest.
    public func changedPaths(
        from old: ObjectID?, to new: ObjectID?, under folders: [String] = [], limit: Int = .max
    ) throws -> [ChangedPath] {
        if let known = caches.comparedTrees.first(where: { $0.old == old && $0.new == new }) {
            guard known.walked <= limit else { throw TooManyFiles(limit: limit) }
            return Self.under(folders, known.changes)
        }
        var oldTree: OpaquePointer?
        var newTree: OpaquePointer?
        defer {
            git_tree_free(oldTree)
            git_tree_free(newTree)
        }
        if var oid = old?.oid { try check(git_tree_lookup(&oldTree, pointer, &oid), "git_tree_lookup") }
        if var oid = new?.oid { try check(git_tree_lookup(&newTree, pointer, &oid), "git_tree_lookup") }
        var changes: [ChangedPath] = []
        var walked = 0
        try compare(oldTree, newTree, prefix: "", depth: 0, limit: limit, walked: &walked, into: &changes)
        caches.comparedTrees = caches.comparedTrees.suffix(3) + [(old, new, changes, walked)]
        return Self.under(folders, changes)
    }

    private static func under(_ folders: [String], _ changes: [ChangedPath]) -> [ChangedPath] {
        folders.isEmpty
            ? changes
            : changes.filter { change in folders.contains { change.path.hasPrefix($0 + "/") || change.path == $0 } }
    }

    /// The files that differ between two trees (nil is the empty tree), in
    /// path order, as `git diff-tree -r` lists them: a subtree whose id is the
    /// same on both sides is never read.
    ///
    /// NB: libgit2's tree-to-tree diff reads both trees whole, building every
    /// path; at 100,000 items it took about 100 ms for a change of 100 files.
    /// A tree out of git's order (made by hand) cannot hide a change: each of
    /// the new tree's entries is either the same as the old tree's entry of its
    /// name or listed (at worst a path is listed as gone and come).
    ///
    /// NB: recursive, so bounded: a remote decides how deep its trees go (5,000 folders deep overflowed the stack).
    private func compare(
        _ old: OpaquePointer?, _ new: OpaquePointer?, prefix: String, depth: Int, limit: Int,
        walked: inout Int, into changes: inout [ChangedPath]
    ) throws {
        guard depth <= TreeTooDeep.limit else { throw TreeTooDeep(path: prefix) }
        let oldCount = old.map { git_tree_entrycount($0) } ?? 0
        let newCount = new.map { git_tree_entrycount($0) } ?? 0
        var i = 0
        var j = 0
        while i < oldCount || j < newCount {
            walked += 1
            guard walked <= limit else { throw TooManyFiles(limit: limit) }
            let a = i < oldCount ? git_tree_entry_byindex(old, i) : nil
            let b = j < newCount ? git_tree_entry_byindex(new, j) : nil
            let order = a == nil ? 1 : b == nil ? -1 : Self.order(a!, b!)
            if order < 0 {
                try one(a!, gone: true, prefix, depth: depth, limit: limit, walked: &walked, into: &changes)
                i += 1
            } else if order > 0 {
                try one(b!, gone: false, prefix, depth: depth, limit: limit, walked: &walked, into: &changes)
                j += 1
            } else {
                i += 1
                j += 1
                let (oldMode, newMode) = (git_tree_entry_filemode(a!), git_tree_entry_filemode(b!))
                if oldMode == newMode, git_oid_equal(git_tree_entry_id(a!), git_tree_entry_id(b!)) != 0 { continue }
                if oldMode == GIT_FILEMODE_TREE {
                    let (x, y) = (try subtree(a!), try subtree(b!))
                    defer {
                        git_tree_free(x)
                        git_tree_free(y)
                    }
                    try compare(
                        x, y, prefix: prefix + String(cString: git_tree_entry_name(a!)) + "/", depth: depth + 1,
                        limit: limit, walked: &walked, into: &changes)
                } else if Self.kind(oldMode) == Self.kind(newMode) {
                    let path = prefix + String(cString: git_tree_entry_name(b!))
                    changes.append(
                        ChangedPath(
                            path: path, kind: .modified, oldID: ObjectID(git_tree_entry_id(a!)),
                            newID: ObjectID(git_tree_entry_id(b!)),
                            isPlainFile: newMode == GIT_FILEMODE_BLOB))
                } else {
                    // A file become a link (or the other way): gone and come, as git lists it without type changes.
                    try one(a!, gone: true, prefix, depth: depth, limit: limit, walked: &walked, into: &changes)
                    try one(b!, gone: false, prefix, depth: depth, limit: limit, walked: &walked, into: &changes)
                }
            }
        }
    }

    /// An entry only the old tree has (`gone`) or only the new one: its file, or every file under it.
    private func one(
        _ entry: OpaquePointer, gone: Bool, _ prefix: String, depth: Int, limit: Int,
        walked: inout Int, into changes: inout [ChangedPath]
    ) throws {
        let path = prefix + String(cString: git_tree_entry_name(entry))
        let mode = git_tree_entry_filemode(entry)
        if mode == GIT_FILEMODE_TREE {
            let tree = try subtree(entry)
            defer { git_tree_free(tree) }
            return try compare(
                gone ? tree : nil, gone ? nil : tree, prefix: path + "/", depth: depth + 1, limit: limit,
                walked: &walked, into: &changes)
        }
        let id = ObjectID(git_tree_entry_id(entry))
        changes.append(
            ChangedPath(
                path: path, kind: gone ? .deleted : .added, oldID: gone ? id : nil, newID: gone ? nil : id,
                isPlainFile: mode == GIT_FILEMODE_BLOB))
    }

    /// The tree an entry names, for the caller to free.
    private func subtree(_ entry: OpaquePointer) throws -> OpaquePointer? {
        var tree: OpaquePointer?
        try check(git_tree_lookup(&tree, pointer, git_tree_entry_id(entry)), "git_tree_lookup")
        return tree
    }

    /// Files, links and submodules are kinds apart: a change between two is a removal and an addition.
    private static func kind(_ mode: git_filemode_t) -> Int {
        mode == GIT_FILEMODE_LINK ? 1 : mode == GIT_FILEMODE_COMMIT ? 2 : 0
    }

    /// Entries in git's tree order: by the bytes of the name, a tree's as if it ended in "/".
    private static func order(_ a: OpaquePointer, _ b: OpaquePointer) -> Int {
        let (x, y) = (git_tree_entry_name(a)!, git_tree_entry_name(b)!)
        let (xLength, yLength) = (strlen(x), strlen(y))
        let (xTree, yTree) = (
            git_tree_entry_filemode(a) == GIT_FILEMODE_TREE, git_tree_entry_filemode(b) == GIT_FILEMODE_TREE
        )
        func byte(_ name: UnsafePointer<CChar>, _ length: Int, _ tree: Bool, _ k: Int) -> Int {
            k < length ? Int(UInt8(bitPattern: name[k])) : k == length && tree ? Int(UInt8(ascii: "/")) : -1
        }
        var k = 0
        while true {
            let (c, d) = (byte(x, xLength, xTree, k), byte(y, yLength, yTree, k))
            if c != d { return c - d }
            if c < 0 { return 0 }
            k += 1
        }
    }
}

/// A tree nested deeper than any store or project a person keeps (Docket's
/// own folders are four deep), which Docket takes in from nowhere.
public struct TreeTooDeep: Error, CustomStringConvertible, Sendable {
    /// How many folders deep a tree may go.
    public static let limit = 256
    /// Where the walk stopped.
    public let path: String

    public var description: String {
        "a commit holds folders nested more than \(TreeTooDeep.limit) deep (\(path.prefix(80))…), which docket takes in from no one; "
            + "nothing was changed; remove that folder with git on the machine that made it"
    }
}

/// A tree holding, or a change of, more files than the caller takes in: the walk stopped there.
///
/// NB: a tree can name one small subtree ten times in each of nine folders: a few kilobytes that list a billion
/// files; counting them after the walk took 53 s and 2.7 GB for ten million.
public struct TooManyFiles: Error, CustomStringConvertible, Sendable {
    /// The most files the walk would list.
    public let limit: Int

    public var description: String { "a commit holds more than \(limit) files" }
}

/// A path that differs between two trees.
public struct ChangedPath: Equatable, Sendable {
    /// How it differs.
    public enum Kind: Equatable, Sendable { case added, modified, deleted }
    /// The path, relative to the repository's top folder.
    public let path: String
    /// How it differs.
    public let kind: Kind
    /// The blob before; nil when added.
    public let oldID: ObjectID?
    /// The blob after; nil when deleted.
    public let newID: ObjectID?
    /// Whether the path is (or, when deleted, was) a plain file: not a link, an executable or a submodule.
    public var isPlainFile: Bool = true

    /// A change as given.
    public init(path: String, kind: Kind, oldID: ObjectID?, newID: ObjectID?, isPlainFile: Bool = true) {
        (self.path, self.kind, self.oldID, self.newID, self.isPlainFile) = (path, kind, oldID, newID, isPlainFile)
    }
}
