import DocketGit
import DocketModel
import DocketSystem
import Foundation

/// A Docket store: a git repository with a working tree holding one JSON file per item.
public final class Store {
    /// The store format this version reads and writes. Format 2 added tags,
    /// priorities, notes, completion dates and recurrence; format 3 due dates
    /// without a time (`"2026-11-24"`) and with the local offset of their time,
    /// and wait and scheduled dates and dependencies. An older store is raised
    /// by the first change this docket writes, so a docket that knows only an
    /// older format refuses it rather than failing to read, or dropping, what
    /// it cannot hold in its edits and merges (one side's dependencies over the
    /// other's, waiting items shown as due).
    public static let format = 3

    /// The store's folder (the repository's working tree).
    public let root: URL
    /// `root.path`, kept: URL computes it anew on each call.
    let rootPath: String
    /// The git folder, ending in "/".
    let gitdir: String
    private var openedGit: StoreGit?
    private var openedTree: Folder?
    /// The format `.docket/format.json` names, read again when that file changes (a pull or another docket
    /// replaced it), so an object kept open for days refuses a store a newer docket raised at its next write.
    private lazy var foundFormat = StampedValue<Int>(paths: [rootPath + "/" + StoreLayout.format])
    /// What the changes this store object writes are called in `docket undo --list`, such as "docket done 3f2a".
    public var action = "a change through the library"
    /// Hears of each hook run (its output, and why it failed); the command line prints them.
    public var hookReport: (HookRun) -> Void = { _ in }
    /// The store's hooks, found once per locked operation (`withLock` forgets them when it takes the lock).
    var foundHooks: HookPrograms?
    /// Files of this object's changes whose hooks have not run yet.
    var pendingHookFiles: [String] = []
    /// Changes whose hooks have not run yet and which could not be written down.
    var unsavedHookBatches: [HookBatch] = []
    var warnedAboutHooks = false
    /// Whether commits and pushes run git's verifying hooks (`pre-commit`, `commit-msg`, `pre-push`); false is git's
    /// `--no-verify`.
    public var verifiesWithGitHooks = true
    /// Whether a pull takes a remote branch's rewritten history (`sync --accept-rewrite`) rather than refusing it.
    public var acceptsRewrittenUpstream = false
    /// The docket program that starts the store's change monitor when it is on and none runs (the command line sets
    /// it).
    public var changeMonitorProgram: String?
    /// The writes made while a `StoreQueue` runs a call, for its observers and to take back a `write {}` that throws.
    var writeLog: WriteLog?
    /// Whether this object holds the store's lock now (`withLock` inside `withLock` takes it once).
    private var holdsLock = false
    /// Set for a `StoreQueue.write {}`: the lock its first edit takes is kept until `releaseKeptLock()`.
    var keepsLock = false
    private var keptLock: FileLock?

    private init(root: URL, gitdir: String, repository: Repository?) {
        self.root = root
        self.rootPath = root.path
        self.gitdir = gitdir
        self.openedGit = repository.map(StoreGit.init)
        if let repository { useChangeMonitor(repository) }
    }

    /// The store's repository, opened through libgit2 on first use.
    /// NB: starting libgit2 parses the system's certificate file (about 10 ms),
    /// a third of what `docket add` costs otherwise; commands that only read
    /// and write item files never pay it.
    var git: StoreGit {
        get throws {
            if let openedGit { return openedGit }
            let repository = try StoreError.gate(writing: false) { try Repository.open(at: rootPath) }
            if repository.isBare { throw StoreError.state(.bareSetting(root: rootPath)) }
            useChangeMonitor(repository)
            openedGit = StoreGit(repository: repository)
            return openedGit!
        }
    }

    /// The working tree, opened once; every read and write of an item file goes through it.
    var tree: Folder {
        get throws {
            if let openedTree { return openedTree }
            openedTree = try StoreError.gate(writing: false) { try Folder.open(rootPath) }
            return openedTree!
        }
    }

    /// Opens the store in `folder`, refusing a folder that is not one.
    public static func open(at folder: URL) throws -> Store {
        let path = folder.standardizedFileURL.path
        if FileManager.default.fileExists(atPath: cloneMarker(path + "/.git/")) { try finishInterruptedClone(at: path) }
        // The common case, a folder with a .git folder, needs no libgit2.
        // (A repository another user owns goes the long way, for git's safe.directory check.)
        var isFolder: ObjCBool = false
        var info = stat()
        if FileManager.default.fileExists(atPath: path + "/.git/HEAD"),
            FileManager.default.fileExists(atPath: path + "/.git/objects", isDirectory: &isFolder), isFolder.boolValue,
            lstat(path + "/.git", &info) == 0, info.st_uid == geteuid() || info.st_uid == 0
        {
            try checkFormat(root: path, shownAs: path)
            return Store(root: folder.standardizedFileURL, gitdir: path + "/.git/", repository: nil)
        }
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            throw StoreError.state(.missingFolder(path: path))
        }
        if !isDirectory.boolValue { throw StoreError.state(.storeIsAFile(path: path)) }
        if let format = Repository.unsupportedObjectFormat(at: path) {
            throw StoreError.state(.objectFormat(path: path, format: format))
        }
        guard Repository.exists(at: path) else { throw StoreError.state(.notARepository(path: path)) }
        if Repository.isOwnedByAnother(at: path) { throw StoreError.state(.notOwned(path: path)) }
        let repository = try StoreError.gate(writing: false) { try Repository.open(at: path) }
        guard !repository.isBare, let workdir = repository.workdir else {
            throw StoreError.state(.bareRepository(path: path))
        }
        let root = URL(fileURLWithPath: workdir)
        try checkFormat(root: root.path, shownAs: path)
        return Store(root: root, gitdir: repository.gitdir, repository: repository)
    }

    /// The object format of the git repository at `folder` when Docket cannot keep a store in it (`sha256`), else nil.
    public static func unsupportedObjectFormat(at folder: URL) -> String? {
        Repository.unsupportedObjectFormat(at: folder.standardizedFileURL.path)
    }

    /// The store `folder` is in, as git finds a repository: `folder` or the
    /// nearest folder above it that holds `.git` and `.docket/format.json`.
    public static func enclosing(_ folder: URL) -> URL? {
        var current = folder.standardizedFileURL
        while true {
            var info = stat()
            if lstat(current.path + "/" + StoreLayout.format, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                FileManager.default.fileExists(atPath: current.path + "/.git")
            {
                return current
            }
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path { return nil }
            current = parent
        }
    }

    /// The working folder of the git repository `folder` lies in, when it looks like a Docket store whose marker
    /// (`.docket/format.json`) is gone or is no file: Docket's own folder is in its `.git`, its `.gitattributes`
    /// names Docket's merge driver, or it has a `.docket` folder. Such a folder is never passed over for another
    /// store (`~/.docket`), as a command there would write to a store that is not synced.
    public static func lostMarker(around folder: URL) -> URL? {
        var current = folder.standardizedFileURL
        while true {
            if FileManager.default.fileExists(atPath: current.path + "/.git") {
                var info = stat()
                if lstat(current.path + "/" + StoreLayout.format, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
                    return nil
                }
                let attributes = (try? Folder.readFile(current.path + "/.gitattributes", limit: 1 << 20)).map {
                    String(decoding: $0, as: UTF8.self)
                }
                let looksLikeStore =
                    FileManager.default.fileExists(atPath: current.path + "/.git/docket")
                    // NB: a .docket that is a repository of its own is the default store in a home kept in git.
                    || (FileManager.default.fileExists(atPath: current.path + "/" + StoreLayout.docket)
                        && !FileManager.default.fileExists(atPath: current.path + "/" + StoreLayout.docket + "/.git"))
                    || attributes?.contains("merge=docket") == true
                return looksLikeStore ? current : nil
            }
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path { return nil }
            current = parent
        }
    }

    /// Makes `folder` a store: `git init` when it is not a repository yet,
    /// `.docket/format.json`, and a first commit. An existing store is opened as it is.
    public static func create(at folder: URL) throws -> Store {
        let path = folder.standardizedFileURL.path
        let repository = try StoreError.gate(writing: true) { () throws -> Repository in
            if Repository.isOwnedByAnother(at: path) { throw StoreError.state(.notOwned(path: path)) }
            if let format = Repository.unsupportedObjectFormat(at: path) {
                throw StoreError.state(.objectFormat(path: path, format: format))
            }
            if Repository.exists(at: path) { return try Repository.open(at: path) }
            return try Repository.create(at: path, branch: Repository.defaultBranchName())
        }
        guard !repository.isBare, let workdir = repository.workdir else {
            throw StoreError.state(.bareRepository(path: path))
        }
        if FileManager.default.fileExists(atPath: workdir + StoreLayout.format) { return try open(at: folder) }
        let store = Store(root: URL(fileURLWithPath: workdir), gitdir: repository.gitdir, repository: repository)
        try store.withLock {
            try StoreError.gate(writing: true) {
                try store.tree.makeFolder(StoreLayout.docket).write(
                    try DocketJSON.encode(FormatFile(format: format)), to: "format.json")
                if let attributes = store.attributesWithMergeDriver() {
                    try store.tree.write(attributes, to: ".gitattributes")
                }
            }
            _ = try store.commitHoldingLock(message: "Start a Docket store", including: [".gitattributes"])
        }
        return store.withMergeDriverFromPath()
    }

    /// Adds Docket's merge-driver lines to the store's `.gitattributes` and
    /// commits them, for a store made before they existed; false when it has them.
    public func addMergeAttributes() throws -> Bool {
        try withLock {
            guard let attributes = attributesWithMergeDriver() else { return false }
            try StoreError.gate(writing: true) { try tree.write(attributes, to: ".gitattributes") }
            _ = try commitHoldingLock(
                message: "Let git merge Docket's files with docket merge-driver", including: [".gitattributes"])
            return true
        }
    }

    /// The store's format, after checking this docket understands it.
    @discardableResult
    private static func checkFormat(root: String, shownAs path: String) throws -> Int {
        let data: Data
        do {
            data = try Folder.readFile(root + "/" + StoreLayout.format, limit: maximumFileSize)
        } catch FileProblem.missing {
            // NB: only here, off the hot path: a SHA-256 repository is no store Docket can make of it.
            throw StoreError.state(
                Repository.unsupportedObjectFormat(at: root).map { .objectFormat(path: path, format: $0) }
                    ?? .notAStore(path: path))
        } catch let problem as FileProblem {
            throw StoreError.state(.unreadableFormat(path: path, reason: problem.description))
        } catch {
            throw StoreError.state(.notAStore(path: path))
        }
        let found: FormatFile
        do {
            found = try DocketJSON.decode(FormatFile.self, from: data)
        } catch {
            throw StoreError.state(.unreadableFormat(path: path, reason: decodingReason(error)))
        }
        guard found.format <= format else { throw StoreError.state(.newerFormat(path: path, found: found.format)) }
        return found.format
    }

    /// Raises an older store's format to this docket's in the working tree,
    /// before a change is written; the next commit carries it. Older dockets
    /// then refuse the store, and a pull of it, with their "newer format" message.
    func raiseFormat() throws {
        let current = try foundFormat.value { try Store.checkFormat(root: rootPath, shownAs: rootPath) }
        if current < Store.format {
            try StoreError.gate(writing: true) {
                try tree.makeFolder(StoreLayout.docket).write(
                    try DocketJSON.encode(FormatFile(format: Store.format)), to: "format.json")
            }
        }
    }

    /// Refuses a store whose format a newer docket raised since this object opened it (a store kept open for days
    /// by an app or `sync --watch`), as a new command would refuse it: nothing is changed, committed or pushed. The
    /// format file is read again only when it changed; a missing or unreadable one is left to the write that needs it.
    func refuseNewerFormat() throws {
        do {
            _ = try foundFormat.value { try Store.checkFormat(root: rootPath, shownAs: rootPath) }
        } catch let StoreError.state(.newerFormat(path, found)) {
            throw StoreError.state(.newerFormat(path: path, found: found))
        } catch {
            return
        }
    }

    /// The short name of the store's branch ("main"); nil while HEAD is on no branch.
    public var branch: String? {
        guard let git = try? git, let ref = try? git.headBranch() else { return nil }
        return String(ref.dropFirst("refs/heads/".count))
    }

    /// The absolute path of a store path.
    func path(_ relative: String) -> String { rootPath + "/" + relative }

    // MARK: One writer at a time

    /// The lock file that keeps a second process from changing the store at the same time.
    public var lockFile: String { gitdir + "docket.lock" }

    /// Runs `body` holding the store's lock, waiting up to `timeout` seconds
    /// for another process to finish. The lock belongs to this process: if it
    /// ends in any way, the lock is free at once. Called inside `body`, it runs its own body at once: the lock is held.
    public func withLock<T>(timeout: TimeInterval = Store.lockTimeout, _ body: () throws -> T) throws -> T {
        if holdsLock { return try body() }
        try refuseUnusableRepository()
        try refuseNewerFormat()
        let lock = try StoreError.gate(writing: true) { try FileLock.acquire(lockFile, timeout: timeout) }
        holdsLock = true
        // Each locked operation finds the hooks afresh: one installed or removed since the last is heard of.
        foundHooks = nil
        // NB: hooks run once the lock is free, so one that runs docket is not kept waiting.
        defer {
            if keepsLock {
                keptLock = lock
            } else {
                holdsLock = false
                lock.release()
                runPendingHooks()
            }
        }
        return try body()
    }

    /// Stops keeping the lock (`keepsLock`), releasing it when it was taken.
    func releaseKeptLock() {
        keepsLock = false
        guard let lock = keptLock else { return }
        keptLock = nil
        holdsLock = false
        lock.release()
        runPendingHooks()
    }

    /// Refuses, before anything is changed, a repository git has put in a
    /// form Docket cannot work with: `core.bare` set in the store's own
    /// configuration, or an index libgit2 cannot read (split, sparse, newer).
    /// An index Docket noted is one it read, and is not read again here.
    func refuseUnusableRepository() throws {
        let common = Store.commonDir(gitdir)
        if Store.saysBare(configAt: common + "config") { throw StoreError.state(.bareSetting(root: rootPath)) }
        // git shows other objects in place of those stored (`git replace`, grafts); Docket reads them as stored.
        if FileManager.default.fileExists(atPath: common + "info/grafts") {
            throw StoreError.state(.grafts(root: rootPath))
        }
        if Store.hasReplaceRefs(common), (try? git.repository.configBool("core.useReplaceRefs")) != false,
            ProcessInfo.processInfo.environment["GIT_NO_REPLACE_OBJECTS"] == nil
        {
            throw StoreError.state(.replaceRefs(root: rootPath))
        }
        guard !Repository.indexIsNoted(gitdir: gitdir) else { return }
        if let reason = Repository.unreadableIndexReason(gitdir: gitdir) {
            throw StoreError.state(.unreadableIndex(reason, root: rootPath))
        }
    }

    /// Refuses a store at `root` when git's environment names another
    /// repository (`GIT_DIR`) or working tree (`GIT_WORK_TREE`): git and the
    /// git programs Docket runs would work on that one. Set as git sets them
    /// for a hook run in the store, they name the store, and pass.
    public static func refuseGitEnvironment(
        for root: URL, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        func resolved(_ path: String) -> String {
            URL(fileURLWithPath: path, relativeTo: WorkingFolder.url)
                .standardizedFileURL.resolvingSymlinksInPath().path
        }
        let top = resolved(root.path)
        // A linked worktree's (or a --separate-git-dir clone's) .git is a file naming its git folder.
        var gitdir = top + "/.git"
        if let data = try? Folder.readFile(gitdir, limit: 1 << 12),
            case let text = String(decoding: data, as: UTF8.self), text.hasPrefix("gitdir: ")
        {
            let named = text.dropFirst("gitdir: ".count).trimmingCharacters(in: .whitespacesAndNewlines)
            gitdir = named.hasPrefix("/") ? resolved(named) : resolved(top + "/" + named)
        }
        for (variable, expected) in [("GIT_DIR", gitdir), ("GIT_WORK_TREE", top)] {
            guard let value = environment[variable], !value.isEmpty, resolved(value) != expected else { continue }
            throw StoreError.state(
                .gitEnvironment(variable: variable, value: value, root: root.standardizedFileURL.path))
        }
    }

    /// The git folder shared by all worktrees, for the git folder `gitdir` (a linked worktree's names it in
    /// `commondir`).
    static func commonDir(_ gitdir: String) -> String {
        guard let data = try? Folder.readFile(gitdir + "commondir", limit: 1 << 12) else { return gitdir }
        let named = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let path = named.hasPrefix("/") ? named : gitdir + named
        return URL(fileURLWithPath: path).standardizedFileURL.path + "/"
    }

    /// Whether the repository whose common git folder is `common` has a replacement reference (`git replace`).
    static func hasReplaceRefs(_ common: String) -> Bool {
        if let enumerator = FileManager.default.enumerator(atPath: common + "refs/replace") {
            for case let name as String in enumerator where !name.isEmpty {
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: common + "refs/replace/" + name, isDirectory: &isFolder),
                    !isFolder.boolValue
                {
                    return true
                }
            }
        }
        guard let packed = try? Folder.readFile(common + "packed-refs", limit: 1 << 30) else { return false }
        return String(decoding: packed, as: UTF8.self).contains(" refs/replace/")
    }

    /// Whether the git configuration file at `path` sets `core.bare` to true (read as git reads a plain file, without
    /// includes).
    static func saysBare(configAt path: String) -> Bool {
        guard let data = try? Folder.readFile(path, limit: 1 << 20) else { return false }
        var section = ""
        var bare = false
        for raw in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces).lowercased()
            if line.hasPrefix("[") {
                section = String(line.dropFirst().prefix { $0 != "]" && $0 != " " && $0 != "\"" })
                continue
            }
            guard section == "core" else { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.first == "bare" else { continue }
            let value =
                parts.count > 1
                ? String(parts[1].prefix { $0 != "#" && $0 != ";" }).trimmingCharacters(in: .whitespaces) : "true"
            bare = ["true", "yes", "on", "1"].contains(value)
        }
        return bare
    }

    /// How long a command waits for another docket process: `DOCKET_LOCK_TIMEOUT` seconds, else 3.
    public static var lockTimeout: TimeInterval {
        ProcessInfo.processInfo.environment["DOCKET_LOCK_TIMEOUT"].flatMap(TimeInterval.init) ?? 3
    }
}

/// `.docket/format.json`.
struct FormatFile: Codable {
    let format: Int
}

extension StoreError {
    /// Runs `body`, turning a lower layer's failure into a store error.
    static func gate<T>(writing: Bool, _ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw wrapping(error, writing: writing) }
    }
}
