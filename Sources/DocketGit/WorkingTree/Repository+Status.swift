import DocketCGit2
import Foundation

/// A file that differs from the last commit, as `git status` sees it.
public struct StatusEntry: Equatable, Sendable {
    /// How it differs.
    public enum Kind: Equatable, Sendable { case new, modified, deleted, conflicted }
    /// The path, relative to the repository's top folder.
    public let path: String
    /// How it differs from HEAD (index and working tree together).
    public let kind: Kind

    /// An entry of this path and kind.
    public init(path: String, kind: Kind) {
        self.path = path
        self.kind = kind
    }
}

/// What a status found: the changes, and the files it found unchanged although
/// their stat data no longer matches the index (copied, restored, touched),
/// which every status hashes until their entries are refreshed, as a commit does.
public struct StatusReport: Equatable, Sendable {
    /// The files that differ from HEAD.
    public let entries: [StatusEntry]
    /// Unchanged files whose index entries' stat data is out of date.
    public let stale: [String]

    /// A report of these changes and stale files.
    public init(entries: [StatusEntry], stale: [String] = []) {
        self.entries = entries
        self.stale = stale
    }
}

/// A flag in git's index that tells git not to look at a file.
public enum IndexFlag: Equatable, Sendable {
    /// `git update-index --assume-unchanged`.
    case assumeUnchanged
    /// `git update-index --skip-worktree`, and every file a sparse checkout leaves out.
    case skipWorktree

    /// The flag as `git update-index` names it.
    public var name: String { self == .assumeUnchanged ? "assume-unchanged" : "skip-worktree" }
}

extension Repository {
    /// The files under the given folders that differ from HEAD, in the index
    /// or the working tree, untracked ones included. A path `alwaysTracked`
    /// accepts counts even when git's ignore rules would hide it.
    ///
    /// NB: only files whose stat data changed are hashed, so the cost follows
    /// the change, not the size of the store. While the index holds HEAD's tree
    /// (noted by Docket, see `noteIndexHolds`), only the working tree is compared with it.
    public func status(under folders: [String], alwaysTracked: (String) -> Bool = { _ in false }) throws
        -> [StatusEntry]
    {
        try statusReport(under: folders, alwaysTracked: alwaysTracked).entries
    }

    /// `status(under:alwaysTracked:)`, with the files found unchanged whose stat data no longer matches the index.
    public func statusReport(under folders: [String], alwaysTracked: (String) -> Bool = { _ in false }) throws
        -> StatusReport
    {
        if let report = try workdirChangesWhenIndexMatchesHead(under: folders, alwaysTracked: alwaysTracked) {
            return report
        }
        // Every path is looked at (not only `folders`), so that a status that
        // finds the index holding HEAD's tree can note it for the next command.
        let checksum = try withIndex { git_index_checksum($0).map { ObjectID($0.pointee) } }
        let head = try head()
        var options = git_status_options()
        try check(git_status_options_init(&options, UInt32(GIT_STATUS_OPTIONS_VERSION)), "git_status_options_init")
        options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR
        options.flags =
            GIT_STATUS_OPT_INCLUDE_UNTRACKED.rawValue | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS.rawValue
            | GIT_STATUS_OPT_EXCLUDE_SUBMODULES.rawValue | GIT_STATUS_OPT_INCLUDE_IGNORED.rawValue
            | GIT_STATUS_OPT_RECURSE_IGNORED_DIRS.rawValue
        let staged =
            GIT_STATUS_INDEX_NEW.rawValue | GIT_STATUS_INDEX_MODIFIED.rawValue | GIT_STATUS_INDEX_DELETED.rawValue
            | GIT_STATUS_INDEX_RENAMED.rawValue | GIT_STATUS_INDEX_TYPECHANGE.rawValue | GIT_STATUS_CONFLICTED.rawValue
        var anythingStaged = false
        // Paths that differ only in the working tree: git does not look at those it is told to assume unchanged.
        var workdirOnly = Set<String>()
        func inFolders(_ path: String) -> Bool {
            folders.isEmpty || folders.contains { path == $0 || path.hasPrefix($0 + "/") }
        }
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
                if flags & GIT_STATUS_IGNORED.rawValue != 0 {
                    return inFolders(path) && alwaysTracked(path) ? StatusEntry(path: path, kind: .new) : nil
                }
                if flags == 0 { return nil }
                // New in the index but deleted in the tree: nothing to commit.
                if flags & GIT_STATUS_INDEX_NEW.rawValue != 0 && flags & GIT_STATUS_WT_DELETED.rawValue != 0 {
                    return nil
                }
                let kind: StatusEntry.Kind =
                    flags & GIT_STATUS_CONFLICTED.rawValue != 0
                    ? .conflicted
                    : flags & deleted != 0 ? .deleted : (flags & new != 0 ? .new : .modified)
                guard inFolders(path) else { return nil }
                if flags & staged == 0 { workdirOnly.insert(path) }
                return StatusEntry(path: path, kind: kind)
            }
        }
        let unlooked = workdirOnly.isEmpty ? [] : try withIndex { notLookedAt(workdirOnly, in: $0) }
        let skipped =
            !looksAtPresentSkippedFiles
            ? []
            : try withIndex { presentSkippedChanges(in: $0, known: Set(entries.map(\.path))) }.filter {
                inFolders($0.path)
            }
        if !anythingStaged, let head, let checksum,
            try withIndex({ git_index_checksum($0).map { ObjectID($0.pointee) } }) == checksum
        {
            try? noteIndexHolds(try tree(ofCommit: head))
        }
        return StatusReport(
            entries: (entries.filter { !unlooked.contains($0.path) } + skipped).sorted { $0.path < $1.path })
    }

    /// The skip-worktree files that are there and differ from their entries, in
    /// a sparse checkout where git looks at them (`looksAtPresentSkippedFiles`):
    /// libgit2 1.5 never does. `known` are paths already found changed.
    func presentSkippedChanges(in index: OpaquePointer, known: Set<String>) -> [StatusEntry] {
        guard looksAtPresentSkippedFiles, let root = workdir else { return [] }
        var changes: [StatusEntry] = []
        let trustsMode = trustsFileMode
        for i in 0..<git_index_entrycount(index) {
            guard let entry = git_index_get_byindex(index, i)?.pointee,
                entry.flags_extended & UInt16(GIT_INDEX_ENTRY_SKIP_WORKTREE.rawValue) != 0,
                entry.flags & UInt16(GIT_INDEX_ENTRY_VALID.rawValue) == 0, (entry.flags >> 12) & 3 == 0
            else { continue }
            let path = String(cString: entry.path)
            var info = stat()
            var id = git_oid()
            var expected = entry.id
            guard !known.contains(path), lstat(root + path, &info) == 0 else { continue }
            let same =
                info.st_mode & S_IFMT == S_IFREG
                && git_repository_hashfile(&id, pointer, path, GIT_OBJECT_BLOB, nil) == 0
                && git_oid_equal(&id, &expected) != 0
                && (!trustsMode || Self.recordedMode(info, old: nil, trustingMode: true) == entry.mode)
            if !same { changes.append(StatusEntry(path: path, kind: .modified)) }
        }
        return changes
    }

    /// The paths whose index entries tell git not to look at their files, with the flag that says so.
    public func indexFlags() throws -> [String: IndexFlag] {
        try withIndex { index in
            var flags: [String: IndexFlag] = [:]
            for i in 0..<git_index_entrycount(index) {
                guard let entry = git_index_get_byindex(index, i)?.pointee else { continue }
                if entry.flags_extended & UInt16(GIT_INDEX_ENTRY_SKIP_WORKTREE.rawValue) != 0 {
                    // In a sparse checkout git looks at a skip-worktree file that is there (git 2.37 and later).
                    var info = stat()
                    if looksAtPresentSkippedFiles && lstat(workdir! + String(cString: entry.path), &info) == 0 {
                        continue
                    }
                    flags[String(cString: entry.path)] = .skipWorktree
                } else if entry.flags & UInt16(GIT_INDEX_ENTRY_VALID.rawValue) != 0 {
                    flags[String(cString: entry.path)] = .assumeUnchanged
                }
            }
            return flags
        }
    }

    /// Those of `paths` whose index entries tell git not to look at their files
    /// (assume-unchanged, skip-worktree): git takes them as unchanged, and
    /// never as removed (a sparse checkout leaves such files out).
    func notLookedAt(_ paths: Set<String>, in index: OpaquePointer) -> Set<String> {
        let looksAtPresent = looksAtPresentSkippedFiles
        return paths.filter { path in
            guard let entry = git_index_get_bypath(index, path, 0)?.pointee else { return false }
            if entry.flags & UInt16(GIT_INDEX_ENTRY_VALID.rawValue) != 0 { return true }
            guard entry.flags_extended & UInt16(GIT_INDEX_ENTRY_SKIP_WORKTREE.rawValue) != 0 else { return false }
            // In a sparse checkout git looks at a skip-worktree file that is there (git 2.37 and later).
            var info = stat()
            return !(looksAtPresent && lstat(workdir! + path, &info) == 0)
        }
    }

    /// The working tree's changes against the index, when the index holds
    /// exactly HEAD's tree (as it does after every docket commit and pull);
    /// nil when it may not, and a full status is needed.
    ///
    /// NB: a full status also compares HEAD's tree with the index, which reads
    /// every tree object: a third of its time at 10,000 items. Under given
    /// folders, the index is read by Docket (`IndexFile`), not libgit2.
    func workdirChangesWhenIndexMatchesHead(under folders: [String], alwaysTracked: (String) -> Bool) throws
        -> StatusReport?
    {
        if !folders.isEmpty {
            guard let noted = indexTreeNoted(), let index = readNotedIndex(noted.checksum),
                try headTreeIfNoted(noted.tree) != nil
            else { return nil }
            if monitorsChanges { return try monitoredScan(index, under: folders, alwaysTracked: alwaysTracked) }
            return try scanWorkdir(index, under: folders, alwaysTracked: alwaysTracked).map {
                StatusReport(entries: $0.changes, stale: $0.stale)
            }
        }
        return try withIndex { index -> StatusReport? in
            guard try headTreeIfIndexHoldsIt(index) != nil else { return nil }
            var options = git_diff_options()
            try check(git_diff_options_init(&options, UInt32(GIT_DIFF_OPTIONS_VERSION)), "git_diff_options_init")
            options.flags =
                GIT_DIFF_INCLUDE_UNTRACKED.rawValue | GIT_DIFF_RECURSE_UNTRACKED_DIRS.rawValue
                | GIT_DIFF_IGNORE_SUBMODULES.rawValue
            var diff: OpaquePointer?
            try check(git_diff_index_to_workdir(&diff, pointer, index, &options), "git_diff_index_to_workdir")
            defer { git_diff_free(diff) }
            let changes = (0..<git_diff_num_deltas(diff)).compactMap { i -> StatusEntry? in
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
            let unlooked = changes.isEmpty ? [] : notLookedAt(Set(changes.map(\.path)), in: index)
            return StatusReport(
                entries: (changes.filter { !unlooked.contains($0.path) }
                    + presentSkippedChanges(in: index, known: Set(changes.map(\.path)))).sorted { $0.path < $1.path })
        }
    }
}
