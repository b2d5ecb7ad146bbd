import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

final class SyncSpec: QuickSpec {
    override class func spec() {
        var root: URL!
        var remote: URL!
        var laptop: Machine!
        var desk: Machine!
        beforeEach {
            let machines = TwoMachines("docket-sync")
            (root, remote, laptop, desk) = (machines.root, machines.remote, machines.laptop, machines.desk)
        }
        afterEach { try? FileManager.default.removeItem(at: root) }
        func cloneDesk() { runCommand(docketBinary, ["clone", remote.path, desk.folder.path]) }
        /// Gives the remote another branch, a plain and an annotated tag, and another writer's reference, all on
        /// its main branch's tip (which a clone takes anyway): only what is asked for is fetched.
        func addRefsBesideMain(_ suffix: String) {
            gitCLI(["branch", "side-\(suffix)", "main"], in: remote)
            gitCLI(["tag", "plain-\(suffix)", "main"], in: remote)
            gitCLI(["tag", "-a", "-m", "Annotated", "annotated-\(suffix)", "main"], in: remote)
            gitCLI(["update-ref", "refs/docket/writers/other\(suffix)", "main"], in: remote)
        }
        /// Checks the desk holds the followed branch and the writers' references, and no tag nor other branch.
        func expectOnlyFollowedAndWriters(_ writers: [String]) {
            expect(desk.git("for-each-ref", "--format=%(refname)", "refs/tags/")) == ""
            // origin/HEAD names origin/main, as a plain clone's does.
            expect(desk.git("for-each-ref", "--format=%(refname)", "refs/remotes/"))
                == "refs/remotes/origin/HEAD\nrefs/remotes/origin/main\n"
            expect(desk.git("rev-parse", "refs/remotes/origin/main")) == laptop.head + "\n"
            expect(desk.git("for-each-ref", "--format=%(refname)", "refs/docket/seen/origin/"))
                == writers.map { "refs/docket/seen/origin/other\($0)\n" }.joined()
            // A plain clone's fetch settings, so that `git fetch` takes every branch, and tags as git does.
            expect(desk.git("config", "--get-all", "remote.origin.fetch")) == "+refs/heads/*:refs/remotes/origin/*\n"
            expect(desk.git("config", "branch.main.merge")) == "refs/heads/main\n"
        }

        describe("clone") {
            it("takes the main branch of a remote whose HEAD names a branch it does not have") {
                laptop.run("add", "Buy milk")
                laptop.run("sync")
                gitCLI(["symbolic-ref", "HEAD", "refs/heads/master"], in: remote)
                cloneDesk()
                expect(desk.state.todos.map(\.text)) == ["Buy milk"]
                expect(desk.head) == laptop.head
            }
            it("sets up only the branch it takes, naming in its configuration no branch that does not exist") {
                laptop.run("add", "Buy milk")
                laptop.run("sync")
                gitCLI(["symbolic-ref", "HEAD", "refs/heads/master"], in: remote)
                cloneDesk()
                expect(desk.git("config", "--local", "--get-regexp", "^branch\\."))
                    == "branch.main.remote origin\nbranch.main.merge refs/heads/main\n"
                let config = try! String(
                    contentsOf: desk.folder.appendingPathComponent(".git/config"), encoding: .utf8)
                expect(config).toNot(contain("[branch \"master\"]"))
            }
            it("makes a store on main from an empty remote") {
                expect(laptop.git("symbolic-ref", "HEAD")) == "refs/heads/main\n"
                expect(
                    FileManager.default.fileExists(
                        atPath: laptop.folder.appendingPathComponent(".docket/format.json").path)) == true
            }
            it("follows no branch from an empty remote until its first push, which sets up the branch it pushed") {
                let config = laptop.folder.appendingPathComponent(".git/config")
                expect(try! String(contentsOf: config, encoding: .utf8)).toNot(contain("[branch "))
                laptop.run("add", "Buy milk")
                expect(laptop.run("sync").status) == 0
                expect(laptop.git("config", "--local", "--get-regexp", "^branch\\."))
                    == "branch.main.remote origin\nbranch.main.merge refs/heads/main\n"
                expect(try! String(contentsOf: config, encoding: .utf8)).toNot(contain("[branch \"master\"]"))
            }
            it("copies a store with its todos") {
                laptop.run("add", "Buy milk")
                laptop.run("sync")
                cloneDesk()
                expect(desk.state.todos.map(\.text)) == ["Buy milk"]
                expect(desk.git("status", "--porcelain")) == ""
            }
            it("leaves every file and index entry as git's own clone does: nothing to refresh, nothing staged") {
                laptop.run("add", "Buy milk")
                laptop.run("project", "add", "Garden")
                laptop.run("sync")
                cloneDesk()
                // Each entry's stat data is its file's (diff-files compares them), its blob and mode HEAD's.
                expect(runCommand("git", ["diff-files", "--quiet"], in: desk.folder).status) == 0
                expect(runCommand("git", ["diff", "--cached", "--quiet"], in: desk.folder).status) == 0
                let staged = desk.git("ls-files", "-s").split(separator: "\n").map {
                    $0.replacingOccurrences(of: " 0\t", with: " ")
                }
                let committed = desk.git("ls-tree", "-r", "HEAD").split(separator: "\n").map {
                    $0.replacingOccurrences(of: " blob ", with: " ").replacingOccurrences(of: "\t", with: " ")
                }
                expect(staged) == committed
                expect(desk.git("status", "--porcelain")) == ""
                expect(desk.run("status").stdout).to(contain("Nothing to commit"))
            }
            it("checks out an executable file, a link and a file git converts outside the store's folders as git does")
            {
                laptop.run("add", "Buy milk")
                laptop.run("sync")
                let folder = laptop.folder
                try! "#!/bin/sh\necho hi\n".write(
                    to: folder.appendingPathComponent("run.sh"), atomically: true, encoding: .utf8)
                chmod(folder.appendingPathComponent("run.sh").path, 0o755)
                try! "one\ntwo\n".write(
                    to: folder.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
                let attributes = folder.appendingPathComponent(".gitattributes")
                try! ((try! String(contentsOf: attributes, encoding: .utf8)) + "*.txt text eol=crlf\n").write(
                    to: attributes, atomically: true, encoding: .utf8)
                symlink("notes.txt", folder.appendingPathComponent("latest").path)
                laptop.git("add", "-A")
                laptop.git("commit", "-qm", "Scripts and notes")
                laptop.run("sync")
                cloneDesk()
                let cloned = desk.folder
                expect(FileManager.default.isExecutableFile(atPath: cloned.appendingPathComponent("run.sh").path))
                    == true
                expect(
                    try? FileManager.default.destinationOfSymbolicLink(
                        atPath: cloned.appendingPathComponent("latest").path)) == "notes.txt"
                expect(try? String(contentsOf: cloned.appendingPathComponent("notes.txt"), encoding: .utf8))
                    == "one\r\ntwo\r\n"
                expect(desk.git("status", "--porcelain")) == ""
                expect(desk.state.todos.map(\.text)) == ["Buy milk"]
            }
            it("fetches the branch it follows and the writers' references, no tag and no other branch") {
                laptop.run("add", "Buy milk")
                laptop.run("sync")
                addRefsBesideMain("1")
                cloneDesk()
                expectOnlyFollowedAndWriters(["1"])
                expect(desk.state.todos.map(\.text)) == ["Buy milk"]
                expect(runCommand("git", ["fetch", "-q"], in: desk.folder).status) == 0
                expect(desk.git("for-each-ref", "--format=%(refname)", "refs/remotes/origin/side-1"))
                    == "refs/remotes/origin/side-1\n"
            }
            it("refuses a folder that is not empty") {
                let result = runCommand(docketBinary, ["clone", remote.path, laptop.folder.path])
                expect(result.status) == 1
                expect(result.stderr).to(contain("exists and is not empty"))
            }
            it("says there is no repository at a missing path") {
                let result = runCommand(
                    docketBinary,
                    ["clone", root.appendingPathComponent("nowhere.git").path, root.appendingPathComponent("x").path])
                expect(result.status) == 1
                expect(result.stderr).to(contain("there is no git repository at"))
                expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("x").path)) == false
            }
        }

        describe("remote") {
            it("adds, lists and removes remotes; one that does not answer yet is kept, with a warning") {
                let added = laptop.run("remote", "add", "backup", "/srv/backup.git")
                expect(added.status) == 0
                expect(added.stdout) == "Added remote backup: /srv/backup.git\n"
                expect(added.stderr).to(contain("there is no git repository at /srv/backup.git"))
                expect(added.stderr).to(contain("the first 'docket sync' tries it again"))
                expect(laptop.run("remote", "list").stdout) == "backup  /srv/backup.git\norigin  \(remote.path)\n"
                laptop.run("remote", "remove", "backup")
                expect(laptop.run("remote", "list").stdout) == "origin  \(remote.path)\n"
                expect(laptop.run("remote", "remove", "backup").stderr).to(contain("there is no remote named backup"))
            }
            it("keeps a relative path as the folder it names from where it was typed, so sync works from any folder") {
                laptop.run("add", "Buy milk")
                laptop.run("sync")
                desk.run("init")
                let added = docket(["remote", "add", "origin", "remote.git"], store: desk.folder, in: root)
                expect(added.stdout) == "Added remote origin: \(remote.path); the store follows its branch main\n"
                expect(desk.git("config", "branch.main.merge")) == "refs/heads/main\n"
                expect(docket(["sync"], store: desk.folder, in: desk.folder).status) == 0
                expect(desk.state.todos.map(\.text)) == ["Buy milk"]
            }
            it("a second remote, such as a backup, does not take over the branch the store follows") {
                let backup = root.appendingPathComponent("backup.git")
                gitCLI(["clone", "-q", "--bare", remote.path, backup.path], in: root)
                laptop.run("add", "Buy milk")
                laptop.run("sync")
                laptop.run("remote", "add", "backup", backup.path)
                laptop.run("push", "backup")
                laptop.run("pull", "backup")
                expect(laptop.git("config", "branch.main.remote")) == "origin\n"
            }
        }

        describe("pull") {
            beforeEach {
                laptop.run("add", "Buy milk")
                laptop.run("sync")
                cloneDesk()
            }
            it("says when it is up to date") {
                expect(desk.run("pull").stdout) == "Already up to date with origin.\n"
            }
            it("fast-forwards branch, index and working tree") {
                laptop.run("add", "Call Anna")
                laptop.run("sync")
                expect(desk.run("pull").stdout).to(contain("Fast-forwarded to"))
                expect(desk.head) == laptop.head
                expect(desk.state.todos.map(\.text)) == ["Buy milk", "Call Anna"]
                expect(desk.git("status", "--porcelain")) == ""
            }
            context("when both machines changed the same todo") {
                var milk: String!
                beforeEach {
                    milk = shortID(laptop.state.todos[0].id)
                    laptop.run("edit", milk, "Buy oat milk")
                    laptop.run("sync")
                    usleep(5000)
                    desk.run("done", milk)
                    desk.run("edit", milk, "Buy soy milk")
                    desk.run("commit")
                }
                it("merges field by field in a merge commit with both parents, and prints the summary") {
                    let result = desk.run("pull")
                    expect(result.stdout).to(
                        contain("1 item merged; 1 field chose the later edit: todo 'Buy soy milk' text"))
                    let todo = desk.state.todos[0]
                    expect(todo.text) == "Buy soy milk"
                    expect(todo.completed) == true
                    expect(desk.git("rev-list", "--parents", "-n", "1", "HEAD").split(separator: " ").count) == 3
                    expect(desk.git("status", "--porcelain")) == ""
                    expect(gitCLI(["fsck", "--strict"], in: desk.folder).status) == 0
                }
                it("records the losing value, which merges shows and reads back as JSON") {
                    desk.run("pull")
                    expect(desk.run("merges").stdout).to(contain("lost \"Buy oat milk\""))
                    let json = desk.run("merges", "--json").stdout
                    expect(json).to(contain("\"lost\" : \"Buy oat milk\""))
                    expect(desk.git("log", "-1", "--format=%B")).to(contain("Docket-Merge-Report: {"))
                }
                it("looks like a normal merge in git log --graph") {
                    desk.run("pull")
                    let graph = desk.git("log", "--graph", "--oneline")
                    expect(graph).to(contain("Merge origin/main: 1 item merged"))
                    expect(graph).to(contain("|\\"))
                }
                it("ends with both machines in the same state after they sync") {
                    desk.run("sync")
                    laptop.run("sync")
                    expect(laptop.state) == desk.state
                    expect(laptop.head) == desk.head
                }
            }
            it("refuses while there are uncommitted changes, and sync commits them first") {
                laptop.run("add", "Call Anna")
                laptop.run("sync")
                desk.run("add", "Desk")
                let refused = desk.run("pull")
                expect(refused.status) == 1
                expect(refused.stderr).to(
                    contain("uncommitted changes; commit them ('docket commit') or use 'docket sync'"))
                let synced = desk.run("sync")
                expect(synced.stdout).to(contain("Committed"))
                expect(synced.stdout).to(contain("Merged origin"))
                expect(synced.stdout).to(contain("Pushed to origin."))
                expect(Set(desk.state.todos.map(\.text))) == Set(["Buy milk", "Call Anna", "Desk"])
            }
            it("aborts on a git conflict outside the store, naming the file, changing nothing") {
                try Data("laptop\n".utf8).write(to: laptop.folder.appendingPathComponent("NOTES"))
                gitCLI(["add", "NOTES"], in: laptop.folder)
                gitCLI(["commit", "-qm", "notes"], in: laptop.folder)
                laptop.run("push")
                try Data("desk\n".utf8).write(to: desk.folder.appendingPathComponent("NOTES"))
                gitCLI(["add", "NOTES"], in: desk.folder)
                gitCLI(["commit", "-qm", "notes"], in: desk.folder)
                desk.run("add", "Desk todo")
                desk.run("commit")
                let before = (desk.head, desk.git("status", "--porcelain"), desk.state)
                let result = desk.run("pull")
                expect(result.status) == 1
                expect(result.stderr).to(contain("git cannot merge a file outside Docket's folders: NOTES"))
                expect(desk.head) == before.0
                expect(desk.git("status", "--porcelain")) == before.1
                expect(desk.state) == before.2
                expect(try String(contentsOf: desk.folder.appendingPathComponent("NOTES"), encoding: .utf8)) == "desk\n"
            }
            it("merges files outside the store as git would") {
                try Data("readme\n".utf8).write(to: laptop.folder.appendingPathComponent("README"))
                gitCLI(["add", "README"], in: laptop.folder)
                gitCLI(["commit", "-qm", "readme"], in: laptop.folder)
                laptop.run("push")
                desk.run("add", "Desk todo")
                desk.run("commit")
                expect(desk.run("pull").status) == 0
                expect(try String(contentsOf: desk.folder.appendingPathComponent("README"), encoding: .utf8))
                    == "readme\n"
            }
            it(
                "sets a corrupt store file in the remote's commit aside, naming the file and the commit, and merges the rest"
            ) {
                let plain = root.appendingPathComponent("plain")
                gitCLI(["clone", "-q", remote.path, plain.path], in: root)
                let path = StoreLayout.todo(UUID(uuidString: "00000000-0000-4000-8000-000000000000")!)
                let file = plain.appendingPathComponent(path)
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data("{ broken".utf8).write(to: file)
                try Data("readme\n".utf8).write(to: plain.appendingPathComponent("README"))
                gitCLI(["add", "-A"], in: plain)
                gitCLI(["commit", "-qm", "broken"], in: plain)
                gitCLI(["push", "-q"], in: plain)
                let commit = gitCLI(["rev-parse", "--short=7", "HEAD"], in: plain).stdout.trimmingCharacters(
                    in: .newlines)
                desk.run("add", "Desk todo")
                desk.run("commit")
                let result = desk.run("pull")
                expect(result.status).to(equal(0), description: result.stderr)
                expect(result.stdout).to(contain("Set aside: \(path) from \(commit) does not decode"))
                expect(result.stdout).to(contain("left out, as this machine never had it"))
                // The rest of the commit arrived; the bad file did not.
                expect(FileManager.default.fileExists(atPath: desk.folder.appendingPathComponent("README").path))
                    == true
                expect(FileManager.default.fileExists(atPath: desk.folder.appendingPathComponent(path).path)) == false
                expect(desk.git("status", "--porcelain")) == ""
                expect(desk.state.todos.map(\.text)).to(contain("Desk todo"))
            }
        }

        describe("push") {
            it("says to pull or sync when someone pushed first") {
                cloneDesk()
                laptop.run("add", "a")
                laptop.run("sync")
                desk.run("add", "b")
                desk.run("commit")
                let result = desk.run("push")
                expect(result.status) == 1
                expect(result.stderr).to(
                    contain("someone pushed first: run 'docket pull' or 'docket sync', then push again"))
                expect(desk.run("sync").status) == 0
                expect(Set(desk.state.todos.map(\.text))) == Set(["a", "b"])
            }

            it("takes another push holding a folder remote's branch lock as a race to retry, and syncs once it lets go")
            {
                laptop.run("add", "a")
                laptop.run("sync")
                laptop.run("add", "b")
                let lock = remote.appendingPathComponent("refs/heads/main.lock").path
                let holder = LockHolder(lock)
                // NB: sync waits at least 0.37 s in all between its tries.
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) {
                    holder.stop()
                    try? FileManager.default.removeItem(atPath: lock)
                }
                let synced = laptop.run("sync")
                expect(synced.status).to(equal(0), description: synced.stderr)
                expect(synced.stdout).to(contain("Pushed"))
                expect(gitCLI(["rev-parse", "main"], in: remote).stdout) == laptop.git("rev-parse", "HEAD")
            }

            it("says to pull or sync when the remote's branch is here but this store went back from it (git reset)") {
                laptop.run("add", "a")
                laptop.run("sync")
                laptop.run("add", "b")
                laptop.run("sync")
                gitCLI(["reset", "-q", "--hard", "HEAD~1"], in: laptop.folder)
                laptop.run("add", "c")
                laptop.run("commit")
                let result = laptop.run("push")
                expect(result.status) == 1
                expect(result.stderr).to(
                    contain("someone pushed first: run 'docket pull' or 'docket sync', then push again"))
                expect(laptop.run("sync").status) == 0
                expect(Set(laptop.state.todos.map(\.text))) == Set(["a", "b", "c"])
            }
        }

        describe("stores with no common ancestor") {
            it("merges them with no base when one is added as the other's remote") {
                let other = Machine(folder: root.appendingPathComponent("other"))
                other.run("init")
                other.run("add", "From the other store")
                other.run("commit")
                laptop.run("add", "From the laptop")
                laptop.run("commit")
                laptop.run("remote", "add", "other", other.folder.path)
                let result = laptop.run("pull", "other")
                expect(result.status) == 0
                expect(Set(laptop.state.todos.map(\.text))) == Set(["From the other store", "From the laptop"])
                expect(gitCLI(["fsck"], in: laptop.folder).status) == 0
            }
        }

        describe("the git CLI as a peer") {
            it("pulls and merges a change pushed by git from a plain clone") {
                laptop.run("add", "Buy milk")
                laptop.run("sync")
                let plain = root.appendingPathComponent("plain")
                gitCLI(["clone", "-q", remote.path, plain.path], in: root)
                let path = plain.appendingPathComponent(StoreLayout.todo(laptop.state.todos[0].id))
                let edited = try String(contentsOf: path, encoding: .utf8).replacingOccurrences(
                    of: "\"completed\" : false", with: "\"completed\" : true")
                try Data(edited.utf8).write(to: path)
                gitCLI(["commit", "-qam", "Done by hand"], in: plain)
                gitCLI(["push", "-q"], in: plain)
                laptop.run("add", "Laptop todo")
                laptop.run("commit")
                expect(laptop.run("pull").stdout).to(contain("Merged origin"))
                expect(laptop.state.todo(id: laptop.state.todos.first { $0.text == "Buy milk" }!.id)?.completed) == true
                expect(laptop.state.todos.count) == 2
                expect(gitCLI(["fsck", "--strict"], in: laptop.folder).status) == 0
            }
        }

        describe("a bare repository reached by its path") {
            it("runs its hooks as git does: a declining pre-receive stops the push with its words, post-receive speaks")
            {
                let pre = remote.appendingPathComponent("hooks/pre-receive")
                try "#!/bin/sh\necho 'no pushes on Sunday' >&2\nexit 1\n".write(
                    to: pre, atomically: true, encoding: .utf8)
                chmod(pre.path, 0o755)
                laptop.run("add", "Declined")
                let declined = laptop.run("sync")
                expect(declined.status) == 1
                expect(declined.stderr).to(
                    contain(
                        "declined the update of refs/heads/main (pre-receive hook declined); the server said: no pushes on Sunday"
                    ))
                expect(gitCLI(["rev-parse", "--verify", "-q", "refs/heads/main"], in: remote).stdout) == ""
                try FileManager.default.removeItem(at: pre)
                let post = remote.appendingPathComponent("hooks/post-receive")
                try "#!/bin/sh\nread old new ref\necho \"received $ref\"\n".write(
                    to: post, atomically: true, encoding: .utf8)
                chmod(post.path, 0o755)
                let pushed = laptop.run("sync")
                expect(pushed.stdout).to(contain("Pushed to origin."))
                expect(pushed.stderr).to(contain("remote: received refs/heads/main"))
            }
        }

        describe("a push to a bare repository on this machine") {
            // Docket writes the objects and moves the branch itself there, unless git's receive-pack would do more.
            func importTodos(_ machine: Machine, _ count: Int, named name: String) {
                let file = root.appendingPathComponent("\(name).txt")
                try? (1...count).map { "\(name) \($0)" }.joined(separator: "\n").write(
                    to: file, atomically: true, encoding: .utf8)
                expect(machine.run("import", "todotxt", file.path).status) == 0
            }
            func remoteGit(_ arguments: String...) -> String {
                gitCLI(arguments, in: remote).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            func packs() -> [String] {
                ((try? FileManager.default.contentsOfDirectory(atPath: remote.path + "/objects/pack")) ?? []).filter {
                    $0.hasSuffix(".pack")
                }.sorted()
            }
            beforeEach {
                laptop.run("add", "First")
                expect(laptop.run("sync").status) == 0
            }

            it(
                "sends exactly what the remote lacks, as git keeps it: one pack from 100 objects, loose below, and the remote stays whole"
            ) {
                importTodos(laptop, 150, named: "imported")
                let before = remoteGit("rev-parse", "main")
                let packsBefore = packs()
                expect(laptop.run("push").status) == 0
                expect(remoteGit("rev-parse", "main")) == laptop.head
                expect(laptop.git("rev-parse", "refs/remotes/origin/main").trimmingCharacters(in: .newlines))
                    == laptop.head
                let lacked = Set(
                    laptop.git("rev-list", "--objects", "\(before)..HEAD").split(separator: "\n").map {
                        String($0.prefix(40))
                    })
                let added = Set(packs()).subtracting(packsBefore)
                expect(added.count) == 1
                let index = "objects/pack/" + added.first!.replacingOccurrences(of: ".pack", with: ".idx")
                let listed = runCommand("sh", ["-c", "git show-index < '\(index)'"], in: remote)
                expect(Set(listed.stdout.split(separator: "\n").map { String($0.split(separator: " ")[1]) })) == lacked

                cloneDesk()
                desk.run("add", "From the desk")
                laptop.run("add", "From the laptop")
                expect(laptop.run("sync").status) == 0
                let loose = Int(remoteGit("count-objects").split(separator: " ")[0])!
                let tip = remoteGit("rev-parse", "main")
                expect(desk.run("sync").status) == 0
                expect(remoteGit("rev-parse", "main")) == desk.head
                expect(Int(remoteGit("count-objects").split(separator: " ")[0])! - loose)
                    == desk.git("rev-list", "--objects", "\(tip)..HEAD").split(separator: "\n").count
                expect(packs().count) == packsBefore.count + 1
                let fsck = gitCLI(["fsck", "--strict", "--no-dangling"], in: remote)
                expect(fsck.status) == 0
                expect(fsck.stdout + fsck.stderr) == ""
                expect(laptop.run("sync").status) == 0
                expect(laptop.head) == desk.head
                expect(laptop.state.todos.count) == 153
            }

            it("leaves a repository with a hook to git receive-pack, so a hook added later still runs") {
                let pre = remote.appendingPathComponent("hooks/pre-receive")
                try "#!/bin/sh\necho 'frozen for the release' >&2\nexit 1\n".write(
                    to: pre, atomically: true, encoding: .utf8)
                chmod(pre.path, 0o755)
                let tip = remoteGit("rev-parse", "main")
                laptop.run("add", "Declined")
                let declined = laptop.run("sync")
                expect(declined.status) == 1
                expect(declined.stderr).to(contain("the server said: frozen for the release"))
                expect(remoteGit("rev-parse", "main")) == tip
            }

            it("pushes to the remote's push URL when it has one") {
                let mirror = root.appendingPathComponent("mirror.git")
                gitCLI(["clone", "-q", "--bare", remote.path, mirror.path], in: root)
                laptop.git("config", "remote.origin.pushurl", mirror.path)
                let tip = remoteGit("rev-parse", "main")
                laptop.run("add", "To the mirror")
                laptop.run("commit")
                expect(laptop.run("push").status) == 0
                expect(gitCLI(["rev-parse", "main"], in: mirror).stdout.trimmingCharacters(in: .newlines))
                    == laptop.head
                expect(remoteGit("rev-parse", "main")) == tip
            }

            it("moves nothing when killed before the branch moves, and the next push finishes") {
                let tip = remoteGit("rev-parse", "main")
                importTodos(laptop, 120, named: "killed")
                let killed = laptop.run("push", environment: ["DOCKET_FAULT": "after-push-objects"])
                expect(killed.status) != 0
                expect(remoteGit("rev-parse", "main")) == tip
                expect(gitCLI(["fsck", "--strict", "--no-dangling"], in: remote).status) == 0
                expect(laptop.run("push").status) == 0
                expect(remoteGit("rev-parse", "main")) == laptop.head
                expect(gitCLI(["fsck", "--strict", "--no-dangling"], in: remote).status) == 0
            }

            it("writes no commit before what it holds when killed amid the objects, and the next push finishes") {
                laptop.run("add", "Second")
                laptop.run("commit")
                let killed = laptop.run("push", environment: ["DOCKET_FAULT": "amid-loose-objects"])
                expect(killed.status) != 0
                // What a fetch from the remote, libgit2's too, would take as fetched already.
                expect(remoteGit("cat-file", "-t", laptop.head)).to(beEmpty())
                expect(laptop.run("push").status) == 0
                expect(remoteGit("rev-parse", "main")) == laptop.head
                expect(gitCLI(["fsck", "--strict", "--no-dangling"], in: remote).status) == 0
            }

            it("tidies the remote with git gc --auto afterwards, as git receive-pack does") {
                gitCLI(["config", "gc.autoPackLimit", "1"], in: remote)
                gitCLI(["config", "gc.autoDetach", "false"], in: remote)
                importTodos(laptop, 110, named: "first")
                expect(laptop.run("push").status) == 0
                expect(packs().count) == 1
                importTodos(laptop, 110, named: "second")
                expect(laptop.run("push").status) == 0
                expect(packs().count) == 1
                expect(remoteGit("rev-parse", "main")) == laptop.head
                expect(gitCLI(["fsck", "--strict", "--no-dangling"], in: remote).status) == 0
            }
        }

        describe("a fetch from a repository on this machine") {
            // Docket copies the objects the store lacks and moves the remote-tracking branches itself.
            func importTodos(_ machine: Machine, _ count: Int, named name: String) {
                let file = root.appendingPathComponent("\(name).txt")
                try? (1...count).map { "\(name) \($0)" }.joined(separator: "\n").write(
                    to: file, atomically: true, encoding: .utf8)
                expect(machine.run("import", "todotxt", file.path).status) == 0
            }
            func packs(_ machine: Machine) -> [String] {
                let folder = machine.folder.path + "/.git/objects/pack"
                return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
                    $0.hasSuffix(".pack")
                }.sorted()
            }
            func loose(_ machine: Machine) -> Int { Int(machine.git("count-objects").split(separator: " ")[0])! }
            func line(_ text: String) -> String { text.trimmingCharacters(in: .whitespacesAndNewlines) }
            beforeEach {
                laptop.run("add", "First")
                expect(laptop.run("sync").status) == 0
                cloneDesk()
            }

            it(
                "takes exactly what the store lacks, as git keeps it: one pack from 100 objects, loose below, and the store stays whole"
            ) {
                importTodos(laptop, 150, named: "imported")
                expect(laptop.run("sync").status) == 0
                gitCLI(["branch", "side", "main~1"], in: remote)
                let before = desk.head
                let packsBefore = packs(desk)
                expect(desk.run("pull").status) == 0
                expect(desk.head) == laptop.head
                let lacked = Set(
                    desk.git("rev-list", "--objects", "\(before)..HEAD").split(separator: "\n").map {
                        String($0.prefix(40))
                    })
                let added = Set(packs(desk)).subtracting(packsBefore)
                expect(added.count) == 1
                let index = ".git/objects/pack/" + added.first!.replacingOccurrences(of: ".pack", with: ".idx")
                let listed = runCommand("sh", ["-c", "git show-index < '\(index)'"], in: desk.folder)
                expect(Set(listed.stdout.split(separator: "\n").map { String($0.split(separator: " ")[1]) })) == lacked
                // Only the branch the store follows is fetched, and FETCH_HEAD names it as libgit2's fetch does.
                expect(desk.git("for-each-ref", "refs/remotes/origin/side")) == ""
                expect(try? String(contentsOfFile: desk.folder.path + "/.git/FETCH_HEAD", encoding: .utf8))
                    == "\(laptop.head)\t\tbranch 'main' of \(remote.path)\n"
                expect(desk.git("reflog", "-1", "--format=%gs", "refs/remotes/origin/main")) == "docket: fetch\n"

                laptop.run("add", "Small")
                expect(laptop.run("sync").status) == 0
                let tip = desk.head
                let looseBefore = loose(desk)
                expect(desk.run("pull").status) == 0
                expect(loose(desk) - looseBefore)
                    == desk.git("rev-list", "--objects", "\(tip)..HEAD").split(separator: "\n").count
                expect(packs(desk).count) == packsBefore.count + 1
                let fsck = gitCLI(["fsck", "--strict", "--no-dangling"], in: desk.folder)
                expect(fsck.status) == 0
                expect(fsck.stdout + fsck.stderr) == ""
                expect(desk.state.todos.count) == 152
            }

            it("fetches from another store's folder, whose references include symbolic ones") {
                desk.git("remote", "add", "laptop", laptop.folder.path)
                gitCLI(["symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main"], in: laptop.folder)
                laptop.run("add", "Straight from the laptop")
                laptop.run("commit")
                let packsBefore = packs(desk)
                expect(desk.run("pull", "laptop").status) == 0
                expect(desk.head) == laptop.head
                expect(packs(desk)) == packsBefore
                expect(Set(desk.state.todos.map(\.text))) == ["First", "Straight from the laptop"]
            }

            it("fetches no tag, unless remote.origin.tagOpt asks for every tag, which libgit2 then fetches") {
                laptop.run("add", "Tagged")
                expect(laptop.run("sync").status) == 0
                gitCLI(["tag", "-a", "-m", "Release", "v1", "main"], in: remote)
                expect(desk.run("pull").status) == 0
                expect(desk.head) == laptop.head
                expect(desk.git("for-each-ref", "refs/tags/")) == ""
                desk.git("config", "remote.origin.tagOpt", "--tags")
                expect(desk.run("pull").status) == 0
                expect(line(desk.git("rev-parse", "refs/tags/v1")))
                    == line(gitCLI(["rev-parse", "refs/tags/v1"], in: remote).stdout)
                expect(desk.head) == laptop.head
            }

            it(
                "fetches only the branch it follows from a remote of 2,000 branches, over a folder and over git://, and so does a clone"
            ) {
                let daemon = GitDaemon(serving: root)
                defer { daemon.stop() }
                let overNetwork = Machine(folder: root.appendingPathComponent("network"))
                expect(runCommand(docketBinary, ["clone", daemon.url("remote.git"), overNetwork.folder.path]).status)
                    == 0
                let refs = (1...2_000).map {
                    "create refs/heads/b\($0) \(line(gitCLI(["rev-parse", "main"], in: remote).stdout))"
                }.joined(separator: "\n")
                expect(runCommand("git", ["update-ref", "--stdin"], in: remote, input: refs + "\n").status) == 0
                laptop.run("add", "Over many branches")
                expect(laptop.run("sync").status) == 0
                for machine in [desk!, overNetwork] {
                    let pulled = machine.run("pull")
                    expect(pulled.status).to(equal(0), description: pulled.stderr)
                    let tracked = machine.git("for-each-ref", "--format=%(refname)", "refs/remotes/origin/").split(
                        separator: "\n")
                    expect(tracked.count).to(
                        beLessThanOrEqualTo(2),
                        description: "\(machine.folder.lastPathComponent): \(tracked.count) branches tracked")
                    expect(machine.state.todos.map(\.text)).to(contain("Over many branches"))
                }
                for (name, url) in [("folder", remote.path), ("network", daemon.url("remote.git"))] {
                    let fresh = Machine(folder: root.appendingPathComponent("fresh-\(name)"))
                    let cloned = runCommand(docketBinary, ["clone", url, fresh.folder.path])
                    expect(cloned.status).to(equal(0), description: cloned.stderr)
                    let tracked = fresh.git("for-each-ref", "--format=%(refname)", "refs/remotes/origin/").split(
                        separator: "\n")
                    expect(tracked.count).to(
                        beLessThanOrEqualTo(2), description: "clone over the \(name): \(tracked.count) branches tracked"
                    )
                    expect(fresh.state.todos.map(\.text)).to(contain("Over many branches"))
                    expect(fresh.run("sync").status) == 0
                }
            }

            it(
                "fetches every branch its refspec names and prunes when git is told to prune (fetch.prune), as libgit2 does"
            ) {
                gitCLI(["branch", "side", "main"], in: remote)
                // A clone's refspec is git's wide one; Docket's fetch takes every branch it names when told to prune.
                desk.git("config", "fetch.prune", "true")
                expect(desk.run("pull").status) == 0
                expect(desk.git("for-each-ref", "refs/remotes/origin/side")).toNot(beEmpty())
                gitCLI(["branch", "-D", "side"], in: remote)
                expect(desk.run("pull").status) == 0
                expect(desk.git("for-each-ref", "refs/remotes/origin/side")) == ""
            }

            it("moves no branch when killed after the objects, and the next pull finishes") {
                importTodos(laptop, 120, named: "killed")
                expect(laptop.run("sync").status) == 0
                let tracking = desk.git("rev-parse", "refs/remotes/origin/main")
                let head = desk.head
                let killed = desk.run("pull", environment: ["DOCKET_FAULT": "after-fetch-objects"])
                expect(killed.status) != 0
                expect(desk.git("rev-parse", "refs/remotes/origin/main")) == tracking
                expect(desk.head) == head
                expect(gitCLI(["fsck", "--strict", "--no-dangling"], in: desk.folder).status) == 0
                expect(desk.run("pull").status) == 0
                expect(desk.head) == laptop.head
                expect(desk.state.todos.count) == 121
            }

            it("writes no commit before what it holds when killed amid the objects, and the next pull finishes") {
                laptop.run("add", "Second")
                laptop.run("add", "Third")
                expect(laptop.run("sync").status) == 0
                let killed = desk.run("pull", environment: ["DOCKET_FAULT": "amid-loose-objects"])
                expect(killed.status) != 0
                // What a fetch, libgit2's too, takes as fetched already: the branch's commit being here.
                expect(desk.git("cat-file", "-t", laptop.head)).to(beEmpty())
                expect(desk.run("pull").status) == 0
                expect(desk.head) == laptop.head
                expect(desk.state.todos.map(\.text).sorted()) == ["First", "Second", "Third"]
                expect(gitCLI(["fsck", "--strict", "--no-dangling"], in: desk.folder).status) == 0
            }

            it("copies what a commit found here holds when no reference here names it") {
                laptop.run("add", "Second")
                expect(laptop.run("sync").status) == 0
                // The commit alone, as a killed `git fetch` writing objects one by one may leave it.
                let head = laptop.head
                let path = "objects/\(head.prefix(2))/\(head.dropFirst(2))"
                try FileManager.default.createDirectory(
                    atPath: desk.folder.path + "/.git/objects/\(head.prefix(2))",
                    withIntermediateDirectories: true)
                try FileManager.default.copyItem(
                    atPath: remote.path + "/" + path, toPath: desk.folder.path + "/.git/" + path)
                let pulled = desk.run("pull")
                expect(pulled.status).to(equal(0), description: pulled.stderr)
                expect(desk.head) == head
                expect(desk.state.todos.map(\.text).sorted()) == ["First", "Second"]
                expect(gitCLI(["fsck", "--strict", "--no-dangling"], in: desk.folder).status) == 0
            }
        }

        describe("two first pushes at once") {
            it(
                "treats losing the race to create the branch as someone pushing first: the sync pulls, merges and pushes"
            ) {
                // Both pushes wait in the remote's pre-receive, so both try to create main; one finds it made.
                let pre = remote.appendingPathComponent("hooks/pre-receive")
                try "#!/bin/sh\nsleep 1\n".write(to: pre, atomically: true, encoding: .utf8)
                chmod(pre.path, 0o755)
                cloneDesk()
                laptop.run("add", "From the laptop")
                desk.run("add", "From the desk")
                let first = Background(
                    docketBinary, ["-C", laptop.folder.path, "sync"], log: root.appendingPathComponent("laptop.log"))
                let second = desk.run("sync")
                expect(first.stop(signal: 0)) == 0
                expect(second.status) == 0
                expect(second.stderr + first.output).toNot(contain("declined"))
                // Whichever won, one more sync on each brings both to the same commit.
                expect(laptop.run("sync").status) == 0
                expect(desk.run("sync").status) == 0
                expect(laptop.head) == desk.head
                expect(Set(laptop.state.todos.map(\.text))) == ["From the laptop", "From the desk"]
            }
        }

        describe("git daemon") {
            var daemon: GitDaemon!
            beforeEach { daemon = GitDaemon(serving: root) }
            afterEach { daemon.stop() }
            it("clones, pushes and pulls over git://") {
                laptop.run("add", "Buy milk")
                laptop.run("sync")
                runCommand(docketBinary, ["clone", daemon.url("remote.git"), desk.folder.path])
                expect(desk.state.todos.map(\.text)) == ["Buy milk"]
                desk.run("add", "Over the daemon")
                expect(desk.run("sync").stdout).to(contain("Pushed to origin."))
                laptop.run("pull")
                expect(Set(laptop.state.todos.map(\.text))) == Set(["Buy milk", "Over the daemon"])
            }
            it("clones and syncs the branch it follows and the writers' references only, and git fetch still works") {
                laptop.run("add", "Buy milk")
                laptop.run("sync")
                addRefsBesideMain("1")
                runCommand(docketBinary, ["clone", daemon.url("remote.git"), desk.folder.path])
                expectOnlyFollowedAndWriters(["1"])
                laptop.run("add", "Call mum")
                expect(laptop.run("sync").status) == 0
                addRefsBesideMain("2")
                desk.run("add", "Over the daemon")
                expect(desk.run("sync").status) == 0
                expect(laptop.run("pull").status) == 0
                expectOnlyFollowedAndWriters(["1", "2"])
                expect(Set(desk.state.todos.map(\.text))) == ["Buy milk", "Call mum", "Over the daemon"]
                // git's own fetch follows the clone's settings: every branch, and the tags on what it took.
                expect(runCommand("git", ["fetch", "-q"], in: desk.folder).status) == 0
                expect(desk.git("for-each-ref", "--format=%(refname)", "refs/remotes/origin/")).to(
                    contain("refs/remotes/origin/side-1\n", "refs/remotes/origin/side-2\n"))
                expect(desk.git("for-each-ref", "--format=%(refname)", "refs/tags/")).to(
                    contain("refs/tags/annotated-2\n", "refs/tags/plain-2\n"))
            }
            it("shows what a declining hook said, pushes nothing, and the next sync goes through") {
                let hook = remote.appendingPathComponent("hooks/pre-receive")
                try
                    "#!/bin/sh\nflag=\"$GIT_DIR/refused-once\"\n[ -e \"$flag\" ] && exit 0\ntouch \"$flag\"\necho 'busy, try again' >&2\nexit 1\n"
                    .write(to: hook, atomically: true, encoding: .utf8)
                chmod(hook.path, 0o755)
                runCommand(docketBinary, ["clone", daemon.url("remote.git"), desk.folder.path])
                desk.run("add", "Retried")
                let refused = desk.run("sync")
                expect(refused.status) == 1
                expect(refused.stderr).to(
                    contain(
                        "declined the update of refs/heads/main (pre-receive hook declined); the server said: busy, try again"
                    ))
                expect(refused.stderr).toNot(contain("someone pushed first"))
                expect(gitCLI(["rev-parse", "--verify", "-q", "refs/heads/main"], in: remote).stdout) == ""
                // As the message says: once the server's check passes, sync again.
                let retried = desk.run("sync")
                expect(retried.stdout).to(contain("Pushed to origin."))
                laptop.run("pull")
                expect(laptop.state.todos.map(\.text)) == ["Retried"]
            }
            it("says a repository is missing") {
                let result = runCommand(docketBinary, ["clone", daemon.url("nothing.git"), desk.folder.path])
                expect(result.status) == 1
                expect(result.stderr).to(contain("there is no git repository at"))
            }
            it("says a daemon that does not take pushes does not, rather than that the repository is missing") {
                let readOnly = GitDaemon(serving: root, pushes: false)
                defer { readOnly.stop() }
                laptop.run("add", "Buy milk")
                laptop.run("sync")
                runCommand(docketBinary, ["clone", readOnly.url("remote.git"), desk.folder.path])
                desk.run("add", "Refused")
                let result = desk.run("sync")
                expect(result.status) == 1
                expect(result.stderr).to(contain("\(readOnly.url("remote.git")) does not take pushes"))
                expect(result.stderr).toNot(contain("there is no git repository"))
            }
            it("says a host is unreachable, changing nothing") {
                let port = freePort()
                laptop.run("remote", "add", "gone", "git://127.0.0.1:\(port)/remote.git")
                let before = laptop.head
                let result = laptop.run("pull", "gone")
                expect(result.status) == 1
                expect(result.stderr).to(contain("cannot reach git://127.0.0.1:\(port)/remote.git"))
                expect(laptop.head) == before
            }
        }
    }
}

/// The short id docket prints.
func shortID(_ id: UUID) -> String { String(id.uuidString.prefix(8)).lowercased() }
