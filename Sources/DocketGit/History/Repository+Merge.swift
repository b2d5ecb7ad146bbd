import DocketCGit2
import DocketSystem
import Foundation

extension Repository {
    /// The best common ancestor of two commits; nil when they share none.
    /// In a shallow clone, the history beyond the commits `.git/shallow` names
    /// is not there: libgit2 1.5 does not know that file, and its walk fails
    /// there. The walk is then Docket's own (`shallowMergeBase`).
    public func mergeBase(_ a: ObjectID, _ b: ObjectID) throws -> ObjectID? {
        var out = git_oid()
        var (oa, ob) = (a.oid, b.oid)
        let code = git_merge_base(&out, pointer, &oa, &ob)
        if code == GIT_ENOTFOUND.rawValue { return nil }
        if code < 0, let shallow = shallowCommits() { return try shallowMergeBase(a, b, shallow: shallow) }
        try check(code, "git_merge_base")
        return ObjectID(out)
    }

    /// The commits a shallow clone's history stops at (`shallow` in the git folder); nil when the clone is whole.
    public func shallowCommits() -> Set<ObjectID>? {
        // NB: read as every file of git's folder is (no link, bounded); a `shallow` that cannot be read is no shallow
        // clone.
        guard let data = try? Folder.readFile(commonDir + "shallow", limit: 1 << 26) else { return nil }
        return Set(
            String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap {
                ObjectID(hex: String($0))
            })
    }

    /// The best common ancestor of two commits of a shallow clone, walking
    /// no further than its shallow commits; nil when they share none there.
    /// Throws `ShallowHistory` when the answer lies beyond them: no common
    /// ancestor is there, or several that none descends from.
    func shallowMergeBase(_ a: ObjectID, _ b: ObjectID, shallow: Set<ObjectID>) throws -> ObjectID? {
        func ancestors(of start: ObjectID) throws -> Set<ObjectID> {
            var seen: Set<ObjectID> = [start]
            var stack = [start]
            while let commit = stack.popLast() {
                guard !shallow.contains(commit) else { continue }
                for parent in try commitInfo(commit).parents where seen.insert(parent).inserted { stack.append(parent) }
            }
            return seen
        }
        let ofA = try ancestors(of: a)
        if ofA.contains(b) { return b }
        let ofB = try ancestors(of: b)
        if ofB.contains(a) { return a }
        let common = ofA.intersection(ofB)
        // The best are those no other common commit descends from: all but the ancestors of common commits' parents.
        var below = Set<ObjectID>()
        var stack: [ObjectID] = []
        for commit in common where !shallow.contains(commit) { stack += try commitInfo(commit).parents }
        while let commit = stack.popLast() {
            guard below.insert(commit).inserted, !shallow.contains(commit) else { continue }
            stack += try commitInfo(commit).parents
        }
        let best = common.subtracting(below)
        guard best.count == 1, let base = best.first else { throw ShallowHistory() }
        return base
    }

    /// Merges three trees as git would, then replaces the given paths (`nil`
    /// removes a path) and writes the result as a tree. Throws
    /// `MergeConflict` naming the paths git could not merge outside `replacements`.
    ///
    /// NB: when no path outside `replacements` changed on both sides, the
    /// result is ours' tree with the replacements and theirs' other changes
    /// applied (`git_tree_create_updated`), which rewrites only the trees on
    /// those paths. `git_merge_trees` builds an index of every path and
    /// writes every tree: its cost follows the store, not the change.
    ///
    /// `changes`, when given, are the paths each side changed since `base`, as `changedPaths` gives them.
    public func mergeTrees(
        base: ObjectID?, ours: ObjectID, theirs: ObjectID, replacing replacements: [String: ObjectID?],
        resolvedUnder folders: [String],
        changes: (ours: [ChangedPath], theirs: [ChangedPath])? = nil
    ) throws -> ObjectID {
        if let base,
            let tree = try updatedTree(
                base: base, ours: ours, theirs: theirs, replacing: replacements,
                changes: try changes ?? (changedPaths(from: base, to: ours), changedPaths(from: base, to: theirs)))
        {
            return tree
        }
        var baseTree: OpaquePointer?
        var ourTree: OpaquePointer?
        var theirTree: OpaquePointer?
        defer {
            git_tree_free(baseTree)
            git_tree_free(ourTree)
            git_tree_free(theirTree)
        }
        if var oid = base?.oid { try check(git_tree_lookup(&baseTree, pointer, &oid), "git_tree_lookup") }
        var (o, t) = (ours.oid, theirs.oid)
        try check(git_tree_lookup(&ourTree, pointer, &o), "git_tree_lookup")
        try check(git_tree_lookup(&theirTree, pointer, &t), "git_tree_lookup")
        var options = git_merge_options()
        try check(git_merge_options_init(&options, UInt32(GIT_MERGE_OPTIONS_VERSION)), "git_merge_options_init")
        var index: OpaquePointer?
        try check(git_merge_trees(&index, pointer, baseTree, ourTree, theirTree, &options), "git_merge_trees")
        defer { git_index_free(index) }

        // Conflicts inside the store's folders are Docket's to settle; others stop the merge.
        func owned(_ path: String) -> Bool { folders.contains { path == $0 || path.hasPrefix($0 + "/") } }
        let conflicts = try self.conflicts(in: index!)
        let foreign = conflicts.filter { !owned($0) }
        if !foreign.isEmpty { throw MergeConflict(paths: foreign) }
        for path in conflicts { try check(git_index_conflict_remove(index, path), "git_index_conflict_remove") }
        try apply(replacements, to: index!)
        var tree = git_oid()
        try check(git_index_write_tree_to(&tree, index, pointer), "git_index_write_tree_to")
        return ObjectID(tree)
    }

    /// Ours' tree with the replacements and theirs' own changes applied; nil
    /// when a path outside the replacements changed differently on both sides.
    func updatedTree(
        base: ObjectID, ours: ObjectID, theirs: ObjectID, replacing replacements: [String: ObjectID?],
        changes: (ours: [ChangedPath], theirs: [ChangedPath])
    ) throws -> ObjectID? {
        let oursChanges = Dictionary(changes.ours.map { ($0.path, $0.newID) }, uniquingKeysWith: { a, _ in a })
        var updates: [TreeUpdate] = []
        for change in changes.theirs where replacements[change.path] == nil {
            guard change.isPlainFile else { return nil }
            if let ourID = oursChanges[change.path] {
                if ourID == change.newID { continue }
                return nil
            }
            updates.append(.blob(change.path, change.newID))
        }
        for (path, id) in replacements {
            if let id {
                updates.append(.blob(path, id))
            } else if try blobID(inTree: ours, at: path) != nil {
                updates.append(.blob(path, nil))
            }
        }
        var tree = git_oid()
        try updateTree(ours, with: updates, into: &tree)
        return ObjectID(tree)
    }
}

/// Files outside Docket's folders that git could not merge.
public struct MergeConflict: Error, Equatable {
    /// The files, relative to the repository's top folder.
    public let paths: [String]
}

/// A shallow clone lacks the history a merge needs: its commits' common ancestor lies beyond the clone's shallow
/// commits.
public struct ShallowHistory: Error, Equatable, Sendable {
    /// Whether a push found it: the remote would need the history the clone lacks.
    public var pushing = false
}
