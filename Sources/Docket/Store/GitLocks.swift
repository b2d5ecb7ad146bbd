import DocketGit
import DocketSystem
import Foundation

// git's own lock files (`index.lock`, `refs/heads/main.lock`…) are made by
// creating the file and holding it open; a git, libgit2 or docket process
// killed meanwhile leaves one behind, and every later command fails on it.
// Holding the store's lock, Docket removes those whose writer is provably gone.
extension Store {
    /// Removes git lock files in this repository that no running process holds.
    func clearAbandonedGitLocks() {
        _ = AbandonedLocks.clear(Store.gitLockFiles(in: [gitdir, (try? git.repository.commonDir) ?? gitdir]))
    }

    /// The lock files git takes in these git folders: each may exist or not.
    static func gitLockFiles(in folders: [String]) -> [String] {
        Set(folders).sorted().flatMap { folder in
            ["index.lock", "HEAD.lock", "config.lock", "packed-refs.lock"].map { folder + $0 }
                + lockFiles(under: folder + "refs")
        }
    }

    /// The git lock files that exist in a repository, shown from its working tree when they are in it
    /// (".git/index.lock"): what a failure `GitError.isLocked` met, found by looking rather than read from its message.
    static func heldGitLocks(in repository: Repository) -> [String] {
        let found = gitLockFiles(in: [repository.gitdir, repository.commonDir])
            .filter { FileManager.default.fileExists(atPath: $0) }
        guard let workdir = repository.workdir else { return found }
        return found.map { $0.hasPrefix(workdir) ? String($0.dropFirst(workdir.count)) : $0 }
    }

    /// Runs `body`; when it fails on a git lock file on this machine (in this
    /// repository or in a remote reached by its path) that no process holds,
    /// removes the file and runs `body` once more.
    func retryingAbandonedLock<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            let locks = gitLocks(behind: error)
            guard !locks.isEmpty, AbandonedLocks.clear(locks).isEmpty else { throw error }
            return try body()
        }
    }

    /// The git lock files that exist where a failure met one: in this repository, or, for a refused push to a
    /// repository on this machine, the pushed branch's and packed-refs' in that folder.
    func gitLocks(behind error: StoreError) -> [String] {
        let here = { Store.gitLockFiles(in: [self.gitdir, (try? self.git.repository.commonDir) ?? self.gitdir]) }
        let candidates: [String]
        switch error {
        case let .git(error) where error.isLocked: candidates = here()
        case let .transfer(.other(_, error)) where error.isLocked: candidates = here()
        case let .state(.gitLocked(path)) where !path.isEmpty:
            candidates = [path.hasPrefix("/") ? path : rootPath + "/" + path]
        case .state(.gitLocked): candidates = here()
        case let .transfer(.rejected(url, reference, _)):
            guard let folder = RemoteURL.localPath(url) else { return [] }
            let gitdir = FileManager.default.fileExists(atPath: folder + "/.git") ? folder + "/.git" : folder
            candidates = [gitdir + "/" + reference + ".lock", gitdir + "/packed-refs.lock"]
        default: return []
        }
        return candidates.filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// Every `*.lock` file under a folder of git's references.
    static func lockFiles(under folder: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        var found: [String] = []
        while let name = walker.nextObject() as? String {
            if name.hasSuffix(".lock") { found.append(folder + "/" + name) }
        }
        return found
    }
}
