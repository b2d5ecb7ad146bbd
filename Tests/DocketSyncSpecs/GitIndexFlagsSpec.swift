import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// What git's index says about a file (sparse checkouts, `update-index
/// --assume-unchanged` and `--skip-worktree`, `add -N`) is judged as git
/// judges it: a file git was told not to look at is never committed, and
/// never removed, by any docket command.
final class GitIndexFlagsSpec: QuickSpec {
    override class func spec() {
        var machines: TwoMachines!
        var laptop: Machine { machines.laptop }
        var desk: Machine { machines.desk }
        /// Ids whose files lie in two folders of the store: todos/0A/ and todos/B0/.
        let left = (1...3).map { UUID(uuidString: String(format: "0A000000-0000-4000-8000-%012d", $0))! }
        let kept = (1...3).map { UUID(uuidString: String(format: "B0000000-0000-4000-8000-%012d", $0))! }
        func path(_ id: UUID) -> String { "todos/\(id.uuidString.prefix(2))/\(id.uuidString).json" }
        beforeEach {
            machines = TwoMachines("docket-indexflags")
            let made = Date(timeIntervalSince1970: 1_795_339_800)
            let store = try! Store.open(at: laptop.folder)
            for (n, id) in (left + kept).enumerated() {
                try! store.addTodo(
                    TodoItem(
                        id: id, text: "Todo \(n)", creationDate: made, completed: false, dueDate: nil, alterDate: made))
            }
            laptop.run("sync")
            runCommand(docketBinary, ["clone", machines.remote.path, desk.folder.path])
        }
        afterEach { try? FileManager.default.removeItem(at: machines.root) }
        func remoteTodos() -> Int {
            gitCLI(["ls-tree", "-r", "--name-only", "main", "todos"], in: machines.remote).stdout.split(separator: "\n")
                .count
        }

        for (mode, command) in [
            ("non-cone", ["sparse-checkout", "set", "--no-cone", "/*", "!/todos/0A/"]),
            ("cone", ["sparse-checkout", "set", ".docket", "projects"]),
        ] {
            it("keeps every todo a \(mode) sparse checkout leaves out, through status, commit and sync") {
                expect(gitCLI(command, in: laptop.folder).status) == 0
                expect(FileManager.default.fileExists(atPath: laptop.folder.appendingPathComponent(path(left[0])).path))
                    == false
                expect(laptop.run("status").stdout).to(contain("Nothing to commit"))
                expect(laptop.run("status").stdout).to(contain("Nothing to commit"))
                laptop.run("add", "Written while sparse")
                expect(laptop.run("sync").status) == 0
                expect(remoteTodos()) == 7
                expect(laptop.git("status", "--porcelain")) == ""
                expect(desk.run("sync").status) == 0
                expect(desk.state.todos.count) == 7
            }

            it("never commits the removal of a file a \(mode) sparse checkout leaves out and git is told to look at") {
                expect(gitCLI(command, in: laptop.folder).status) == 0
                // Its skip-worktree bit cleared: git shows it removed, yet `git commit -a` leaves it in.
                laptop.git("update-index", "--no-skip-worktree", path(left[0]))
                expect(laptop.git("status", "--porcelain")) == " D \(path(left[0]))\n"
                let head = laptop.head
                expect(laptop.run("commit").status) == 0
                expect(laptop.head) == head
                laptop.run("add", "Written while sparse")
                expect(laptop.run("sync").status) == 0
                expect(laptop.git("ls-tree", "-r", "--name-only", "HEAD", "todos")).to(contain(path(left[0])))
                expect(remoteTodos()) == 7
                expect(desk.run("sync").status) == 0
                expect(desk.state.todo(id: left[0])).notTo(beNil())
            }
        }

        it("takes in a pull that changes a file a sparse checkout left out, and its neighbours stay out") {
            gitCLI(["sparse-checkout", "set", "--no-cone", "/*", "!/todos/0A/"], in: laptop.folder)
            desk.run("edit", left[0].uuidString, "Changed on the desk")
            desk.run("edit", kept[0].uuidString, "Also changed on the desk")
            desk.run("sync")
            expect(laptop.run("sync").status) == 0
            expect(laptop.state.todo(id: left[0])?.text) == "Changed on the desk"
            expect(laptop.state.todo(id: kept[0])?.text) == "Also changed on the desk"
            expect(laptop.git("ls-files", "-v", path(left[1]))).to(beginWith("S "))
            expect(laptop.git("status", "--porcelain")) == ""
            expect(laptop.run("status").stdout).to(contain("Nothing to commit"))
        }

        for flag in ["assume-unchanged", "skip-worktree"] {
            it("leaves a hand edit of a file marked \(flag) out of status and commit, as git does, and keeps the mark")
            {
                laptop.git("update-index", "--\(flag)", path(kept[0]))
                let file = laptop.folder.appendingPathComponent(path(kept[0]))
                let text = try! String(contentsOf: file, encoding: .utf8).replacingOccurrences(
                    of: "Todo 3", with: "Hand edit")
                try! text.write(to: file, atomically: false, encoding: .utf8)
                for _ in 1...2 { expect(laptop.run("status").stdout).to(contain("Nothing to commit")) }
                expect(laptop.git("status", "--porcelain")) == ""
                laptop.run("done", kept[1].uuidString)
                expect(laptop.run("commit").status) == 0
                expect(laptop.git("show", "HEAD:" + path(kept[0]))).notTo(contain("Hand edit"))
                expect(laptop.git("ls-files", "-v", path(kept[0]))).to(beginWith(flag == "skip-worktree" ? "S " : "h "))
            }

            it("names a hand edit of a file marked \(flag) that a pull would overwrite, and its advice keeps the edit")
            {
                laptop.git("update-index", "--\(flag)", path(kept[0]))
                let file = laptop.folder.appendingPathComponent(path(kept[0]))
                let text = try! String(contentsOf: file, encoding: .utf8).replacingOccurrences(
                    of: "Todo 3", with: "Hand edit")
                try! text.write(to: file, atomically: false, encoding: .utf8)
                desk.run("edit", kept[0].uuidString, "Changed on the desk")
                desk.run("sync")
                let refused = laptop.run("sync")
                expect(refused.status) != 0
                expect(refused.stderr).to(contain(path(kept[0])))
                expect(refused.stderr).to(contain("git update-index --no-\(flag) \(path(kept[0]))"))
                expect(try! String(contentsOf: file, encoding: .utf8)).to(contain("Hand edit"))
                // The advice, followed.
                laptop.git("update-index", "--no-\(flag)", path(kept[0]))
                expect(laptop.run("sync").status) == 0
                // The hand edit is dated when it is committed, after the desk's edit: it wins, and the desk's is
                // recorded.
                expect(laptop.state.todo(id: kept[0])?.text) == "Hand edit"
                expect(laptop.run("merges").stdout).to(contain("Changed on the desk"))
            }
        }

        it("looks, as git does, at a skip-worktree file that is there while a sparse checkout is on") {
            gitCLI(["sparse-checkout", "set", "--no-cone", "/*", "!/todos/0A/"], in: laptop.folder)
            laptop.run("edit", kept[0].uuidString, "Edited in a sparse checkout")
            laptop.git("update-index", "--skip-worktree", path(kept[0]))
            expect(laptop.git("status", "--porcelain")) == " M \(path(kept[0]))\n"
            for _ in 1...2 {
                expect(laptop.run("status").stdout).to(contain("renamed to 'Edited in a sparse checkout'"))
            }
            expect(laptop.run("sync").status) == 0
            expect(desk.run("sync").status) == 0
            expect(desk.state.todo(id: kept[0])?.text) == "Edited in a sparse checkout"
        }

        it("commits a file added with git add -N as a new todo") {
            let id = UUID(uuidString: "C0000000-0000-4000-8000-000000000001")!
            let file = laptop.folder.appendingPathComponent(path(id))
            try! FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try! FileManager.default.copyItem(at: laptop.folder.appendingPathComponent(path(kept[0])), to: file)
            let text = try! String(contentsOf: file, encoding: .utf8).replacingOccurrences(
                of: kept[0].uuidString, with: id.uuidString)
            try! text.write(to: file, atomically: false, encoding: .utf8)
            laptop.git("add", "-N", path(id))
            expect(laptop.run("status").stdout).to(contain("added"))
            expect(laptop.run("commit").status) == 0
            expect(laptop.git("ls-tree", "-r", "--name-only", "HEAD")).to(contain(path(id)))
            expect(laptop.git("status", "--porcelain")) == ""
        }
    }
}
