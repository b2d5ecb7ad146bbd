import DocketCGit2
import DocketSystem
import Foundation

/// A git repository, opened through libgit2. Knows nothing about todos.
public final class Repository {
    /// The libgit2 handle: set once, freed in `deinit`.
    let pointer: OpaquePointer
    /// What the repository keeps between calls, each with the rule that makes it read again.
    var caches: RepositoryCaches
    /// The object database backend `writingObjectsTogether` switches on, once added (owned by the database).
    var unflushedObjectsBackend: UnsafeMutableRawPointer?

    /// Whether a sparse checkout is on (`core.sparseCheckout`, which `git sparse-checkout` sets in the worktree's
    /// configuration) and git takes a skip-worktree file that is there as any other (unless
    /// `sparse.expectFilesOutsideOfPatterns`): git 2.37 and later look at such a file, for a sparse checkout
    /// only leaves out what is not there.
    var looksAtPresentSkippedFiles: Bool {
        caches.sparseCheckout.value {
            func setting(_ name: String) -> Bool? {
                if let value = try? configBool(name) { return value }
                // NB: libgit2 1.5 does not read a worktree's own configuration (extensions.worktreeConfig).
                guard let data = try? Folder.readFile(gitdir + "config.worktree", limit: 1 << 20) else { return nil }
                let key = name.split(separator: ".").last!.lowercased()
                return String(decoding: data, as: UTF8.self).lowercased().split(whereSeparator: \.isNewline)
                    .map { $0.replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "\t", with: "") }
                    .contains { $0 == key + "=true" }
            }
            return setting("core.sparseCheckout") == true && setting("sparse.expectFilesOutsideOfPatterns") != true
        }
    }

    /// Whether git takes a file's executable bit from the file system (`core.filemode`, true unless set to false).
    var trustsFileMode: Bool {
        caches.fileMode.value {
            var config: OpaquePointer?
            var value: Int32 = 1
            if git_repository_config_snapshot(&config, pointer) == 0 {
                if git_config_get_bool(&value, config, "core.filemode") != 0 { value = 1 }
                git_config_free(config)
            }
            return value != 0
        }
    }

    /// The mode git records for a regular file whose stat data is `info`, where its entry had `old`: the file's
    /// executable bit, unless `core.filemode` is false (`trustingMode`, read once per operation from
    /// `trustsFileMode`), where the old entry's mode is kept (a new file is not executable).
    static func recordedMode(_ info: stat, old: UInt32?, trustingMode: Bool) -> UInt32 {
        if trustingMode { return info.st_mode & 0o100 != 0 ? 0o100755 : 0o100644 }
        return old == 0o100755 ? 0o100755 : 0o100644
    }

    /// Whether a status asks the store's change monitor where changes can be: `docket.monitor` in the repository's
    /// configuration (`docket monitor on`), read again when a configuration file changes.
    public var monitorsChanges: Bool {
        caches.changeMonitor.value { (try? configBool("docket.monitor")) == true }
    }
    /// What a monitored status calls when no monitor answers (it then looks everywhere): set once, by the store that
    /// opened the repository.
    public var startChangeMonitor: (() -> Void)?

    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
        let (gitdir, common) = (
            String(cString: git_repository_path(pointer)), String(cString: git_repository_commondir(pointer))
        )
        // NB: a repository without linked worktrees has one config file: it is stamped once.
        caches = RepositoryCaches(
            settingFiles: [gitdir + "config", gitdir + "config.worktree"]
                + (common == gitdir ? [] : [common + "config"]))
    }

    deinit {
        git_repository_free(pointer)
    }

    /// Opens the repository whose top folder (or git folder, for a bare one) is `path`.
    /// Does not search parent folders.
    public static func open(at path: String) throws -> Repository {
        _ = LibGit2Runtime.started
        var repo: OpaquePointer?
        try check(
            git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil), "git_repository_open_ext"
        )
        return Repository(owning: repo!)
    }

    /// Makes a new repository with a working tree at `path` (`git init`), on `branch`.
    public static func create(at path: String, branch: String = "main") throws -> Repository {
        _ = LibGit2Runtime.started
        var options = git_repository_init_options()
        try check(
            git_repository_init_options_init(&options, UInt32(GIT_REPOSITORY_INIT_OPTIONS_VERSION)),
            "git_repository_init_options_init")
        options.flags = GIT_REPOSITORY_INIT_MKPATH.rawValue
        var repo: OpaquePointer?
        try branch.withCString { branch in
            options.initial_head = branch
            try check(git_repository_init_ext(&repo, path, &options), "git_repository_init_ext")
        }
        return Repository(owning: repo!)
    }

    /// The branch a new repository starts on: git's `init.defaultBranch` (from
    /// the user's and the system's configuration) when set, else "main".
    public static func defaultBranchName() -> String {
        _ = LibGit2Runtime.started
        var config: OpaquePointer?
        guard git_config_open_default(&config) == 0 else { return "main" }
        defer { git_config_free(config) }
        var snapshot: OpaquePointer?
        guard git_config_snapshot(&snapshot, config) == 0 else { return "main" }
        defer { git_config_free(snapshot) }
        var value: UnsafePointer<CChar>?
        guard git_config_get_string(&value, snapshot, "init.defaultBranch") == 0, let value else { return "main" }
        let name = String(cString: value)
        return name.isEmpty ? "main" : name
    }

    /// Makes a new bare repository at `path` (`git init --bare`), as a remote.
    public static func createBare(at path: String) throws -> Repository {
        _ = LibGit2Runtime.started
        var repo: OpaquePointer?
        try check(git_repository_init(&repo, path, 1), "git_repository_init")
        return Repository(owning: repo!)
    }

    /// Whether a git repository (of any kind) is at `path`.
    public static func exists(at path: String) -> Bool {
        _ = LibGit2Runtime.started
        return git_repository_open_ext(nil, path, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil) == 0
    }

    /// The object format of the repository at `path` (its top folder, or a bare repository's folder) when it is one
    /// libgit2 1.5 cannot read: `extensions.objectformat` of its configuration, `sha256` as `git init
    /// --object-format=sha256` writes it; nil for a SHA-1 repository, and where there is none.
    ///
    /// NB: libgit2 1.5 refuses to open such a repository ("unsupported extension name extensions.objectformat"),
    /// and `git_repository_init` over it fails the same way: the configuration file is read on its own.
    public static func unsupportedObjectFormat(at path: String) -> String? {
        _ = LibGit2Runtime.started
        for file in [path + "/.git/config", path + "/config"] {
            var config: OpaquePointer?
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isFolder), !isFolder.boolValue,
                git_config_open_ondisk(&config, file) == 0
            else { continue }
            defer { git_config_free(config) }
            var buffer = git_buf()
            defer { git_buf_dispose(&buffer) }
            guard git_config_get_string_buf(&buffer, config, "extensions.objectformat") == 0, let text = buffer.ptr
            else { return nil }
            let format = String(cString: text).lowercased()
            return format == "sha1" ? nil : format
        }
        return nil
    }

    /// Whether git refuses the repository at `path` because another user owns
    /// it and `safe.directory` does not name it.
    /// NB: libgit2 1.5 reports a missing `safe.directory` setting as a
    /// config lookup failure rather than `GIT_EOWNER`, so its message is read too.
    public static func isOwnedByAnother(at path: String) -> Bool {
        _ = LibGit2Runtime.started
        var repo: OpaquePointer?
        let code = git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil)
        git_repository_free(repo)
        guard code < 0 else { return false }
        var owned = code == GIT_EOWNER.rawValue
        // NB: libgit2 1.5.1 fails its ownership check with GIT_ENOTFOUND ("config value 'safe.directory' was not
        // found") when no configuration names safe.directory at all; only the words say so then.
        if !owned, let error = git_error_last(), let message = error.pointee.message {
            let text = String(cString: message)
            owned = text.contains("safe.directory") || text.contains("not owned by current user")
        }
        // NB: libgit2 1.5 does not know git's `safe.directory = *` (trust every repository); it is read here, as git
        // reads it (the system's and the user's configuration only), and libgit2's check turned off for the process.
        if owned, trustsEveryDirectory() {
            _ = docket_git_set_owner_validation(0)
            return false
        }
        return owned
    }

    /// Whether the user's or the system's git configuration says `safe.directory = *`, after its last empty value
    /// (which clears the list).
    static func trustsEveryDirectory() -> Bool {
        var config: OpaquePointer?
        guard git_config_open_default(&config) == 0 else { return false }
        defer { git_config_free(config) }
        final class Values { var list: [String] = [] }
        let values = Values()
        _ = git_config_get_multivar_foreach(
            config, "safe.directory", nil,
            { entry, payload in
                if let entry, let value = entry.pointee.value {
                    Unmanaged<Values>.fromOpaque(payload!).takeUnretainedValue().list.append(String(cString: value))
                }
                return 0
            }, Unmanaged.passUnretained(values).toOpaque())
        let current = values.list.split(separator: "", omittingEmptySubsequences: false).last ?? []
        return current.contains("*")
    }

    /// The working tree's folder, ending in "/"; nil for a bare repository.
    public var workdir: String? { git_repository_workdir(pointer).map { String(cString: $0) } }

    /// The git folder, ending in "/".
    public var gitdir: String { String(cString: git_repository_path(pointer)) }

    /// The git folder shared by all worktrees (the same as `gitdir` without linked worktrees), ending in "/".
    public var commonDir: String { String(cString: git_repository_commondir(pointer)) }

    /// Whether the repository has no working tree.
    public var isBare: Bool { git_repository_is_bare(pointer) == 1 }

    // MARK: Scoped C objects

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

    /// Runs `body` with the repository's index, read fresh from disk.
    func withIndex<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
        var index: OpaquePointer?
        try check(git_repository_index(&index, pointer), "git_repository_index")
        defer { git_index_free(index) }
        try check(git_index_read(index, 0), "git_index_read")
        return try body(index!)
    }
}
