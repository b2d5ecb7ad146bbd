import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// A partial clone made by git over the network (`git clone --filter` from a
/// real `git daemon` on 127.0.0.1) syncs: its first fetch makes it whole,
/// as git would fetch what it lacks from the promisor remote; until then,
/// a command that reads what it lacks refuses, and never misreports a merge.
final class PartialCloneSpec: QuickSpec {
    override class func spec() {
        var root: URL!
        var daemon: GitDaemon!
        var url: String!
        var laptop: Machine!
        var other: Machine!
        var partial: Machine!
        var id: String!
        beforeEach {
            root = temporaryFolder("docket-partial")
            let served = root.appendingPathComponent("served")
            let remote = served.appendingPathComponent("lists.git")
            try! FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
            gitCLI(["init", "-q", "--bare", "-b", "main", remote.path], in: root)
            gitCLI(["config", "uploadpack.allowFilter", "true"], in: remote)
            daemon = GitDaemon(serving: served)
            url = daemon.url("lists.git")
            laptop = Machine(folder: root.appendingPathComponent("laptop"))
            other = Machine(folder: root.appendingPathComponent("other"))
            partial = Machine(folder: root.appendingPathComponent("partial"))
            runCommand(docketBinary, ["clone", url, laptop.folder.path])
            laptop.run("add", "Buy milk")
            expect(laptop.run("sync").status) == 0
            id = laptop.state.todos[0].id.uuidString
            runCommand(docketBinary, ["clone", url, other.folder.path])
            // A merge git makes with Docket's driver, which drops a value: its record is worked out from its sides.
            laptop.run("edit", id, "Buy oat milk")
            expect(laptop.run("sync").status) == 0
            other.run("edit", id, "Buy soy milk")
            expect(other.run("commit").status) == 0
            expect(gitCLI(["pull", "-q", "--no-rebase"], in: other.folder).status) == 0
            expect(gitCLI(["push", "-q"], in: other.folder).status) == 0
            expect(other.run("merges").stdout).to(contain("lost \"Buy oat milk\""))
        }
        afterEach {
            daemon.stop()
            try? FileManager.default.removeItem(at: root)
        }

        func clonePartial(_ filter: String) {
            expect(gitCLI(["clone", "-q", "--filter=" + filter, url, partial.folder.path], in: root).status) == 0
            expect(partial.git("config", "remote.origin.partialclonefilter")).to(contain(filter))
        }
        func missingObjects() -> [Substring] {
            partial.git("rev-list", "--objects", "--all", "--missing=print").split(separator: "\n").filter {
                $0.hasPrefix("?")
            }
        }

        for filter in ["blob:none", "tree:0"] {
            context("when cloned with --filter=\(filter)") {
                it("refuses to report git's merge until a sync, as its advice says, makes the clone whole") {
                    clonePartial(filter)
                    let refused = partial.run("merges")
                    expect(refused.status) == 1
                    expect(refused.stderr).to(contain("this clone is partial (--filter=\(filter) from origin)"))
                    expect(refused.stdout).notTo(contain("no item needed a decision"))
                    expect(partial.run("merges", "restore", String(partial.head.prefix(7)), "1").status) == 1
                    let synced = partial.run("sync")
                    expect(synced.status) == 0
                    expect(synced.stderr).to(contain("this clone was partial (--filter=\(filter))"))
                    expect(missingObjects()) == []
                    expect(partial.run("merges").stdout).to(contain("lost \"Buy oat milk\""))
                    expect(partial.run("merges", "restore", String(partial.head.prefix(7)), "1").status) == 0
                    expect(partial.state.todos.map(\.text)) == ["Buy oat milk"]
                }

                it("works on after git sparse-checkout names the worktree's own configuration, as git does") {
                    clonePartial(filter)
                    expect(partial.git("sparse-checkout", "set", "--no-cone", "/*", "!/projects/")).to(beEmpty())
                    expect(partial.git("config", "extensions.worktreeConfig")).to(contain("true"))
                    expect(partial.git("config", "core.repositoryformatversion")).to(contain("1"))
                    let synced = partial.run("sync")
                    expect(synced.status).to(equal(0), description: synced.stderr)
                    partial.run("add", "Call the plumber")
                    expect(partial.run("sync").status) == 0
                    expect(partial.run("status").stdout).to(contain("Nothing to commit"))
                    expect(partial.git("status", "--porcelain")) == ""
                    expect(laptop.run("sync").status) == 0
                    expect(laptop.state.todos.map(\.text).sorted()) == ["Buy soy milk", "Call the plumber"]
                }

                it("syncs edits both ways through the daemon, and git finds the clone whole") {
                    clonePartial(filter)
                    laptop.run("add", "From the laptop")
                    expect(laptop.run("sync").status) == 0
                    partial.run("add", "From the partial clone")
                    let synced = partial.run("sync")
                    expect(synced.status) == 0
                    expect(synced.stdout).to(contain("Pushed to origin"))
                    expect(laptop.run("sync").status) == 0
                    expect(Set(laptop.state.todos.map(\.text))) == Set(partial.state.todos.map(\.text))
                    expect(laptop.state.todos.count) == 3
                    expect(gitCLI(["fsck", "--strict"], in: partial.folder).status) == 0
                    expect(partial.git("status", "--porcelain")) == ""
                }
            }
        }
    }
}
