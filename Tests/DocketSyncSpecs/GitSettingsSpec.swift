import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// git's settings and environment, honoured as git honours them, or refused
/// before anything changes with a message whose advice works.
final class GitSettingsSpec: QuickSpec {
    override class func spec() {
        var root: URL!
        var store: Machine!
        beforeEach {
            root = temporaryFolder("docket-gitsettings")
            store = Machine(folder: root.appendingPathComponent("store"))
            runCommand(docketBinary, ["init", store.folder.path])
            store.run("add", "First")
            store.run("commit")
        }
        afterEach { try? FileManager.default.removeItem(at: root) }
        func files() -> String { store.git("ls-files") }

        /// Runs each git command a message quotes ('git …'), as a user would.
        func follow(_ message: String) {
            let quoted = try! NSRegularExpression(pattern: "'(git [^']+)'").matches(in: message, range: NSRange(message.startIndex..., in: message))
                .map { String(message[Range($0.range(at: 1), in: message)!]) }
            expect(quoted).notTo(beEmpty())
            for command in quoted {
                for part in command.components(separatedBy: " && ") {
                    expect(runCommand("/bin/sh", ["-c", part]).status).to(equal(0), description: part)
                }
            }
        }

        for (name, setUp) in [("split", ["-c", "core.splitIndex=true", "update-index", "--split-index"]),
                              ("sparse", ["sparse-checkout", "init", "--cone", "--sparse-index"])] {
            it("refuses a \(name) index before adding anything, and its advice makes the store work again") {
                expect(gitCLI(setUp, in: store.folder).status) == 0
                if name == "sparse" { expect(gitCLI(["sparse-checkout", "set", "todos", "projects", ".docket"], in: store.folder).status) == 0 }
                let before = files()
                let refused = store.run("add", "Second")
                expect(refused.status) != 0
                expect(refused.stderr).to(contain(name == "split" ? "split (core.splitIndex)" : "sparse index (index.sparse)"))
                expect(store.run("status").status) != 0
                expect(store.state.todos.map(\.text)) == ["First"]
                follow(refused.stderr)
                expect(store.run("add", "Second").status) == 0
                expect(store.run("commit").status) == 0
                expect(files()) != before
                expect(store.git("status", "--porcelain")) == ""
            }
        }

        it("refuses core.bare set in a store before adding anything, and its advice works") {
            store.git("config", "core.bare", "true")
            let refused = store.run("add", "Second")
            expect(refused.status) != 0
            expect(refused.stderr).to(contain("core.bare"))
            expect(store.run("status").stderr).to(contain("core.bare"))
            expect(store.run("commit").status) != 0
            expect(store.state.todos.count) == 1
            follow(refused.stderr)
            expect(store.run("add", "Second").status) == 0
            expect(store.run("commit").status) == 0
        }

        it("refuses a GIT_DIR naming another repository, and works where git's hooks set it to the store's") {
            let other = root.appendingPathComponent("other")
            gitCLI(["init", "-q", other.path], in: root)
            let refused = store.run("add", "Second", environment: ["GIT_DIR": other.appendingPathComponent(".git").path])
            expect(refused.status) != 0
            expect(refused.stderr).to(contain("GIT_DIR is set to"))
            expect(store.state.todos.count) == 1
            expect(store.run("add", "Second", environment: ["GIT_DIR": store.folder.appendingPathComponent(".git").path]).status) == 0
            // GIT_WORK_TREE names the store to work on, as it names git's working tree.
            let result = runCommand(docketBinary, ["list"], in: root,
                                    environment: ["GIT_WORK_TREE": store.folder.path, "GIT_DIR": store.folder.appendingPathComponent(".git").path])
            expect(result.stdout).to(contain("Second"))
        }

        it("keeps the executable bit out of commits when core.filemode is false, as git does") {
            store.git("config", "core.filemode", "false")
            let path = files().split(separator: "\n").first { $0.hasPrefix("todos/") }.map(String.init)!
            chmod(store.folder.appendingPathComponent(path).path, 0o755)
            expect(store.run("status").stdout).to(contain("Nothing to commit"))
            store.run("edit", String(path.split(separator: "/").last!.prefix(8)), "First, edited")
            expect(store.run("commit").status) == 0
            expect(store.git("ls-tree", "HEAD", path)).to(beginWith("100644"))
            expect(store.git("status", "--porcelain")) == ""
        }

        it("commits a changed executable bit when core.filemode is true, and status says so, as git does") {
            let path = files().split(separator: "\n").first { $0.hasPrefix("todos/") }.map(String.init)!
            chmod(store.folder.appendingPathComponent(path).path, 0o755)
            expect(store.run("status").stdout).notTo(contain("Nothing to commit"))
            expect(store.run("commit").status) == 0
            expect(store.git("ls-tree", "HEAD", path)).to(beginWith("100755"))
            expect(store.git("status", "--porcelain")) == ""
        }

        it("keeps a merge driver the user chose, also when a new linked worktree is used") {
            store.git("config", "merge.docket.driver", "my-wrapper %O %A %B %P")
            let worktree = root.appendingPathComponent("worktree")
            expect(gitCLI(["worktree", "add", "-q", "-b", "side", worktree.path], in: store.folder).status) == 0
            expect(Machine(folder: worktree).run("list").status) == 0
            expect(store.run("list").status) == 0
            expect(store.git("config", "merge.docket.driver")) == "my-wrapper %O %A %B %P\n"
        }
    }
}
