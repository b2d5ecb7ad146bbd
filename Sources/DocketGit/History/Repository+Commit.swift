import DocketCGit2
import DocketCPackFile
import DocketSystem
import Foundation

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

    /// Runs `body`, which writes objects (and the index), with this
    /// repository's objects written unflushed, then flushes them all to disk
    /// with one `syncfs`.
    ///
    /// NB: libgit2 fsyncs every object file and its folder: about 50 fsyncs for
    /// a commit of 10 items, 200,000 (100 s) for a first commit of 100,000.
    /// One flush before any reference names the objects is just as durable.
    /// Only this repository's object writes skip the fsync (see
    /// `docket_unflushed_objects.h`): libgit2's process-wide fsync stays on, so
    /// another repository's writes in the meantime, in this thread or another,
    /// are flushed as always.
    public func writingObjectsTogether<T>(_ body: () throws -> T) throws -> T {
        let backend = try unflushedObjects()
        let result: T
        do {
            docket_unflushed_objects_switch(backend, 1)
            defer { docket_unflushed_objects_switch(backend, 0) }
            result = try body()
        }
        try flushFileSystem(holding: commonDir + "objects")
        return result
    }

    /// How many objects this repository has written unflushed, for a later flush.
    package var objectsWrittenUnflushed: Int {
        unflushedObjectsBackend.map { Int(docket_unflushed_objects_written($0)) } ?? 0
    }

    /// The repository's unflushed-objects backend, added to its object database on first use, when the temporary
    /// files of objects that a killed writer left in the objects folder are removed.
    private func unflushedObjects() throws -> UnsafeMutableRawPointer {
        if let unflushedObjectsBackend { return unflushedObjectsBackend }
        TemporaryFiles.removeStale(
            in: commonDir + "objects/", prefix: DOCKET_UNFLUSHED_TEMPORARY_PREFIX, namingWriter: false)
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer), "git_repository_odb")
        defer { git_odb_free(odb) }
        var backend: UnsafeMutableRawPointer?
        try check(
            docket_unflushed_objects_add(&backend, UnsafeMutableRawPointer(odb), commonDir + "objects"),
            "docket_unflushed_objects_add")
        unflushedObjectsBackend = backend
        return backend!
    }

    /// Writes a commit of `tree` with these parents, by `identities` (the
    /// repository's own when nil), signed as git's configuration asks
    /// (`commit.gpgsign`, throwing `SigningError` when signing fails); when
    /// `updating` names a reference (such as "HEAD"), moves it to the new commit.
    public func commit(
        tree: ObjectID, parents: [ObjectID], message: String, identities: Identities? = nil,
        updating reference: String? = "HEAD"
    ) throws -> ObjectID {
        let sign = CommitSigning.signer(for: self)
        let who = try identities ?? self.identities()
        let author = try gitSignature(who.author)
        let committer = try gitSignature(who.committer)
        defer {
            git_signature_free(author)
            git_signature_free(committer)
        }
        return try withTree(tree) { treeObject in
            var parentCommits: [OpaquePointer?] = []
            defer { parentCommits.forEach { git_commit_free($0) } }
            for parent in parents {
                var oid = parent.oid
                var commit: OpaquePointer?
                try check(git_commit_lookup(&commit, pointer, &oid), "git_commit_lookup")
                parentCommits.append(commit)
            }
            var oid = git_oid()
            if let sign {
                var buffer = git_buf()
                defer { git_buf_dispose(&buffer) }
                _ = try parentCommits.withUnsafeMutableBufferPointer { parents in
                    try check(
                        git_commit_create_buffer(
                            &buffer, pointer, author, committer, nil, message, treeObject, parents.count,
                            parents.baseAddress), "git_commit_create_buffer")
                }
                let text = String(cString: buffer.ptr)
                if let signature = try sign(text) {
                    try check(
                        git_commit_create_with_signature(&oid, pointer, text, signature, nil),
                        "git_commit_create_with_signature")
                    if let reference {
                        try setReference(
                            reference, to: ObjectID(oid),
                            message: "commit: " + (message.split(separator: "\n").first.map(String.init) ?? ""))
                    }
                    return ObjectID(oid)
                }
            }
            _ = try parentCommits.withUnsafeMutableBufferPointer { buffer in
                try check(
                    git_commit_create(
                        &oid, pointer, reference, author, committer, nil, message, treeObject,
                        parents.count, buffer.baseAddress), "git_commit_create")
            }
            return ObjectID(oid)
        }
    }

    /// libgit2's signature of `who`, dated now unless it has a date.
    private func gitSignature(_ who: Signature) throws -> UnsafeMutablePointer<git_signature>? {
        var signature: UnsafeMutablePointer<git_signature>?
        let date = who.date ?? Date()
        let offset = Int32(who.offsetMinutes ?? TimeZone.current.secondsFromGMT(for: date) / 60)
        try check(
            git_signature_new(&signature, who.name, who.email, git_time_t(date.timeIntervalSince1970), offset),
            "git_signature_new")
        return signature
    }

    /// `tree` with these paths holding these blobs (as regular files), written.
    public func tree(_ tree: ObjectID, replacing blobs: [String: ObjectID]) throws -> ObjectID {
        var updated = git_oid()
        try updateTree(tree, with: blobs.map { TreeUpdate.blob($0.key, $0.value) }, into: &updated)
        return ObjectID(updated)
    }

    /// `tree` without the entries at `removing` (whatever each is: a file, a link, a folder, a gitlink), then with
    /// these paths holding these blobs as regular files, written. Every path in `removing` must be in `tree`.
    public func tree(_ tree: ObjectID, removing: [String], setting blobs: [String: ObjectID]) throws -> ObjectID {
        var current = tree
        for (updates, isEmpty) in [
            (removing.map { TreeUpdate.blob($0, nil) }, removing.isEmpty),
            (blobs.map { TreeUpdate.blob($0.key, $0.value) }, blobs.isEmpty),
        ] where !isEmpty {
            var updated = git_oid()
            try updateTree(current, with: updates, into: &updated)
            current = ObjectID(updated)
        }
        return current
    }

    /// `baseline` with the paths upserted (an id) or removed (nil), as `tree`.
    func updateTree(_ baseline: ObjectID, with updates: [TreeUpdate], into tree: inout git_oid) throws {
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
}

/// One path to change in a tree: a blob to put there, or nil to remove it.
struct TreeUpdate {
    let path: String
    let id: git_oid?
    let mode: UInt32

    static func blob(_ path: String, _ id: ObjectID?) -> TreeUpdate {
        TreeUpdate(path: path, id: id?.oid, mode: id == nil ? 0 : UInt32(GIT_FILEMODE_BLOB.rawValue))
    }
}

extension Repository {
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
