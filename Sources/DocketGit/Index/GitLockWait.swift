import DocketCGit2
import DocketSystem
import Foundation

extension Repository {
    /// How long a write waits for one of git's lock files that another program holds (a plain `git status` takes
    /// `index.lock` for a moment to refresh the index): `DOCKET_LOCK_TIMEOUT` seconds, as for docket's own lock, else 3.
    public static var gitLockWait: TimeInterval {
        ProcessInfo.processInfo.environment["DOCKET_LOCK_TIMEOUT"].flatMap(TimeInterval.init).map { max(0, $0) } ?? 3
    }

    /// Runs `attempt` again while it fails on a git lock file that another process holds (`GitError.isLocked`), for
    /// up to `gitLockWait`, pausing 1 ms, then twice as long each time up to 100 ms, as git waits for its reference
    /// locks (`core.filesRefLockTimeout`); then throws the last failure. It stops waiting early, after one more try,
    /// when `lockFile` is left by a process that is gone (`AbandonedLocks`), which the store's own retry removes.
    func waitingForGitLock<T>(_ lockFile: String, _ attempt: () throws -> T) throws -> T {
        let deadline = Date().addingTimeInterval(Self.gitLockWait)
        var pause: TimeInterval = 0.001
        var lastLook = Date()
        while true {
            do {
                return try attempt()
            } catch let error as GitError where error.isLocked {
                let now = Date()
                guard now < deadline else { throw error }
                if now.timeIntervalSince(lastLook) >= 0.25 {
                    lastLook = now
                    // NB: a lock whose writer has just renamed it into place and ended looks abandoned for a moment
                    // (seen, then no process holding it): one more try tells them apart.
                    if AbandonedLocks.isAbandoned(lockFile) { return try attempt() }
                }
                Thread.sleep(forTimeInterval: min(pause, deadline.timeIntervalSince(now)))
                pause = min(pause * 2, 0.1)
            }
        }
    }

    /// Writes `index` to the index file (`git_index_write`), waiting for git's `index.lock` as `waitingForGitLock`
    /// does.
    func writeIndexFile(_ index: OpaquePointer) throws {
        try waitingForGitLock(gitdir + "index.lock") { _ = try check(git_index_write(index), "git_index_write") }
    }
}
