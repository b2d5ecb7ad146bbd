import DocketCGit2
import Foundation

/// An operation git began and has not finished (it stopped on a conflict, or was told not to commit).
public enum GitOperation: Equatable, Sendable {
    /// `git merge` (or `git pull` without --rebase).
    case merge
    /// `git rebase` (or `git pull --rebase`).
    case rebase
    /// `git cherry-pick`.
    case cherryPick
    /// `git revert`.
    case revert
    /// `git am`, bisect or another.
    case other
}

extension Repository {
    /// The operation git left unfinished, if any.
    public var unfinishedOperation: GitOperation? {
        switch git_repository_state(pointer) {
        case Int32(GIT_REPOSITORY_STATE_NONE.rawValue): nil
        case Int32(GIT_REPOSITORY_STATE_MERGE.rawValue): .merge
        case Int32(GIT_REPOSITORY_STATE_REBASE.rawValue), Int32(GIT_REPOSITORY_STATE_REBASE_MERGE.rawValue),
            Int32(GIT_REPOSITORY_STATE_REBASE_INTERACTIVE.rawValue),
            Int32(GIT_REPOSITORY_STATE_APPLY_MAILBOX_OR_REBASE.rawValue):
            .rebase
        case Int32(GIT_REPOSITORY_STATE_CHERRYPICK.rawValue), Int32(GIT_REPOSITORY_STATE_CHERRYPICK_SEQUENCE.rawValue):
            .cherryPick
        case Int32(GIT_REPOSITORY_STATE_REVERT.rawValue), Int32(GIT_REPOSITORY_STATE_REVERT_SEQUENCE.rawValue): .revert
        default: .other
        }
    }

    /// Removes the files git keeps for an unfinished merge, cherry-pick or revert (MERGE_HEAD, MERGE_MSG…).
    public func clearOperationState() throws {
        try check(git_repository_state_cleanup(pointer), "git_repository_state_cleanup")
    }

    /// The paths the index holds in conflict (stages 1 to 3), sorted.
    public func conflictedPaths() throws -> [String] {
        try withIndex { try conflicts(in: $0) }
    }

    /// The index as it stands, with these paths replaced (a blob, or nil to
    /// remove) and their conflicts dropped, written as a tree and as the index.
    /// Throws `MergeConflict` naming conflicts left at any other path.
    public func resolveIndex(replacing replacements: [String: ObjectID?]) throws -> ObjectID {
        try withIndex { index in
            for path in try conflicts(in: index) where replacements[path] != nil {
                try check(git_index_conflict_remove(index, path), "git_index_conflict_remove")
            }
            let left = try conflicts(in: index)
            if !left.isEmpty { throw MergeConflict(paths: left) }
            try apply(replacements, to: index)
            var tree = git_oid()
            try check(git_index_write_tree(&tree, index), "git_index_write_tree")
            try writeIndexFile(index)
            return ObjectID(tree)
        }
    }

    /// The paths an index holds conflicts at, sorted.
    func conflicts(in index: OpaquePointer) throws -> [String] {
        guard git_index_has_conflicts(index) == 1 else { return [] }
        var iterator: OpaquePointer?
        try check(git_index_conflict_iterator_new(&iterator, index), "git_index_conflict_iterator_new")
        defer { git_index_conflict_iterator_free(iterator) }
        var ancestor: UnsafePointer<git_index_entry>?
        var our: UnsafePointer<git_index_entry>?
        var their: UnsafePointer<git_index_entry>?
        var paths = Set<String>()
        while git_index_conflict_next(&ancestor, &our, &their, iterator) == 0 {
            if let path = (our ?? their ?? ancestor)?.pointee.path.map({ String(cString: $0) }) { paths.insert(path) }
        }
        return paths.sorted()
    }

    /// The blobs of a conflicted path's stages in the index: the common
    /// ancestor's, ours and theirs; nil where git left a stage out (added on
    /// both sides, or removed on one).
    public func conflictStages(at path: String) throws -> (base: ObjectID?, ours: ObjectID?, theirs: ObjectID?) {
        try withIndex { index in
            var ancestor: UnsafePointer<git_index_entry>?
            var our: UnsafePointer<git_index_entry>?
            var their: UnsafePointer<git_index_entry>?
            try check(git_index_conflict_get(&ancestor, &our, &their, index, path), "git_index_conflict_get")
            return (
                ancestor.map { ObjectID($0.pointee.id) }, our.map { ObjectID($0.pointee.id) },
                their.map { ObjectID($0.pointee.id) }
            )
        }
    }

    /// Puts each blob at its path in an index (a regular file), or removes the path for nil.
    func apply(_ replacements: [String: ObjectID?], to index: OpaquePointer) throws {
        for (path, id) in replacements {
            if let id {
                var entry = git_index_entry()
                entry.mode = UInt32(GIT_FILEMODE_BLOB.rawValue)
                entry.id = id.oid
                try path.withCString { cPath in
                    entry.path = cPath
                    try check(git_index_add(index, &entry), "git_index_add")
                }
            } else {
                let code = git_index_remove(index, path, 0)
                if code != GIT_ENOTFOUND.rawValue { try check(code, "git_index_remove") }
            }
        }
    }

    /// Points HEAD at a branch by name again (after a rebase left it detached).
    public func attachHead(to branch: String) throws {
        try check(git_repository_set_head(pointer, branch), "git_repository_set_head")
    }
}
