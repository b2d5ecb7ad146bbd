import CGit2

extension Repository {
    /// The paths that differ between two trees (nil is the empty tree), under the given folders.
    public func changedPaths(from old: ObjectID?, to new: ObjectID?, under folders: [String] = []) throws -> [ChangedPath] {
        guard folders.isEmpty else { return try comparing(old, new, under: folders) }
        if let known = comparedTrees.first(where: { $0.old == old && $0.new == new }) { return known.changes }
        let changes = try comparing(old, new, under: [])
        comparedTrees = comparedTrees.suffix(3) + [(old, new, changes)]
        return changes
    }

    private func comparing(_ old: ObjectID?, _ new: ObjectID?, under folders: [String]) throws -> [ChangedPath] {
        var oldTree: OpaquePointer?, newTree: OpaquePointer?
        defer { git_tree_free(oldTree); git_tree_free(newTree) }
        if var oid = old?.oid { try check(git_tree_lookup(&oldTree, pointer, &oid), "git_tree_lookup") }
        if var oid = new?.oid { try check(git_tree_lookup(&newTree, pointer, &oid), "git_tree_lookup") }
        var options = git_diff_options()
        try check(git_diff_options_init(&options, UInt32(GIT_DIFF_OPTIONS_VERSION)), "git_diff_options_init")
        return try withStrArray(folders) { pathspec in
            options.pathspec = pathspec
            var diff: OpaquePointer?
            try check(git_diff_tree_to_tree(&diff, pointer, oldTree, newTree, &options), "git_diff_tree_to_tree")
            defer { git_diff_free(diff) }
            return (0..<git_diff_num_deltas(diff)).compactMap { index in
                guard let delta = git_diff_get_delta(diff, index)?.pointee else { return nil }
                let kind: ChangedPath.Kind = switch delta.status {
                case GIT_DELTA_ADDED: .added
                case GIT_DELTA_DELETED: .deleted
                default: .modified
                }
                let file = kind == .deleted ? delta.old_file : delta.new_file
                return ChangedPath(path: String(cString: file.path), kind: kind,
                                   oldID: kind == .added ? nil : ObjectID(delta.old_file.id),
                                   newID: kind == .deleted ? nil : ObjectID(delta.new_file.id),
                                   isPlainFile: UInt32(file.mode) == UInt32(GIT_FILEMODE_BLOB.rawValue))
            }
        }
    }
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
