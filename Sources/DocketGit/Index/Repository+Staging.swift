import DocketCGit2
import DocketSystem
import Foundation

// The index as a commit stages it: paths staged and the tree written, the index reset to a tree, entries brought in
// line with the working tree.
extension Repository {
    /// Stages exactly these paths as they are in the working tree (a present
    /// file is added, a missing one removed: `git add`/`git rm --cached` by
    /// path), writes the index once, and returns the tree to commit.
    ///
    /// NB: when the index held HEAD's tree, the new tree is HEAD's tree with
    /// these paths changed (`git_tree_create_updated`), which rewrites only the
    /// trees on their paths. libgit2's own `git_index_write_tree` rebuilds and
    /// rereads every tree once any path changed: 0.5 s at 100,000 items.
    ///
    /// From `packLimit` files on (a first commit, an import), their blobs are
    /// written as one pack rather than a loose file each.
    ///
    /// Call it inside `writingObjectsTogether`, so that its objects reach the
    /// disk with one flush.
    public func stageAndWriteTree(_ paths: [String], refreshing stale: [String] = []) throws -> ObjectID {
        if let tree = try stageInOwnIndex(paths, refreshing: stale) { return tree }
        return try withIndex { index in
            let baseline = try headTreeIfIndexHoldsIt(index)
            var updates: [TreeUpdate] = []
            // Files a status found holding the index's content: their stat data is taken again. One changed since
            // that status goes into the tree as any change does.
            let staged = Set(paths)
            for path in stale where !staged.contains(path) {
                guard var before = git_index_get_bypath(index, path, 0)?.pointee.id else { continue }
                try check(git_index_add_bypath(index, path), "git_index_add_bypath")
                guard var entry = git_index_get_bypath(index, path, 0)?.pointee else { continue }
                if git_oid_equal(&before, &entry.id) == 0 {
                    updates.append(TreeUpdate(path: path, id: entry.id, mode: entry.mode))
                }
            }
            let present = presentInWorkdir(paths)
            var packed: [String: WrittenBlob] = [:]
            if present.count >= Self.packLimit {
                for (path, blob) in zip(present, try writeBlobsAsPack(present)) { if let blob { packed[path] = blob } }
            }
            let trustsMode = trustsFileMode
            for path in paths {
                var info = stat()
                if let file = packed[path] {
                    let mode = try addIndexEntry(
                        index, path: path, info: file.info, id: file.id, trustingMode: trustsMode)
                    updates.append(TreeUpdate(path: path, id: file.id, mode: mode))
                } else if lstat(workdir! + path, &info) == 0 {
                    try check(git_index_add_bypath(index, path), "git_index_add_bypath")
                    guard let entry = git_index_get_bypath(index, path, 0)?.pointee else { continue }
                    updates.append(TreeUpdate(path: path, id: entry.id, mode: entry.mode))
                } else {
                    let code = git_index_remove_bypath(index, path)
                    if code != GIT_ENOTFOUND.rawValue { try check(code, "git_index_remove_bypath") }
                    updates.append(TreeUpdate(path: path, id: nil, mode: 0))
                }
            }
            var tree = git_oid()
            if let baseline {
                try updateTree(baseline, with: updates, into: &tree)
            } else {
                try check(git_index_write_tree(&tree, index), "git_index_write_tree")
            }
            try writeIndexFile(index)
            return ObjectID(tree)
        }
    }

    /// The tree the index holds, written (`git write-tree`).
    public func writeTreeFromIndex() throws -> ObjectID {
        try withIndex { index in
            var tree = git_oid()
            try check(git_index_write_tree(&tree, index), "git_index_write_tree")
            return ObjectID(tree)
        }
    }

    /// The checksum the index file ends with, read without libgit2; nil when there is none.
    public func indexFileChecksum() -> [UInt8]? { Self.checksum(ofIndexAt: gitdir + "index") }

    /// Makes the index match a tree (`git reset --mixed` without moving HEAD).
    public func resetIndex(to tree: ObjectID) throws {
        try withIndex { index in
            _ = try withTree(tree) { tree in
                try check(git_index_read_tree(index, tree), "git_index_read_tree")
            }
            try writeIndexFile(index)
        }
    }

    /// Brings the index's entries for these paths in line with the working
    /// tree (a present file is added with its stat data, a missing one
    /// removed) and writes the index once; other entries stay as they are.
    public func updateIndex(_ paths: [String]) throws {
        try withIndex { index in
            for path in paths {
                var info = stat()
                if lstat(workdir! + path, &info) == 0 {
                    try check(git_index_add_bypath(index, path), "git_index_add_bypath")
                } else {
                    let code = git_index_remove_bypath(index, path)
                    if code != GIT_ENOTFOUND.rawValue { try check(code, "git_index_remove_bypath") }
                }
            }
            try writeIndexFile(index)
        }
    }

    /// Sets the index entries of these paths: a blob (as a plain file, with
    /// the stat data of the file now in the working tree, which must hold
    /// that blob), or nil to remove the entry; then writes the index once.
    ///
    /// NB: `git_index_add_bypath` reads, filters and hashes each file and
    /// writes its blob again: most of a large pull's time. The caller wrote
    /// each file from its blob, so the blob's id is known.
    public func setIndexEntries(_ entries: [(path: String, id: ObjectID?)]) throws {
        let trustsMode = trustsFileMode
        try withIndex { index in
            for (path, id) in entries {
                guard let id else {
                    let code = git_index_remove(index, path, 0)
                    if code != GIT_ENOTFOUND.rawValue { try check(code, "git_index_remove") }
                    continue
                }
                var info = stat()
                guard lstat(workdir! + path, &info) == 0 else { continue }
                try addIndexEntry(index, path: path, info: info, id: id.oid, trustingMode: trustsMode)
            }
            try writeIndexFile(index)
        }
    }

    /// Puts `path` in the index as the blob `id`, with the stat data of the
    /// file it was read from (so status need not read it again); returns its mode. `trustingMode` is
    /// `trustsFileMode`, read once by the caller for all its entries.
    @discardableResult
    func addIndexEntry(_ index: OpaquePointer, path: String, info: stat, id: git_oid, trustingMode: Bool) throws
        -> UInt32
    {
        var entry = git_index_entry()
        entry.ctime = git_index_time(
            seconds: Int32(truncatingIfNeeded: info.st_ctim.tv_sec), nanoseconds: UInt32(info.st_ctim.tv_nsec))
        entry.mtime = git_index_time(
            seconds: Int32(truncatingIfNeeded: info.st_mtim.tv_sec), nanoseconds: UInt32(info.st_mtim.tv_nsec))
        entry.dev = UInt32(truncatingIfNeeded: info.st_dev)
        entry.ino = UInt32(truncatingIfNeeded: info.st_ino)
        entry.mode = Self.recordedMode(
            info, old: git_index_get_bypath(index, path, 0)?.pointee.mode, trustingMode: trustingMode)
        entry.uid = info.st_uid
        entry.gid = info.st_gid
        entry.file_size = UInt32(truncatingIfNeeded: info.st_size)
        entry.id = id
        try path.withCString { cPath in
            entry.path = cPath
            try check(git_index_add(index, &entry), "git_index_add")
        }
        return entry.mode
    }

    /// The id a blob of these bytes has (nothing is written).
    public static func blobID(of data: Data) throws -> ObjectID {
        var oid = git_oid()
        _ = try data.withUnsafeBytes { raw in
            try check(git_odb_hash(&oid, raw.baseAddress, raw.count, GIT_OBJECT_BLOB), "git_odb_hash")
        }
        return ObjectID(oid)
    }
}
