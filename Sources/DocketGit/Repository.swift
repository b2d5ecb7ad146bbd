import CGit2
import Foundation

/// A git repository, opened through libgit2. Knows nothing about todos.
public final class Repository {
    let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        git_repository_free(pointer)
    }

    /// Opens the repository whose top folder (or git folder, for a bare one) is `path`.
    /// Does not search parent folders.
    public static func open(at path: String) throws -> Repository {
        _ = LibGit2Runtime.started
        var repo: OpaquePointer?
        try check(git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil), "git_repository_open_ext")
        return Repository(repo!)
    }

    /// Makes a new repository with a working tree at `path` (`git init`), on branch `main`.
    public static func create(at path: String) throws -> Repository {
        _ = LibGit2Runtime.started
        var options = git_repository_init_options()
        try check(git_repository_init_options_init(&options, UInt32(GIT_REPOSITORY_INIT_OPTIONS_VERSION)), "git_repository_init_options_init")
        options.flags = GIT_REPOSITORY_INIT_MKPATH.rawValue
        var repo: OpaquePointer?
        try "main".withCString { branch in
            options.initial_head = branch
            try check(git_repository_init_ext(&repo, path, &options), "git_repository_init_ext")
        }
        return Repository(repo!)
    }

    /// Makes a new bare repository at `path` (`git init --bare`), as a remote.
    public static func createBare(at path: String) throws -> Repository {
        _ = LibGit2Runtime.started
        var repo: OpaquePointer?
        try check(git_repository_init(&repo, path, 1), "git_repository_init")
        return Repository(repo!)
    }

    /// Whether a git repository (of any kind) is at `path`.
    public static func exists(at path: String) -> Bool {
        _ = LibGit2Runtime.started
        return git_repository_open_ext(nil, path, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil) == 0
    }

    /// The working tree's folder, ending in "/"; nil for a bare repository.
    public var workdir: String? { git_repository_workdir(pointer).map { String(cString: $0) } }

    /// The git folder, ending in "/".
    public var gitdir: String { String(cString: git_repository_path(pointer)) }

    /// Whether the repository has no working tree.
    public var isBare: Bool { git_repository_is_bare(pointer) == 1 }

    // MARK: References

    /// The commit HEAD points at; nil while the branch has no commit yet.
    public func head() throws -> ObjectID? {
        try reference("HEAD")
    }

    /// The commit a reference points at (following symbolic references); nil when it does not exist.
    public func reference(_ name: String) throws -> ObjectID? {
        var oid = git_oid()
        let code = git_reference_name_to_id(&oid, pointer, name)
        if code == GIT_ENOTFOUND.rawValue || code == GIT_EUNBORNBRANCH.rawValue { return nil }
        try check(code, "git_reference_name_to_id")
        return ObjectID(oid)
    }

    /// The full name of the branch HEAD is on, such as "refs/heads/main".
    public func headBranch() throws -> String {
        var ref: OpaquePointer?
        try check(git_reference_lookup(&ref, pointer, "HEAD"), "git_reference_lookup")
        defer { git_reference_free(ref) }
        if let target = git_reference_symbolic_target(ref) { return String(cString: target) }
        throw GitError(code: -1, function: "git_reference_symbolic_target", message: "HEAD is detached")
    }

    /// The references whose names start with `prefix`, with the commits they point at.
    public func references(startingWith prefix: String) throws -> [String: ObjectID] {
        var iterator: OpaquePointer?
        try check(git_reference_iterator_glob_new(&iterator, pointer, prefix + "*"), "git_reference_iterator_glob_new")
        defer { git_reference_iterator_free(iterator) }
        var found: [String: ObjectID] = [:]
        var ref: OpaquePointer?
        while git_reference_next(&ref, iterator) == 0 {
            defer { git_reference_free(ref) }
            let name = String(cString: git_reference_name(ref))
            if let id = ObjectID(git_reference_target(ref)) { found[name] = id }
        }
        return found
    }

    /// Points HEAD at a branch, which need not have a commit yet.
    public func setHead(_ branch: String) throws {
        try check(git_repository_set_head(pointer, branch), "git_repository_set_head")
    }

    /// Points a reference at a commit, creating it if needed.
    public func setReference(_ name: String, to id: ObjectID, message: String) throws {
        var oid = id.oid
        var ref: OpaquePointer?
        try check(git_reference_create(&ref, pointer, name, &oid, 1, message), "git_reference_create")
        git_reference_free(ref)
    }

    // MARK: Objects

    /// Writes a blob and returns its id.
    public func writeBlob(_ data: Data) throws -> ObjectID {
        var oid = git_oid()
        _ = try data.withUnsafeBytes { raw in
            try check(git_blob_create_from_buffer(&oid, pointer, raw.baseAddress, raw.count), "git_blob_create_from_buffer")
        }
        return ObjectID(oid)
    }

    /// The contents of a blob.
    public func blob(_ id: ObjectID) throws -> Data {
        var oid = id.oid
        var blob: OpaquePointer?
        try check(git_blob_lookup(&blob, pointer, &oid), "git_blob_lookup")
        defer { git_blob_free(blob) }
        let size = Int(git_blob_rawsize(blob))
        guard size > 0, let raw = git_blob_rawcontent(blob) else { return Data() }
        return Data(bytes: raw, count: size)
    }

    /// The id of a commit's tree.
    public func tree(ofCommit id: ObjectID) throws -> ObjectID {
        try withCommit(id) { ObjectID(git_commit_tree_id($0))! }
    }

    /// What a commit says of itself.
    public func commitInfo(_ id: ObjectID) throws -> CommitInfo {
        try withCommit(id) { commit in
            let author = git_commit_author(commit)!.pointee
            let parents = (0..<git_commit_parentcount(commit)).compactMap { ObjectID(git_commit_parent_id(commit, $0)) }
            return CommitInfo(id: id, message: String(cString: git_commit_message(commit)),
                              authorName: String(cString: author.name), authorEmail: String(cString: author.email),
                              date: Date(timeIntervalSince1970: TimeInterval(author.when.time)), parents: parents)
        }
    }

    func withCommit<T>(_ id: ObjectID, _ body: (OpaquePointer) throws -> T) throws -> T {
        var oid = id.oid
        var commit: OpaquePointer?
        try check(git_commit_lookup(&commit, pointer, &oid), "git_commit_lookup")
        defer { git_commit_free(commit) }
        return try body(commit!)
    }

    func withTree<T>(_ id: ObjectID, _ body: (OpaquePointer) throws -> T) throws -> T {
        var oid = id.oid
        var tree: OpaquePointer?
        try check(git_tree_lookup(&tree, pointer, &oid), "git_tree_lookup")
        defer { git_tree_free(tree) }
        return try body(tree!)
    }

    /// The blobs of a tree under the given folders (every blob when `folders` is empty): path → blob id.
    public func blobs(inTree tree: ObjectID, under folders: [String] = []) throws -> [String: ObjectID] {
        final class Walk {
            var prefix = ""
            var found: [String: ObjectID] = [:]
        }
        let walk = Walk()
        try withTree(tree) { root in
            for folder in folders.isEmpty ? [""] : folders {
                var subtree: OpaquePointer?
                if folder.isEmpty {
                    walk.prefix = ""
                } else {
                    var entry: OpaquePointer?
                    let code = git_tree_entry_bypath(&entry, root, folder)
                    if code == GIT_ENOTFOUND.rawValue { continue }
                    try check(code, "git_tree_entry_bypath")
                    defer { git_tree_entry_free(entry) }
                    guard git_tree_entry_type(entry) == GIT_OBJECT_TREE else { continue }
                    try check(git_tree_lookup(&subtree, pointer, git_tree_entry_id(entry)), "git_tree_lookup")
                    walk.prefix = folder.hasSuffix("/") ? folder : folder + "/"
                }
                defer { git_tree_free(subtree) }
                let code = git_tree_walk(subtree ?? root, GIT_TREEWALK_PRE, { parent, entry, payload in
                    guard let parent, let entry, let payload, git_tree_entry_type(entry) == GIT_OBJECT_BLOB else { return 0 }
                    let walk = Unmanaged<Walk>.fromOpaque(payload).takeUnretainedValue()
                    walk.found[walk.prefix + String(cString: parent) + String(cString: git_tree_entry_name(entry))] = ObjectID(git_tree_entry_id(entry))
                    return 0
                }, Unmanaged.passUnretained(walk).toOpaque())
                try check(code, "git_tree_walk")
            }
        }
        return walk.found
    }

    /// The blob id at `path` in a tree, or nil when there is none.
    public func blobID(inTree tree: ObjectID, at path: String) throws -> ObjectID? {
        try withTree(tree) { root in
            var entry: OpaquePointer?
            let code = git_tree_entry_bypath(&entry, root, path)
            if code == GIT_ENOTFOUND.rawValue { return nil }
            try check(code, "git_tree_entry_bypath")
            defer { git_tree_entry_free(entry) }
            return git_tree_entry_type(entry) == GIT_OBJECT_BLOB ? ObjectID(git_tree_entry_id(entry)) : nil
        }
    }

    /// The paths that differ between two trees (nil is the empty tree), under the given folders.
    public func changedPaths(from old: ObjectID?, to new: ObjectID?, under folders: [String] = []) throws -> [ChangedPath] {
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

    // MARK: Config

    /// A configuration value (repository, then user, then system); nil when unset.
    public func configString(_ name: String) throws -> String? {
        var config: OpaquePointer?
        try check(git_repository_config_snapshot(&config, pointer), "git_repository_config_snapshot")
        defer { git_config_free(config) }
        var value: UnsafePointer<CChar>?
        let code = git_config_get_string(&value, config, name)
        if code == GIT_ENOTFOUND.rawValue { return nil }
        try check(code, "git_config_get_string")
        return value.map { String(cString: $0) }
    }

    /// Sets a value in the repository's own configuration.
    public func setConfig(_ name: String, to value: String) throws {
        var config: OpaquePointer?
        try check(git_repository_config(&config, pointer), "git_repository_config")
        defer { git_config_free(config) }
        try check(git_config_set_string(config, name, value), "git_config_set_string")
    }

    // MARK: History

    /// The commits reachable from `start`, newest first, at most `limit`.
    public func log(from start: ObjectID, limit: Int) throws -> [CommitInfo] {
        var walker: OpaquePointer?
        try check(git_revwalk_new(&walker, pointer), "git_revwalk_new")
        defer { git_revwalk_free(walker) }
        git_revwalk_sorting(walker, GIT_SORT_TIME.rawValue)
        var oid = start.oid
        try check(git_revwalk_push(walker, &oid), "git_revwalk_push")
        var commits: [CommitInfo] = []
        var next = git_oid()
        while commits.count < limit, git_revwalk_next(&next, walker) == 0 {
            commits.append(try commitInfo(ObjectID(next)))
        }
        return commits
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
}

/// A commit as `git log` shows it.
public struct CommitInfo: Equatable, Sendable {
    /// The commit's id.
    public let id: ObjectID
    /// The whole message.
    public let message: String
    /// The author's name.
    public let authorName: String
    /// The author's e-mail.
    public let authorEmail: String
    /// When it was authored.
    public let date: Date
    /// Its parents: none for a first commit, two for a merge.
    public let parents: [ObjectID]

    /// The first line of the message.
    public var summary: String { String(message.split(separator: "\n", omittingEmptySubsequences: false).first ?? "") }
}

/// Calls `body` with a C array of the strings, freed afterwards.
func withStrArray<T>(_ strings: [String], _ body: (git_strarray) throws -> T) rethrows -> T {
    let pointers = strings.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    var array = pointers
    return try array.withUnsafeMutableBufferPointer { buffer in
        try body(git_strarray(strings: buffer.baseAddress, count: strings.count))
    }
}
