import DocketCGit2

extension Repository {
    /// Makes the working tree and index match a commit, never overwriting
    /// uncommitted changes (git's safe checkout) unless `force`; HEAD does not move.
    ///
    /// `only`, when given, names every path that differs between HEAD and
    /// `commit`; the checkout then looks at those paths alone instead of
    /// comparing every file of the working tree (0.3 s at 100,000 items).
    /// `progress` hears how many files are written.
    public func checkout(
        _ commit: ObjectID, force: Bool = false, only paths: [String]? = nil, progress: ProgressThrottle? = nil
    ) throws {
        var oid = commit.oid
        var object: OpaquePointer?
        try check(git_object_lookup(&object, pointer, &oid, GIT_OBJECT_COMMIT), "git_object_lookup")
        defer { git_object_free(object) }
        var options = git_checkout_options()
        try check(
            git_checkout_options_init(&options, UInt32(GIT_CHECKOUT_OPTIONS_VERSION)), "git_checkout_options_init")
        options.checkout_strategy = force ? GIT_CHECKOUT_FORCE.rawValue : GIT_CHECKOUT_SAFE.rawValue
        guard let paths else {
            // NB: libgit2 looks up each file's attributes to find its filters, resolving its whole path with
            // realpath(3): at 10,000 items 12 readlink calls a file, a tenth of a clone. Where no attribute
            // or setting can ask for a filter, the files are written as their blobs hold them, which is what the
            // filters would do.
            if try !mayFilter([]), try !attributesMayFilter(inTree: tree(ofCommit: commit)) {
                options.disable_filters = 1
            }
            if let progress, progress.isListening {
                options.progress_payload = Unmanaged.passUnretained(progress).toOpaque()
                options.progress_cb = { _, done, total, payload in
                    Unmanaged<ProgressThrottle>.fromOpaque(payload!).takeUnretainedValue()
                        .report(TransferProgress(stage: .writing, objectsDone: done, objectsTotal: total))
                }
            }
            try check(git_checkout_tree(pointer, object, &options), "git_checkout_tree")
            return
        }
        if paths.isEmpty { return }
        options.checkout_strategy |= GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH.rawValue
        // The files in the way of a safe checkout are collected, to be named.
        final class InTheWay { var paths: [String] = [] }
        let inTheWay = InTheWay()
        options.notify_flags = GIT_CHECKOUT_NOTIFY_CONFLICT.rawValue
        options.notify_payload = Unmanaged.passUnretained(inTheWay).toOpaque()
        options.notify_cb = { _, path, _, _, _, payload in
            if let path, let payload {
                Unmanaged<InTheWay>.fromOpaque(payload).takeUnretainedValue().paths.append(String(cString: path))
            }
            return 0
        }
        let code = withStrArray(paths) { pathspec in
            options.paths = pathspec
            return git_checkout_tree(pointer, object, &options)
        }
        if code == GIT_ECONFLICT.rawValue, !inTheWay.paths.isEmpty {
            throw FilesInTheWay(paths: inTheWay.paths.sorted())
        }
        try check(code, "git_checkout_tree")
    }

    /// Whether a `.gitattributes` in `tree` or any tree under it may ask for a filter (`attributesMayFilter`).
    func attributesMayFilter(inTree tree: ObjectID) throws -> Bool {
        try withTree(tree) { tree in
            if let entry = git_tree_entry_byname(tree, ".gitattributes") {
                // A link, or a file too large to read whole here, might say anything.
                guard git_tree_entry_filemode(entry) == GIT_FILEMODE_BLOB,
                    case let id = ObjectID(git_tree_entry_id(entry)!.pointee),
                    try blobSize(id) <= 1 << 20, try !Self.attributesMayFilter(blob(id))
                else { return true }
            }
            for i in 0..<git_tree_entrycount(tree) {
                guard let entry = git_tree_entry_byindex(tree, i), git_tree_entry_type(entry) == GIT_OBJECT_TREE else {
                    continue
                }
                if try attributesMayFilter(inTree: ObjectID(git_tree_entry_id(entry)!.pointee)) { return true }
            }
            return false
        }
    }

    /// The blob id the working tree file at `path` would have.
    public func hashFile(_ path: String) throws -> ObjectID {
        var oid = git_oid()
        try check(git_odb_hashfile(&oid, workdir! + path, GIT_OBJECT_BLOB), "git_odb_hashfile")
        return ObjectID(oid)
    }
}

/// Files a safe checkout would have overwritten: changed or made here and not committed.
public struct FilesInTheWay: Error, Equatable {
    /// The files, relative to the repository's top folder.
    public let paths: [String]
}
