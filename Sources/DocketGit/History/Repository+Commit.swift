import DocketCGit2
import DocketCPackFile
import DocketSystem
import Foundation

extension Repository {
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
