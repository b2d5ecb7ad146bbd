import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// A git program holding `.git/index.lock` for `seconds`, as a plain `git status` does while it refreshes the index:
/// it writes the index into the lock file, then renames it into place. Returns once the lock is taken.
private func holdIndexLock(in store: URL, seconds: Double) -> Process {
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: "/bin/sh")
    holder.currentDirectoryURL = store
    holder.arguments = [
        "-c",
        "set -o noclobber; exec 3>.git/index.lock; cat .git/index >&3; sleep \(seconds); mv .git/index.lock .git/index",
    ]
    try! holder.run()
    let lock = store.appendingPathComponent(".git/index.lock").path
    let deadline = Date().addingTimeInterval(5)
    while !FileManager.default.fileExists(atPath: lock) && Date() < deadline { usleep(5_000) }
    return holder
}

/// docket and git's `index.lock`: a write waits for a git program that holds it, a while, as git's own commands
/// wait for theirs.
final class GitIndexLockSpec: QuickSpec {
    override class func spec() {
        var folder: URL!
        beforeEach { folder = temporaryStore("docket-index-lock") }
        afterEach { try? FileManager.default.removeItem(at: folder) }

        describe("a commit while a git program holds the index's lock") {
            it("waits for it to finish, then commits") {
                docket("add", "Pay rent", store: folder)
                // NB: longer than the half second a commit first gives a fresh lock to go (`AbandonedLocks.settle`), so
                // the commit meets it when it writes the index.
                let holder = holdIndexLock(in: folder, seconds: 1.5)
                let committed = docket("commit", store: folder)
                holder.waitUntilExit()
                expect(committed.stderr) == ""
                expect(committed.status) == 0
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == ""
                expect(gitCLI(["log", "--format=%s"], in: folder).stdout).to(contain("Add 1 todo"))
            }

            it("fails when the program goes on holding it, naming the file and what to do") {
                docket("add", "Pay rent", store: folder)
                let holder = LockHolder(folder.appendingPathComponent(".git/index.lock").path)
                let refused = docket("commit", store: folder, environment: ["DOCKET_LOCK_TIMEOUT": "1"])
                expect(refused.status) == 1
                expect(refused.stderr).to(
                    contain(
                        "a running git program is changing the repository (it holds .git/index.lock); wait for it to finish, then try again"
                    ))
                holder.stop()
                try? FileManager.default.removeItem(at: folder.appendingPathComponent(".git/index.lock"))
                expect(docket("commit", store: folder).status) == 0
            }
        }
    }
}
