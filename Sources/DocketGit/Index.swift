import CGit2
import Foundation

/// A file that differs from the last commit, as `git status` sees it.
public struct StatusEntry: Equatable, Sendable {
    /// How it differs.
    public enum Kind: Equatable, Sendable { case new, modified, deleted }
    /// The path, relative to the repository's top folder.
    public let path: String
    /// How it differs from HEAD (index and working tree together).
    public let kind: Kind
}

extension Repository {
    /// The files under the given folders that differ from HEAD, in the index
    /// or the working tree, untracked ones included.
    ///
    /// NB: only files whose stat data changed are hashed, so the cost follows
    /// the change, not the size of the store. While the index holds HEAD's tree
    /// (noted by Docket), only the working tree is compared with it.
    public func status(under folders: [String]) throws -> [StatusEntry] {
        if let changes = try workdirChangesWhenIndexMatchesHead(under: folders) { return changes }
        // Every path is looked at (not only `folders`), so that a status that
        // finds the index holding HEAD's tree can note it for the next command.
        let checksum = try withIndex { git_index_checksum($0).map { ObjectID($0.pointee) } }
        let head = try head()
        var options = git_status_options()
        try check(git_status_options_init(&options, UInt32(GIT_STATUS_OPTIONS_VERSION)), "git_status_options_init")
        options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR
        options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED.rawValue | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS.rawValue
            | GIT_STATUS_OPT_EXCLUDE_SUBMODULES.rawValue
        let staged = GIT_STATUS_INDEX_NEW.rawValue | GIT_STATUS_INDEX_MODIFIED.rawValue | GIT_STATUS_INDEX_DELETED.rawValue
            | GIT_STATUS_INDEX_RENAMED.rawValue | GIT_STATUS_INDEX_TYPECHANGE.rawValue | GIT_STATUS_CONFLICTED.rawValue
        var anythingStaged = false
        func inFolders(_ path: String) -> Bool { folders.isEmpty || folders.contains { path == $0 || path.hasPrefix($0 + "/") } }
        let entries = try withStrArray([]) { pathspec in
            options.pathspec = pathspec
            var list: OpaquePointer?
            try check(git_status_list_new(&list, pointer, &options), "git_status_list_new")
            defer { git_status_list_free(list) }
            return (0..<git_status_list_entrycount(list)).compactMap { index -> StatusEntry? in
                guard let entry = git_status_byindex(list, index)?.pointee else { return nil }
                let flags = entry.status.rawValue
                if flags & staged != 0 { anythingStaged = true }
                let delta = (entry.index_to_workdir ?? entry.head_to_index)?.pointee
                guard let delta else { return nil }
                let path = String(cString: (delta.new_file.path ?? delta.old_file.path)!)
                let deleted = GIT_STATUS_WT_DELETED.rawValue | GIT_STATUS_INDEX_DELETED.rawValue
                let new = GIT_STATUS_WT_NEW.rawValue | GIT_STATUS_INDEX_NEW.rawValue
                if flags & GIT_STATUS_IGNORED.rawValue != 0 || flags == 0 { return nil }
                // New in the index but deleted in the tree: nothing to commit.
                if flags & GIT_STATUS_INDEX_NEW.rawValue != 0 && flags & GIT_STATUS_WT_DELETED.rawValue != 0 { return nil }
                let kind: StatusEntry.Kind = flags & deleted != 0 ? .deleted : (flags & new != 0 ? .new : .modified)
                return inFolders(path) ? StatusEntry(path: path, kind: kind) : nil
            }
        }
        if !anythingStaged, let head, let checksum,
           try withIndex({ git_index_checksum($0).map { ObjectID($0.pointee) } }) == checksum {
            try? noteIndexHolds(try tree(ofCommit: head))
        }
        return entries
    }

    // MARK: Knowing that the index holds HEAD's tree

    /// Where Docket notes which tree the index held when Docket last wrote it:
    /// the index file's checksum, then the tree's id.
    var indexTreeNote: String { gitdir + "docket/index-tree" }

    /// Notes that the index, as it is on disk now, holds exactly `tree`.
    public func noteIndexHolds(_ tree: ObjectID) throws {
        try withIndex { index in
            guard let checksum = git_index_checksum(index) else { return }
            let text = "\(ObjectID(checksum.pointee)) \(tree)\n"
            let folder = gitdir + "docket"
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let temporary = indexTreeNote + ".\(getpid()).tmp"
            if FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)), rename(temporary, indexTreeNote) != 0 {
                unlink(temporary)
            }
        }
    }

    /// Whether the index that was just read is still the one Docket noted
    /// as holding HEAD's tree; HEAD's tree when it is, else nil.
    ///
    /// NB: the note is only trusted while the index file is byte for byte the
    /// one Docket wrote (its checksum) and HEAD still names that tree; `git add`,
    /// `git reset` or a commit by another program changes one of them.
    func headTreeIfIndexHoldsIt(_ index: OpaquePointer) throws -> ObjectID? {
        guard let checksum = git_index_checksum(index),
              let text = try? String(contentsOfFile: indexTreeNote, encoding: .utf8) else { return nil }
        let parts = text.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard parts.count == 2, parts[0] == ObjectID(checksum.pointee).description, let head = try head() else { return nil }
        let headTree = try tree(ofCommit: head)
        return parts[1] == headTree.description ? headTree : nil
    }

    /// Whether the index is the one Docket noted as holding HEAD's tree.
    public func indexHoldsHeadTree() throws -> Bool {
        try withIndex { try headTreeIfIndexHoldsIt($0) != nil }
    }

    /// The working tree's changes against the index, when the index holds
    /// exactly HEAD's tree (as it does after every docket commit and pull);
    /// nil when it may not, and a full status is needed.
    ///
    /// NB: a full status also compares HEAD's tree with the index, which reads
    /// every tree object: a third of its time at 10,000 items.
    func workdirChangesWhenIndexMatchesHead(under folders: [String]) throws -> [StatusEntry]? {
        try withIndex { index -> [StatusEntry]? in
            guard try headTreeIfIndexHoldsIt(index) != nil else { return nil }
            if !folders.isEmpty { return try scanWorkdir(index, under: folders) }
            var options = git_diff_options()
            try check(git_diff_options_init(&options, UInt32(GIT_DIFF_OPTIONS_VERSION)), "git_diff_options_init")
            options.flags = GIT_DIFF_INCLUDE_UNTRACKED.rawValue | GIT_DIFF_RECURSE_UNTRACKED_DIRS.rawValue
                | GIT_DIFF_IGNORE_SUBMODULES.rawValue
            return try withStrArray(folders) { pathspec -> [StatusEntry] in
                options.pathspec = pathspec
                var diff: OpaquePointer?
                try check(git_diff_index_to_workdir(&diff, pointer, index, &options), "git_diff_index_to_workdir")
                defer { git_diff_free(diff) }
                return (0..<git_diff_num_deltas(diff)).compactMap { i in
                    guard let delta = git_diff_get_delta(diff, i)?.pointee else { return nil }
                    let path = String(cString: (delta.new_file.path ?? delta.old_file.path)!)
                    switch delta.status {
                    case GIT_DELTA_ADDED, GIT_DELTA_UNTRACKED: return StatusEntry(path: path, kind: .new)
                    case GIT_DELTA_DELETED: return StatusEntry(path: path, kind: .deleted)
                    case GIT_DELTA_MODIFIED, GIT_DELTA_TYPECHANGE, GIT_DELTA_RENAMED, GIT_DELTA_COPIED:
                        return StatusEntry(path: path, kind: .modified)
                    default: return nil
                    }
                }
            }
        }
    }

    // MARK: Staging

    /// Stages exactly these paths as they are in the working tree (a present
    /// file is added, a missing one removed: `git add`/`git rm --cached` by
    /// path), writes the index once, and returns the tree to commit.
    ///
    /// NB: when the index held HEAD's tree, the new tree is HEAD's tree with
    /// these paths changed (`git_tree_create_updated`), which rewrites only the
    /// trees on their paths. libgit2's own `git_index_write_tree` rebuilds and
    /// rereads every tree once any path changed: 0.5 s at 100,000 items.
    ///
    /// Call it inside `writingObjectsTogether`, so that its objects reach the
    /// disk with one flush.
    public func stageAndWriteTree(_ paths: [String]) throws -> ObjectID {
        try withIndex { index in
            let baseline = try headTreeIfIndexHoldsIt(index)
            var updates: [(path: String, id: git_oid?, mode: UInt32)] = []
            for path in paths {
                if FileManager.default.fileExists(atPath: workdir! + path) {
                    try check(git_index_add_bypath(index, path), "git_index_add_bypath")
                    guard let entry = git_index_get_bypath(index, path, 0)?.pointee else { continue }
                    updates.append((path, entry.id, entry.mode))
                } else {
                    let code = git_index_remove_bypath(index, path)
                    if code != GIT_ENOTFOUND.rawValue { try check(code, "git_index_remove_bypath") }
                    updates.append((path, nil, 0))
                }
            }
            var tree = git_oid()
            if let baseline {
                try updateTree(baseline, with: updates, into: &tree)
            } else {
                try check(git_index_write_tree(&tree, index), "git_index_write_tree")
            }
            try check(git_index_write(index), "git_index_write")
            return ObjectID(tree)
        }
    }

    /// `baseline` with the paths upserted (an id) or removed (nil), as `tree`.
    func updateTree(_ baseline: ObjectID, with updates: [(path: String, id: git_oid?, mode: UInt32)],
                    into tree: inout git_oid) throws {
        let paths = updates.map { strdup($0.path) }
        defer { paths.forEach { free($0) } }
        var changes = updates.enumerated().map { i, update in
            var change = git_tree_update()
            change.action = update.id == nil ? GIT_TREE_UPDATE_REMOVE : GIT_TREE_UPDATE_UPSERT
            if let id = update.id { change.id = id }
            change.filemode = git_filemode_t(update.mode)
            change.path = UnsafePointer(paths[i])
            return change
        }
        _ = try withTree(baseline) { base in
            try check(git_tree_create_updated(&tree, pointer, base, changes.count, &changes), "git_tree_create_updated")
        }
    }

    /// Makes the index match a tree (`git reset --mixed` without moving HEAD).
    public func resetIndex(to tree: ObjectID) throws {
        try withIndex { index in
            _ = try withTree(tree) { tree in
                try check(git_index_read_tree(index, tree), "git_index_read_tree")
            }
            try check(git_index_write(index), "git_index_write")
        }
    }

    /// Runs `body`, which writes objects (and the index), with libgit2's fsync
    /// of each file off, then flushes them all to disk with one `syncfs`.
    ///
    /// NB: libgit2 fsyncs every object file and its folder: about 50 fsyncs for
    /// a commit of 10 items, 200,000 (100 s) for a first commit of 100,000.
    /// One flush before any reference names the objects is just as durable.
    public func writingObjectsTogether<T>(_ body: () throws -> T) throws -> T {
        let result: T
        do {
            _ = docket_git_enable_fsync_gitdir(0)
            defer { _ = docket_git_enable_fsync_gitdir(1) }
            result = try body()
        }
        if let reason = flushFileSystem(holding: gitdir + "objects") {
            throw GitError(code: -1, function: "syncfs", message: "cannot flush \(gitdir)objects to disk: \(reason)")
        }
        return result
    }

    func withIndex<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
        var index: OpaquePointer?
        try check(git_repository_index(&index, pointer), "git_repository_index")
        defer { git_index_free(index) }
        try check(git_index_read(index, 0), "git_index_read")
        return try body(index!)
    }

    /// Writes a commit of `tree` with these parents; when `updating` names a
    /// reference (such as "HEAD"), moves it to the new commit.
    public func commit(tree: ObjectID, parents: [ObjectID], message: String, author: Signature,
                       updating reference: String? = "HEAD", date: Date = Date()) throws -> ObjectID {
        var signature: UnsafeMutablePointer<git_signature>?
        let offset = Int32(TimeZone.current.secondsFromGMT(for: date) / 60)
        try check(git_signature_new(&signature, author.name, author.email, git_time_t(date.timeIntervalSince1970), offset), "git_signature_new")
        defer { git_signature_free(signature) }
        var treeOID = tree.oid
        var treeObject: OpaquePointer?
        try check(git_tree_lookup(&treeObject, pointer, &treeOID), "git_tree_lookup")
        defer { git_tree_free(treeObject) }
        var parentCommits: [OpaquePointer?] = []
        defer { parentCommits.forEach { git_commit_free($0) } }
        for parent in parents {
            var oid = parent.oid
            var commit: OpaquePointer?
            try check(git_commit_lookup(&commit, pointer, &oid), "git_commit_lookup")
            parentCommits.append(commit)
        }
        var oid = git_oid()
        _ = try parentCommits.withUnsafeMutableBufferPointer { buffer in
            try check(git_commit_create(&oid, pointer, reference, signature, signature, "UTF-8", message, treeObject,
                                        parents.count, buffer.baseAddress), "git_commit_create")
        }
        return ObjectID(oid)
    }
}
