import DocketGit
import DocketSystem
import Foundation

extension Store {
    /// The configured remotes.
    public func remotes() throws -> [RemoteInfo] { try git.remotes() }

    /// Adds a remote. When it answers, the branch the store follows there is
    /// chosen now (`followed`); when it does not, `unreachable` says why and
    /// the remote is kept, for the first sync to try again.
    @discardableResult
    public func addRemote(_ name: String, url: String, options: TransferOptions = .fromEnvironment()) throws
        -> AddedRemote
    {
        try Store.refuseUnsafe(url)
        if !Repository.isValidRemoteName(name) || name.hasPrefix("-") {
            throw StoreError.input(.invalidRemoteName(name))
        }
        if try remotes().contains(where: { $0.name == name }) { throw StoreError.input(.remoteExists(name)) }
        let stored = RemoteURL.absolute(url, from: WorkingFolder.path)
        try git.addRemote(name, url: stored)
        do {
            let followed = try StoreError.gate(writing: true) { try followNewRemote(name, options: options) }
            return AddedRemote(url: stored, followed: followed, unreachable: nil)
        } catch let error as StoreError {
            return AddedRemote(url: stored, followed: nil, unreachable: error)
        }
    }

    /// What `addRemote` found out about the remote.
    public struct AddedRemote: Sendable {
        /// The URL as kept: a relative path made absolute.
        public let url: String
        /// The remote branch the store now follows, when the remote has branches.
        public let followed: String?
        /// Why the remote could not be asked, or no branch was chosen.
        public let unreachable: StoreError?
    }

    /// Removes a remote.
    public func removeRemote(_ name: String) throws {
        guard try remotes().contains(where: { $0.name == name }) else { throw StoreError.input(.unknownRemote(name)) }
        try git.removeRemote(name)
    }

    /// The remote to use: the one named, else origin, else the only one.
    public func remoteName(_ name: String?) throws -> String {
        let all = try remotes().map(\.name)
        if let name {
            guard all.contains(name) else { throw StoreError.input(.unknownRemote(name)) }
            return name
        }
        if all.contains("origin") { return "origin" }
        if all.count == 1 { return all[0] }
        throw all.isEmpty ? StoreError.state(.noRemote) : StoreError.input(.unknownRemote("origin"))
    }

    /// Makes an empty bare repository at `folder` (`git init --bare` on main),
    /// for stores to clone and sync through; returns the folder, to give `clone` or `addRemote`.
    @discardableResult
    public static func createRemote(at folder: URL) throws -> URL {
        let folder = folder.standardizedFileURL
        _ = try StoreError.gate(writing: true) { try Repository.createBare(at: folder.path) }
        return folder
    }

    /// The file that marks a clone whose checkout has begun and not ended: it holds the cloning process's id.
    static func cloneMarker(_ gitdir: String) -> String { gitdir + "docket-clone" }

    /// The file beside a clone's folder that says a clone is filling it, with
    /// the cloning process's id, until what it took in is checked.
    static func unfinishedCloneMarker(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).docket-clone").path
    }

    /// Whether the clone a marker names was killed: its process is gone.
    static func cloneWasAbandoned(_ marker: String) -> Bool {
        guard let data = try? Folder.readFile(marker, limit: 64),
            let pid = Int32(
                String(decoding: data, as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines))
        else { return false }
        return pid == getpid() || !Spawn.isAlive(pid)
    }

    /// Finishes the checkout of a clone a killed process left half written,
    /// before anything reads the store: without it, the files not yet written
    /// (and an index not yet written at all) would read as removed, and the
    /// next commit would remove them. What the clone took in was checked
    /// before the marker was written, so the branch is checked out whole again.
    static func finishInterruptedClone(at path: String) throws {
        let marker = cloneMarker(path + "/.git/")
        guard let data = try? Folder.readFile(marker, limit: 64) else { return }
        if let pid = pid_t(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
            pid != getpid(), Spawn.isAlive(pid)
        {
            throw StoreError.state(.cloneRunning(path: path))
        }
        // NB: the killed clone may have left the index's lock file, which no process holds.
        _ = AbandonedLocks.clear([path + "/.git/index.lock"])
        let git = StoreGit(repository: try StoreError.gate(writing: false) { try Repository.open(at: path) })
        if let head = try git.head() {
            try git.checkout(head, force: true)
            try git.noteIndexHoldsWithTreeCache(try git.tree(ofCommit: head))
        }
        try? FileManager.default.removeItem(atPath: marker)
    }

    /// Takes out the `[branch "…"]` sections of branches a new clone neither has nor is on. libgit2 sets one
    /// up for the branch the remote's HEAD names, or for its own default (`master`) when the remote has none
    /// yet, even when the remote lacks that branch and the store takes another: the clone's configuration
    /// would name a branch that does not exist.
    static func dropStaleBranchConfig(_ git: StoreGit) throws {
        let head = try git.headBranch().map { String($0.dropFirst("refs/heads/".count)) }
        let branches = Set(
            try git.references(startingWith: "refs/heads/").keys.map { String($0.dropFirst("refs/heads/".count)) })
        for name in try git.configuredBranches() where name != head && !branches.contains(name) {
            try git.removeBranchConfig(name)
        }
    }

    /// Adds a remote at `url`: a folder (a file URL) or a remote's address (`https:`, `ssh:`, `git:`); see
    /// `addRemote(_:url:options:)` for the String form, which also takes scp-like `host:path` addresses.
    @discardableResult
    public func addRemote(_ name: String, url: URL, options: TransferOptions = .fromEnvironment()) throws
        -> AddedRemote
    {
        try addRemote(name, url: Store.address(of: url), options: options)
    }

    /// What git is given for `url`: a folder's path, else the URL as written.
    static func address(of url: URL) -> String {
        url.isFileURL ? url.standardizedFileURL.path : url.absoluteString
    }

    /// Refuses an address that would keep a secret in the repository's files, or that another program could misread.
    static func refuseUnsafe(_ url: String) throws {
        if RemoteURL.hasUserInfo(url) { throw StoreError.input(.passwordInURL(shown: RemoteURL.redacted(url))) }
        if let reason = RemoteURL.refusal(url) {
            throw StoreError.input(.unsafeURL(shown: RemoteURL.redacted(url), reason: reason))
        }
    }

    /// Clones the store at `url` (a folder, as a file URL, or a remote's address) into `folder`
    /// (`clone(url:into:options:)` with git's address for it).
    public static func clone(url: URL, into folder: URL, options: TransferOptions = .fromEnvironment()) throws
        -> Store
    {
        try clone(url: address(of: url), into: folder, options: options)
    }

    /// Clones the store at `url` into `folder`; an empty remote becomes a new store there.
    public static func clone(url: String, into folder: URL, options: TransferOptions = .fromEnvironment()) throws
        -> Store
    {
        let path = folder.standardizedFileURL.path
        try refuseUnsafe(url)
        let started = unfinishedCloneMarker(path)
        if let contents = try? FileManager.default.contentsOfDirectory(atPath: path), !contents.isEmpty {
            // A clone killed before what it took in was checked left this folder, and nothing in it is anyone's:
            // this clone starts it again. (One killed later is finished by the next command in the folder.)
            // NB: libgit2 may leave a temporary file of its own (_git2_…) beside the .git it was making.
            guard contents.allSatisfy({ $0 == ".git" || $0.hasPrefix("_git2_") }), cloneWasAbandoned(started) else {
                throw StoreError.input(.folderNotEmpty(path))
            }
            try StoreError.gate(writing: true) { try FileManager.default.removeItem(atPath: path) }
            options.warning?("\(path) held a clone that was killed before it finished; starting it again")
        }
        try StoreError.gate(writing: true) {
            try AtomicFile.write(Data("\(getpid())\n".utf8), to: started, durable: false)
        }
        defer { try? FileManager.default.removeItem(atPath: started) }
        Fault.point("clone-started")
        let repository: Repository
        do {
            repository = try StoreError.gate(writing: true) {
                try Repository.clone(
                    url: url, to: path, mirror: writersMirror("origin"), options: options, checkout: false)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        Fault.point("after-clone-fetch")
        let git = StoreGit(repository: repository)
        var files: [SetAsideFile] = []
        do {
            if try git.head() == nil {
                // NB: a bare remote made by 'git init --bare' may name a HEAD branch
                // that does not exist (master); take its main branch, or its only one.
                let branches = try git.references(startingWith: "refs/remotes/origin/").filter {
                    $0.key != "refs/remotes/origin/HEAD"
                }
                let chosen =
                    branches["refs/remotes/origin/main"].map { ("main", $0) }
                    ?? (branches.count == 1
                        ? branches.first.map { (String($0.key.dropFirst("refs/remotes/origin/".count)), $0.value) }
                        : nil)
                guard let (name, commit) = chosen else {
                    // An empty remote: start the store here, as 'docket init' would.
                    try git.setHead("refs/heads/\(Repository.defaultBranchName())")
                    try dropStaleBranchConfig(git)
                    return try create(at: folder)
                }
                try git.setReference("refs/heads/\(name)", to: commit, message: "docket: clone")
                try git.setHead("refs/heads/\(name)")
                try git.setConfig("branch.\(name).remote", to: "origin")
                try git.setConfig("branch.\(name).merge", to: "refs/heads/\(name)")
                try dropStaleBranchConfig(git)
            }
            // Nothing is checked out until what came is known to be good; what is not is set aside, on top.
            var head = try git.head()!
            if try git.entry(inTree: try git.tree(ofCommit: head), at: StoreLayout.format) == nil {
                throw StoreError.state(
                    .remoteNotAStore(
                        url: RemoteURL.redacted(url),
                        branch: try git.headBranch().map { String($0.dropFirst("refs/heads/".count)) } ?? "HEAD"))
            }
            let branch = try git.headBranch() ?? "refs/heads/main"
            let setAside = try git.writingObjectsTogether {
                try git.settingAside(
                    head, ours: nil, since: nil, remoteBranch: "origin/" + branch.dropFirst("refs/heads/".count))
            }
            files = setAside.files
            if setAside.commit != head {
                head = setAside.commit
                try git.setReference(branch, to: head, message: "docket: clone, setting aside what cannot be taken in")
            }
            let progress = ProgressThrottle(options.progress)
            let contents = try IntakeCheck(git: git, progress: progress, keepsContentsUpTo: 20_000).check(
                head, since: nil)
            // What came is good: from here on, a clone killed before its index is written is finished by the next
            // command.
            try StoreError.gate(writing: true) {
                try AtomicFile.write(Data("\(getpid())\n".utf8), to: cloneMarker(git.gitdir))
            }
            try? FileManager.default.removeItem(atPath: started)
            if try !git.checkoutIntoEmpty(head, contents: contents, progress: progress) {
                try git.checkout(head, force: true, progress: progress)
                try git.noteIndexHoldsWithTreeCache(try git.tree(ofCommit: head))
            }
            try? FileManager.default.removeItem(atPath: cloneMarker(git.gitdir))
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        let store = try open(at: folder).withMergeDriverFromPath()
        store.noteSetAside(files)
        // What writers published beside the shared branch came too (the clone's fetch took their references), so
        // a new machine sees everything.
        _ = try? store.withLock {
            try store.takeWritersHoldingLock(
                store.git.references(startingWith: seenWriters("origin")), remote: "origin", options: options)
        }
        return store
    }
}
