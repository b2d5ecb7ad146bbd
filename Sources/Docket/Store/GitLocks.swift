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
        var candidates: [String] = []
        for folder in Set([gitdir, (try? git.repository.commonDir) ?? gitdir]) {
            candidates += ["index.lock", "HEAD.lock", "config.lock", "packed-refs.lock"].map { folder + $0 }
            candidates += Store.lockFiles(under: folder + "refs")
        }
        _ = AbandonedLocks.clear(candidates)
    }

    /// Runs `body`; when it fails on a git lock file on this machine (in this
    /// repository or in a remote reached by its path) that no process holds,
    /// removes the file and runs `body` once more.
    func retryingAbandonedLock<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            guard let lock = error.lockFile, AbandonedLocks.clear([lock]).isEmpty else { throw error }
            return try body()
        }
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

extension StoreError {
    /// The lock file a failure of git's names, when it failed to take one.
    var lockFile: String? {
        let message: String
        switch self {
        case let .git(error): message = error.message
        case let .transfer(.other(_, error)): message = error.message
        case let .transfer(.rejected(_, _, reason)): message = reason
        case let .state(.gitLocked(path)): return path
        default: return nil
        }
        guard let range = message.range(of: #"'[^']+\.lock'"#, options: .regularExpression) else { return nil }
        return String(message[range].dropFirst().dropLast())
    }
}
