import CGit2
import Foundation

/// A configured remote.
public struct RemoteInfo: Equatable, Sendable {
    /// The remote's name, such as origin.
    public let name: String
    /// Its URL or path.
    public let url: String
}

extension Repository {
    // MARK: Remotes

    /// The configured remotes.
    public func remotes() throws -> [RemoteInfo] {
        var names = git_strarray()
        try check(git_remote_list(&names, pointer), "git_remote_list")
        defer { git_strarray_dispose(&names) }
        return try (0..<names.count).compactMap { index in
            guard let name = names.strings[index].map({ String(cString: $0) }) else { return nil }
            return RemoteInfo(name: name, url: try remoteURL(name))
        }
    }

    /// The URL of a remote.
    public func remoteURL(_ name: String) throws -> String {
        try withRemote(name) { String(cString: git_remote_url($0)) }
    }

    /// Adds a remote with git's default fetch refspec.
    public func addRemote(_ name: String, url: String) throws {
        var remote: OpaquePointer?
        try check(git_remote_create(&remote, pointer, name, url), "git_remote_create")
        git_remote_free(remote)
    }

    /// Removes a remote and its remote-tracking references.
    public func removeRemote(_ name: String) throws {
        try check(git_remote_delete(pointer, name), "git_remote_delete")
    }

    func withRemote<T>(_ name: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        var remote: OpaquePointer?
        try check(git_remote_lookup(&remote, pointer, name), "git_remote_lookup")
        defer { git_remote_free(remote) }
        return try body(remote!)
    }

    // MARK: Transfers

    /// Fetches a remote's branches into `refs/remotes/<name>/…`.
    public func fetch(remote name: String, options: TransferOptions) throws {
        try withRemote(name) { remote in
            let context = TransferContext(options: options, url: String(cString: git_remote_url(remote)))
            var fetchOptions = git_fetch_options()
            try check(git_fetch_options_init(&fetchOptions, UInt32(GIT_FETCH_OPTIONS_VERSION)), "git_fetch_options_init")
            context.install(into: &fetchOptions.callbacks)
            let code = git_remote_fetch(remote, nil, &fetchOptions, "docket: fetch")
            if code < 0 { throw context.classify(gitError(code, "git_remote_fetch")) }
        }
    }

    /// Pushes a local reference to the same name on the remote; a rejected update throws `TransferError.rejected`.
    public func push(remote name: String, reference: String, options: TransferOptions) throws {
        try withRemote(name) { remote in
            let context = TransferContext(options: options, url: String(cString: git_remote_url(remote)))
            var pushOptions = git_push_options()
            try check(git_push_options_init(&pushOptions, UInt32(GIT_PUSH_OPTIONS_VERSION)), "git_push_options_init")
            context.install(into: &pushOptions.callbacks)
            let code = withStrArray(["\(reference):\(reference)"]) { refspecs in
                var refspecs = refspecs
                return git_remote_push(remote, &refspecs, &pushOptions)
            }
            if code < 0 {
                let error = gitError(code, "git_remote_push")
                if error.message.contains("non-fast-forward") || error.message.contains("rejected") || error.message.contains("not present locally") {
                    throw TransferError.rejected(url: context.url, reference: reference, reason: error.message)
                }
                throw context.classify(error)
            }
            if let rejected = context.rejected {
                throw TransferError.rejected(url: context.url, reference: rejected.reference, reason: rejected.reason)
            }
        }
    }

    /// Clones `url` into `path`, checking out its default branch.
    public static func clone(url: String, to path: String, options: TransferOptions) throws -> Repository {
        _ = LibGit2Runtime.started
        let context = TransferContext(options: options, url: url)
        var cloneOptions = git_clone_options()
        try check(git_clone_options_init(&cloneOptions, UInt32(GIT_CLONE_OPTIONS_VERSION)), "git_clone_options_init")
        context.install(into: &cloneOptions.fetch_opts.callbacks)
        var repo: OpaquePointer?
        let code = git_clone(&repo, url, path, &cloneOptions)
        if code < 0 { throw context.classify(gitError(code, "git_clone")) }
        return Repository(owning: repo!)
    }

    // MARK: Merging

    /// The best common ancestor of two commits; nil when they share none.
    public func mergeBase(_ a: ObjectID, _ b: ObjectID) throws -> ObjectID? {
        var out = git_oid()
        var (oa, ob) = (a.oid, b.oid)
        let code = git_merge_base(&out, pointer, &oa, &ob)
        if code == GIT_ENOTFOUND.rawValue { return nil }
        try check(code, "git_merge_base")
        return ObjectID(out)
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
    public func mergeTrees(base: ObjectID?, ours: ObjectID, theirs: ObjectID, replacing replacements: [String: ObjectID?],
                           resolvedUnder folders: [String],
                           changes: (ours: [ChangedPath], theirs: [ChangedPath])? = nil) throws -> ObjectID {
        if let base, let tree = try updatedTree(base: base, ours: ours, theirs: theirs, replacing: replacements,
                                                changes: try changes ?? (changedPaths(from: base, to: ours), changedPaths(from: base, to: theirs))) {
            return tree
        }
        var baseTree: OpaquePointer?, ourTree: OpaquePointer?, theirTree: OpaquePointer?
        defer { git_tree_free(baseTree); git_tree_free(ourTree); git_tree_free(theirTree) }
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
        var conflicts: [String] = []
        if git_index_has_conflicts(index) == 1 {
            var iterator: OpaquePointer?
            try check(git_index_conflict_iterator_new(&iterator, index), "git_index_conflict_iterator_new")
            var ancestor: UnsafePointer<git_index_entry>?, our: UnsafePointer<git_index_entry>?, their: UnsafePointer<git_index_entry>?
            while git_index_conflict_next(&ancestor, &our, &their, iterator) == 0 {
                if let path = (our ?? their ?? ancestor)?.pointee.path.map({ String(cString: $0) }) { conflicts.append(path) }
            }
            git_index_conflict_iterator_free(iterator)
        }
        let foreign = conflicts.filter { !owned($0) }
        if !foreign.isEmpty { throw MergeConflict(paths: Array(Set(foreign)).sorted()) }
        for path in Set(conflicts) { try check(git_index_conflict_remove(index, path), "git_index_conflict_remove") }

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
        var tree = git_oid()
        try check(git_index_write_tree_to(&tree, index, pointer), "git_index_write_tree_to")
        return ObjectID(tree)
    }

    /// Ours' tree with the replacements and theirs' own changes applied; nil
    /// when a path outside the replacements changed differently on both sides.
    func updatedTree(base: ObjectID, ours: ObjectID, theirs: ObjectID, replacing replacements: [String: ObjectID?],
                     changes: (ours: [ChangedPath], theirs: [ChangedPath])) throws -> ObjectID? {
        let oursChanges = Dictionary(changes.ours.map { ($0.path, $0.newID) }, uniquingKeysWith: { a, _ in a })
        var updates: [(path: String, id: git_oid?, mode: UInt32)] = []
        for change in changes.theirs where replacements[change.path] == nil {
            guard change.isPlainFile else { return nil }
            if let ourID = oursChanges[change.path] {
                if ourID == change.newID { continue }
                return nil
            }
            updates.append((change.path, change.newID?.oid, UInt32(GIT_FILEMODE_BLOB.rawValue)))
        }
        for (path, id) in replacements {
            if let id {
                updates.append((path, id.oid, UInt32(GIT_FILEMODE_BLOB.rawValue)))
            } else if try blobID(inTree: ours, at: path) != nil {
                updates.append((path, nil, 0))
            }
        }
        var tree = git_oid()
        try updateTree(ours, with: updates, into: &tree)
        return ObjectID(tree)
    }

    /// Makes the working tree and index match a commit, never overwriting
    /// uncommitted changes (git's safe checkout) unless `force`; HEAD does not move.
    ///
    /// `only`, when given, names every path that differs between HEAD and
    /// `commit`; the checkout then looks at those paths alone instead of
    /// comparing every file of the working tree (0.3 s at 100,000 items).
    public func checkout(_ commit: ObjectID, force: Bool = false, only paths: [String]? = nil) throws {
        var oid = commit.oid
        var object: OpaquePointer?
        try check(git_object_lookup(&object, pointer, &oid, GIT_OBJECT_COMMIT), "git_object_lookup")
        defer { git_object_free(object) }
        var options = git_checkout_options()
        try check(git_checkout_options_init(&options, UInt32(GIT_CHECKOUT_OPTIONS_VERSION)), "git_checkout_options_init")
        options.checkout_strategy = force ? GIT_CHECKOUT_FORCE.rawValue : GIT_CHECKOUT_SAFE.rawValue
        guard let paths else {
            try check(git_checkout_tree(pointer, object, &options), "git_checkout_tree")
            return
        }
        if paths.isEmpty { return }
        options.checkout_strategy |= GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH.rawValue
        try withStrArray(paths) { pathspec in
            options.paths = pathspec
            try check(git_checkout_tree(pointer, object, &options), "git_checkout_tree")
        }
    }
}

extension Repository {
    /// The blob id the working tree file at `path` would have.
    public func hashFile(_ path: String) throws -> ObjectID {
        var oid = git_oid()
        try check(git_odb_hashfile(&oid, workdir! + path, GIT_OBJECT_BLOB), "git_odb_hashfile")
        return ObjectID(oid)
    }
}

/// Files outside Docket's folders that git could not merge.
public struct MergeConflict: Error, Equatable {
    /// The files, relative to the repository's top folder.
    public let paths: [String]
}

/// The last libgit2 error as a value, for calls whose failure needs classifying.
func gitError(_ code: Int32, _ function: StaticString) -> GitError {
    let message = git_error_last().map { String(cString: $0.pointee.message) } ?? "error \(code)"
    return GitError(code: code, function: "\(function)", message: message)
}
