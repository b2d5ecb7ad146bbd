import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// The git CLI as a peer: a machine that pulls with plain git (merge or
/// rebase, with Docket's merge driver or without docket installed), then runs
/// one `docket sync`, ends where `docket pull` would have taken it: the same
/// files on both machines, no conflict markers, nothing unfinished, and every
/// value a merge discarded recorded in `docket merges`.
final class GitPeerSpec: QuickSpec {
    override class func spec() {
        var machines: TwoMachines!
        var milk: String!
        beforeEach {
            machines = TwoMachines("docket-gitpeer")
            milk = machines.laptop.id("add", "Buy milk")
            let project = machines.laptop.id("project", "add", "Party")
            machines.laptop.run("task", "add", project, "Buy Beer")
            machines.laptop.run("sync")
            runCommand(docketBinary, ["clone", machines.remote.path, machines.desk.folder.path])
        }
        afterEach { try? FileManager.default.removeItem(at: machines.root) }
        var laptop: Machine { machines.laptop }
        var desk: Machine { machines.desk }
        func task(_ machine: Machine) -> String { shortID(machine.state.projects[0].tasks[0].id) }
        let twin = UUID(uuidString: "7E000000-0000-4000-8000-000000000001")!

        // Each: the laptop changes and syncs; then the desk changes and commits.
        let edits: [(String, () -> Void)] = [
            (
                "different fields of one todo",
                {
                    laptop.run("done", milk)
                    laptop.run("sync")
                    desk.run("edit", milk, "Buy oat milk")
                    desk.run("commit")
                }
            ),
            (
                "the same field of one todo",
                {
                    laptop.run("edit", milk, "Buy oat milk")
                    laptop.run("sync")
                    usleep(2000)
                    desk.run("edit", milk, "Buy soy milk")
                    desk.run("commit")
                }
            ),
            (
                "an edit against a removal",
                {
                    laptop.run("rm", milk)
                    laptop.run("sync")
                    usleep(2000)
                    desk.run("edit", milk, "Buy soy milk")
                    desk.run("commit")
                }
            ),
            (
                "the same todo added on both",
                {
                    let made = Date(timeIntervalSince1970: 1_795_339_800)
                    try! Store.open(at: laptop.folder).addTodo(
                        TodoItem(
                            id: twin, text: "From the laptop", creationDate: made, completed: false, dueDate: nil,
                            alterDate: made))
                    laptop.run("sync")
                    try! Store.open(at: desk.folder).addTodo(
                        TodoItem(
                            id: twin, text: "From the desk", creationDate: made, completed: false, dueDate: nil,
                            alterDate: made.addingTimeInterval(1)))
                    desk.run("commit")
                }
            ),
            (
                "a project's tasks and time slips",
                {
                    laptop.run("task", "start", task(laptop))
                    laptop.run("task", "rename", task(laptop), "Buy more beer")
                    laptop.run("sync")
                    desk.run("task", "state", task(desk), "finished")
                    desk.run("task", "start", task(desk))
                    desk.run("task", "add", shortID(desk.state.projects[0].id), "Order pizza")
                    desk.run("commit")
                }
            ),
        ]
        let ways: [(String, [[String]], Bool)] = [
            ("git pull --no-rebase with Docket's merge driver", [["pull", "--no-rebase", "-q"]], true),
            ("git pull --no-rebase without docket installed", [["pull", "--no-rebase", "-q"]], false),
            ("git pull --rebase with Docket's merge driver", [["pull", "--rebase", "-q"]], true),
            ("git pull --rebase without docket installed", [["pull", "--rebase", "-q"]], false),
            ("git fetch and git merge", [["fetch", "-q"], ["merge", "-q", "origin/main"]], true),
        ]

        for (edit, make) in edits {
            for (way, commands, driver) in ways {
                it("after \(edit), \(way), then docket sync: what docket pull gives, on both machines, recorded") {
                    make()
                    // What docket pull decides, on a copy of the desk.
                    let reference = Machine(folder: machines.root.appendingPathComponent("reference"))
                    expect(runCommand("cp", ["-a", desk.folder.path, reference.folder.path]).status) == 0
                    expect(reference.run("pull").status) == 0
                    let expected = reference.state
                    let expectedLosses =
                        (try? Store.open(at: reference.folder).merges(limit: 1).first?.report.losesValues) ?? false

                    if !driver { desk.git("config", "--remove-section", "merge.docket") }
                    for command in commands { gitCLI(command, in: desk.folder) }
                    expect(desk.run("sync").status).to(equal(0), description: desk.run("status").stdout)
                    expect(laptop.run("sync").status) == 0
                    expect(desk.run("sync").status) == 0

                    expect(desk.state) == expected
                    expect(laptop.state) == expected
                    expect(desk.git("ls-files", "-s")) == laptop.git("ls-files", "-s")
                    expect(desk.git("status", "--porcelain")) == ""
                    expect(desk.git("grep", "-l", "<<<<<<<")) == ""
                    expect(try Store.open(at: desk.folder).unfinishedGitOperation).to(beNil())
                    if expectedLosses {
                        let recorded = try Store.open(at: desk.folder).merges(limit: 5).contains {
                            $0.report.losesValues
                        }
                        expect(recorded).to(beTrue(), description: "a discarded value is in docket merges")
                    }
                }
            }
        }

        describe("a circle of dependencies made on two machines, one part each") {
            var bread: String!
            beforeEach {
                bread = laptop.id("add", "Buy bread")
                laptop.run("sync")
                desk.run("sync")
                let earlier = ["DOCKET_NOW": "2026-11-28T10:00:00+01:00"]
                let later = ["DOCKET_NOW": "2026-11-28T11:00:00+01:00"]
                expect(laptop.run("depend", milk, "+" + bread, environment: earlier).status) == 0
                laptop.run("sync", environment: earlier)
                expect(desk.run("depend", bread, "+" + milk, environment: later).status) == 0
                desk.run("commit", environment: later)
            }
            let ways: [(String, [[String]])] = [
                ("docket sync", []),
                ("git pull --no-rebase with Docket's merge driver, then docket sync", [["pull", "--no-rebase", "-q"]]),
            ]
            for (way, commands) in ways {
                it("ignores the newer dependency the same way on both machines after \(way), recorded") {
                    for command in commands { gitCLI(command, in: desk.folder) }
                    expect(desk.run("sync").status) == 0
                    expect(laptop.run("sync").status) == 0
                    for machine in [desk, laptop] {
                        // Milk waits for bread (the older dependency); bread, whose dependency closed the circle, not.
                        let blocked = machine.run("list", "--blocked").stdout
                        expect(blocked).to(contain("Buy milk"))
                        expect(blocked).toNot(contain("Buy bread"))
                        expect(machine.run("list", "--ready").stdout).to(contain("Buy bread"))
                        // Nothing is lost: the dependency stays in the file.
                        expect(machine.state.todos.first { $0.text == "Buy bread" }?.dependencies.count) == 1
                    }
                    let merges = desk.run("merges").stdout
                    expect(merges).to(
                        contain("todo 'Buy bread' depends on todo 'Buy milk', which closes a circle of dependencies"))
                    expect(merges).to(contain("(docket depend \(bread!) -\(milk!) removes it)"))
                }
            }
        }

        describe("a machine where git left a merge unfinished") {
            beforeEach {
                laptop.run("edit", milk, "Buy oat milk")
                laptop.run("sync")
                usleep(2000)
                desk.run("edit", milk, "Buy soy milk")
                desk.run("commit")
                desk.git("config", "--remove-section", "merge.docket")
                gitCLI(["pull", "--no-rebase", "-q"], in: desk.folder)
            }
            it("shows the todo as conflicted in status, never as removed, with the ways out") {
                let status = desk.run("status").stdout
                expect(status).to(contain("A git merge is unfinished"))
                expect(status).to(contain("'docket sync' to finish it with Docket's merge, or 'git merge --abort'"))
                expect(status).to(contain("todo 'Buy soy milk' conflicted"))
                expect(status).toNot(contain("removed"))
            }
            it("refuses commit, pull and push with the ways out, and list still shows the todo") {
                for command in ["commit", "pull", "push"] {
                    let refused = desk.run(command)
                    expect(refused.status) == 1
                    expect(refused.stderr).to(contain("a git merge is unfinished"))
                }
                let list = desk.run("list")
                expect(list.stdout).to(contain("Buy soy milk"))
                expect(list.stderr).to(contain("shown as last committed"))
            }
            it("is given up by git merge --abort, as the message says, and docket works on") {
                gitCLI(["merge", "--abort"], in: desk.folder)
                expect(desk.run("sync").status) == 0
                expect(desk.state.todos.first { $0.id.uuidString.lowercased().hasPrefix(milk) }?.text) == "Buy soy milk"
            }
        }

        describe("git replaying changes without a merge commit") {
            // The laptop's edit of milk's text, then the desk's later edit of it: a replay of the laptop's edit on the
            // desk
            // would discard "Buy oat milk" with no merge commit to record it.
            var laptopEdit = ""
            beforeEach {
                laptop.run("edit", milk, "Buy oat milk")
                laptop.run("commit")
                laptopEdit = laptop.head
                laptop.run("sync")
                desk.git("fetch", "-q")
                usleep(2000)
            }
            func deskEdits(_ text: String) {
                desk.run("edit", milk, text)
                desk.run("commit")
            }
            /// After git stopped and `docket sync` finished: the later edit kept, the other value restorable.
            func expectRecordedAndRestorable(kept: String, lost: String) {
                expect(desk.git("grep", "-l", "<<<<<<<")) == ""
                expect(try Store.open(at: desk.folder).unfinishedGitOperation).to(beNil())
                expect(desk.git("status", "--porcelain")) == ""
                let text = { desk.state.todos.first { $0.id.uuidString.lowercased().hasPrefix(milk) }?.text }
                expect(text()) == kept
                // The record whose one discarded value is `lost` (a sync's own pull may record another merge).
                let record = try! Store.open(at: desk.folder).merges(limit: 5).first {
                    $0.report.lostValues.count == 1
                        && String(decoding: try! JSONEncoder().encode($0.report), as: UTF8.self).contains(lost)
                }
                expect(record).notTo(beNil(), description: "the discarded value is in docket merges")
                guard let record else { return }
                expect(desk.run("merges").stdout).to(contain(lost))
                expect(desk.run("merges", "restore", String(record.commit.prefix(7)), "1").status) == 0
                expect(text()) == lost
            }

            it("cherry-pick: git stops on the file, and docket sync finishes it with a record") {
                deskEdits("Buy soy milk")
                let picked = gitCLI(["cherry-pick", laptopEdit], in: desk.folder)
                expect(picked.status) != 0
                expect(picked.stderr).to(contain("run 'docket sync' to finish with a record"))
                expect(desk.run("status").stdout).to(contain("'docket sync' to finish it with Docket's merge"))
                let synced = desk.run("sync")
                expect(synced.status).to(equal(0), description: synced.stderr)
                expect(synced.stdout).to(contain("Finished git's cherry-pick"))
                expectRecordedAndRestorable(kept: "Buy soy milk", lost: "Buy oat milk")
            }

            it("revert: git stops on the file, and docket sync finishes it with a record") {
                desk.git("merge", "-q", "origin/main")
                deskEdits("Buy soy milk")
                expect(gitCLI(["revert", "--no-edit", laptopEdit], in: desk.folder).status) != 0
                expect(desk.run("sync").status) == 0
                // The revert would bring back the text before the laptop's edit.
                expectRecordedAndRestorable(kept: "Buy soy milk", lost: "Buy milk")
            }

            it("stash pop: git stops and keeps the stash, and docket sync merges it with a record") {
                desk.run("edit", milk, "Buy rice milk")
                desk.git("stash", "-q")
                usleep(2000)
                deskEdits("Buy almond milk")
                expect(gitCLI(["stash", "pop"], in: desk.folder).status) != 0
                expect(desk.git("stash", "list")).notTo(beEmpty())
                let refused = desk.run("commit")
                expect(refused.stderr).to(contain("run 'docket sync'"))
                expect(desk.run("sync").status) == 0
                expectRecordedAndRestorable(kept: "Buy almond milk", lost: "Buy rice milk")
            }

            it(
                "cherry-pick: a sync killed once the files are merged leaves the record in git's message for the next one"
            ) {
                deskEdits("Buy soy milk")
                expect(gitCLI(["cherry-pick", laptopEdit], in: desk.folder).status) != 0
                expect(desk.run("sync", environment: ["DOCKET_FAULT": "after-settle"]).status) != 0
                expect(desk.run("sync").status) == 0
                expectRecordedAndRestorable(kept: "Buy soy milk", lost: "Buy oat milk")
            }

            for step in ["after-settle-record", "after-settle"] {
                it(
                    "stash pop: a sync killed \(step.replacingOccurrences(of: "-", with: " ")) leaves the record for the next one"
                ) {
                    desk.run("edit", milk, "Buy rice milk")
                    desk.git("stash", "-q")
                    usleep(2000)
                    deskEdits("Buy almond milk")
                    expect(gitCLI(["stash", "pop"], in: desk.folder).status) != 0
                    expect(desk.run("sync", environment: ["DOCKET_FAULT": step]).status) != 0
                    expect(desk.run("sync").status) == 0
                    expectRecordedAndRestorable(kept: "Buy almond milk", lost: "Buy rice milk")
                }
            }

            it("merge --squash: git stops on the file, and docket sync commits it with a record") {
                deskEdits("Buy soy milk")
                expect(gitCLI(["merge", "--squash", "origin/main"], in: desk.folder).status) != 0
                expect(desk.run("sync").status) == 0
                expectRecordedAndRestorable(kept: "Buy soy milk", lost: "Buy oat milk")
            }

            it("rebase in a linked worktree: git stops on the file, and docket sync merges instead, with a record") {
                let worktree = Machine(folder: machines.root.appendingPathComponent("desk-worktree"))
                desk.git("worktree", "add", "-q", "-b", "side", worktree.folder.path, "HEAD")
                worktree.git("branch", "-q", "--set-upstream-to=origin/main")
                worktree.run("edit", milk, "Buy soy milk")
                worktree.run("commit")
                expect(gitCLI(["rebase", "origin/main"], in: worktree.folder).status) != 0
                expect(worktree.run("sync").status) == 0
                expect(worktree.git("grep", "-l", "<<<<<<<")) == ""
                let record = try! Store.open(at: worktree.folder).merges(limit: 5).first { $0.report.losesValues }
                expect(record).notTo(beNil(), description: "the discarded value is in docket merges")
            }
        }

        describe("a peer without Docket's merge driver (jgit, a git without docket)") {
            it(
                "commits git's conflict markers: the next docket sync merges them again with a record, and no machine keeps them"
            ) {
                let peer = Machine(folder: machines.root.appendingPathComponent("peer"))
                gitCLI(["clone", "-q", machines.remote.path, peer.folder.path], in: machines.root)
                laptop.run("edit", milk, "Buy oat milk")
                laptop.run("sync")
                let path = StoreLayout.todo(
                    laptop.state.todos.first { $0.id.uuidString.lowercased().hasPrefix(milk) }!.id)
                let file = peer.folder.appendingPathComponent(path)
                try! String(contentsOf: file, encoding: .utf8).replacingOccurrences(
                    of: "\"Buy milk\"", with: "\"Buy soy milk\""
                )
                .write(to: file, atomically: false, encoding: .utf8)
                gitCLI(["commit", "-qam", "Edit on the peer"], in: peer.folder)
                gitCLI(["pull", "-q", "--no-rebase"], in: peer.folder)
                expect(try! String(contentsOf: file, encoding: .utf8)).to(contain("<<<<<<<"))
                gitCLI(["commit", "-qam", "Merge, markers and all"], in: peer.folder)
                expect(gitCLI(["push", "-q"], in: peer.folder).status) == 0

                let synced = desk.run("sync")
                expect(synced.status).to(equal(0), description: synced.stderr)
                expect(laptop.run("sync").status) == 0
                for machine in [desk, laptop] {
                    expect(machine.git("grep", "-l", "<<<<<<<", "HEAD", "--", "todos")) == ""
                    expect(machine.state.todos.first { $0.id.uuidString.lowercased().hasPrefix(milk) }?.text)
                        == "Buy oat milk"
                }
                expect(desk.run("merges").stdout).to(contain("Buy soy milk"))
                expect(fsckProblem(machines.remote)).to(beNil())
            }
        }

        describe("a broken file committed with git") {
            it("is never pushed on: sync refuses it, naming the file and the commit") {
                let bad = desk.folder.appendingPathComponent(StoreLayout.todo(twin))
                try FileManager.default.createDirectory(
                    at: bad.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data("{ broken".utf8).write(to: bad)
                gitCLI(["add", "-A"], in: desk.folder)
                gitCLI(["commit", "-qm", "Broken by hand"], in: desk.folder)
                let commit = desk.git("rev-parse", "--short=7", "HEAD").trimmingCharacters(in: .newlines)
                let before = gitCLI(["rev-parse", "main"], in: machines.remote).stdout
                let refused = desk.run("sync")
                expect(refused.status) == 1
                expect(refused.stderr).to(contain("\(StoreLayout.todo(twin)) in commit \(commit)"))
                expect(gitCLI(["rev-parse", "main"], in: machines.remote).stdout) == before
            }
        }

        describe("branch names") {
            it("a store on master syncs with a remote whose store is on main, with no second branch") {
                let other = machines.root.appendingPathComponent("master-store")
                gitCLI(["clone", "-q", "-b", "main", machines.remote.path, other.path], in: machines.root)
                gitCLI(["branch", "-q", "-m", "main", "master"], in: other)
                gitCLI(["config", "--unset", "branch.master.merge"], in: other)
                let master = Machine(folder: other)
                master.run("add", "From master")
                expect(master.run("sync").status) == 0
                laptop.run("sync")
                expect(laptop.state.todos.map(\.text)).to(contain("From master"))
                expect(gitCLI(["branch", "-r"], in: laptop.folder).stdout).toNot(contain("master"))
                expect(gitCLI(["for-each-ref", "--format=%(refname)", "refs/heads"], in: machines.remote).stdout)
                    == "refs/heads/main\n"
            }
            it("a plain git init --bare remote, then a plain git clone, checks out the store") {
                let bare = machines.root.appendingPathComponent("plain.git")
                gitCLI(["-c", "init.defaultBranch=master", "init", "-q", "--bare", bare.path], in: machines.root)
                laptop.run("remote", "add", "plain", bare.path)
                expect(laptop.run("push", "plain").status) == 0
                let cloned = machines.root.appendingPathComponent("plain-clone")
                gitCLI(["clone", "-q", bare.path, cloned.path], in: machines.root)
                expect(FileManager.default.fileExists(atPath: cloned.appendingPathComponent(StoreLayout.format).path))
                    == true
            }
            it(
                "a remote with several branches, none named as the store's and no upstream, is refused, naming them, until one is chosen as the message says"
            ) {
                gitCLI(["push", "-q", "origin", "main:other"], in: laptop.folder)
                // As a store cloned by git tracks every branch (docket clone tracks one).
                gitCLI(["config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"], in: desk.folder)
                gitCLI(["branch", "-q", "-m", "main", "mine"], in: desk.folder)
                gitCLI(["config", "--unset", "branch.mine.merge"], in: desk.folder)
                gitCLI(["symbolic-ref", "HEAD", "refs/heads/missing"], in: machines.remote)
                let refused = desk.run("pull")
                expect(refused.status) == 1
                expect(refused.stderr).to(contain("origin has several branches (main, other)"))
                gitCLI(["branch", "--set-upstream-to=origin/main"], in: desk.folder)
                expect(desk.run("pull").status) == 0
            }
        }

        describe("other git setups") {
            it("a shallow clone pulls, pushes and syncs while no merge needs history it lacks") {
                let shallow = Machine(folder: machines.root.appendingPathComponent("shallow"))
                gitCLI(
                    ["clone", "-q", "--depth", "1", "file://" + machines.remote.path, shallow.folder.path],
                    in: machines.root)
                shallow.run("add", "From the shallow clone")
                expect(shallow.run("sync").status) == 0
                laptop.run("add", "Even more")
                laptop.run("sync")
                expect(shallow.run("pull").status) == 0
                shallow.run("add", "Again from the shallow clone")
                shallow.run("commit")
                laptop.run("add", "At the same time")
                laptop.run("sync")
                let synced = shallow.run("sync")
                expect(synced.status).to(equal(0), description: synced.stderr)
                expect(laptop.run("sync").status) == 0
                expect(Set(laptop.state.todos.map(\.text))) == Set(shallow.state.todos.map(\.text))
                expect(laptop.state.todos.map(\.text)).to(contain("Again from the shallow clone"))
                expect(fsckProblem(machines.remote)).to(beNil())
            }
            it("a shallow clone's push that the remote's hook declines names git's push and what the hook said") {
                let shallow = Machine(folder: machines.root.appendingPathComponent("shallow"))
                gitCLI(
                    ["clone", "-q", "--depth", "1", "file://" + machines.remote.path, shallow.folder.path],
                    in: machines.root)
                let hook = machines.remote.appendingPathComponent("hooks/pre-receive")
                try? FileManager.default.createDirectory(
                    at: hook.deletingLastPathComponent(), withIntermediateDirectories: true)
                try! "#!/bin/sh\necho 'no pushes during the freeze' >&2\nexit 1\n".write(
                    to: hook, atomically: true, encoding: .utf8)
                try! FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook.path)
                shallow.run("add", "From the shallow clone")
                let refused = shallow.run("sync")
                expect(refused.status) == 1
                expect(refused.stderr).to(contain("'git push' with"))
                expect(refused.stderr).to(contain("no pushes during the freeze"))
                expect(shallow.state.todos.map(\.text)).to(contain("From the shallow clone"))
            }
            it(
                "a shallow clone sees its branch rewritten from before its first commit, and takes the rewrite when told"
            ) {
                laptop.run("add", "Dropped by a force push")
                laptop.run("sync")
                let shallow = Machine(folder: machines.root.appendingPathComponent("shallow"))
                gitCLI(
                    ["clone", "-q", "--depth", "1", "file://" + machines.remote.path, shallow.folder.path],
                    in: machines.root)
                // The remote's branch rewritten from before the commit the shallow clone starts at.
                laptop.git("reset", "-q", "--hard", "HEAD~1")
                laptop.run("add", "Instead")
                laptop.run("commit")
                expect(gitCLI(["push", "-q", "--force", "origin", "main"], in: laptop.folder).status) == 0
                shallow.run("add", "From the shallow clone")
                let refused = shallow.run("sync")
                expect(refused.status) == 1
                expect(refused.stderr).to(contain("origin/main was rewritten"))
                let synced = shallow.run("sync", "--accept-rewrite")
                expect(synced.status).to(equal(0), description: synced.stderr)
                expect(Set(shallow.state.todos.map(\.text))).to(
                    equal(["Buy milk", "Instead", "From the shallow clone"]))
                expect(fsckProblem(shallow.folder)).to(beNil())
            }
            it("a linked worktree adds, commits and syncs") {
                let tree = Machine(folder: machines.root.appendingPathComponent("worktree"))
                gitCLI(["worktree", "add", "-q", "-b", "elsewhere", tree.folder.path], in: laptop.folder)
                tree.run("add", "From the worktree")
                expect(tree.run("commit").status) == 0
                expect(tree.git("log", "-1", "--format=%s")) == "Add 1 todo\n"
            }
            it("honours GIT_AUTHOR_* and GIT_COMMITTER_* as git does") {
                desk.run("add", "Signed off")
                desk.run(
                    "commit",
                    environment: [
                        "GIT_AUTHOR_NAME": "Ann Author", "GIT_AUTHOR_EMAIL": "ann@example.invalid",
                        "GIT_AUTHOR_DATE": "@1700000000 +0100", "GIT_COMMITTER_NAME": "Cid Committer",
                    ])
                expect(desk.git("log", "-1", "--format=%an <%ae> %ad|%cn", "--date=raw"))
                    == "Ann Author <ann@example.invalid> 1700000000 +0100|Cid Committer\n"
            }
            it("signs commits with ssh when commit.gpgsign asks, and refuses naming the setting when it cannot") {
                let key = machines.root.appendingPathComponent("signing").path
                runCommand("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", key])
                desk.git("config", "commit.gpgsign", "true")
                desk.git("config", "gpg.format", "ssh")
                desk.git("config", "user.signingkey", key + ".pub")
                desk.run("add", "Signed")
                expect(desk.run("commit").status) == 0
                let allowed = machines.root.appendingPathComponent("allowed").path
                try "spec@example.invalid \(try String(contentsOfFile: key + ".pub", encoding: .utf8))".write(
                    toFile: allowed, atomically: true, encoding: .utf8)
                expect(
                    gitCLI(["-c", "gpg.ssh.allowedSignersFile=\(allowed)", "verify-commit", "HEAD"], in: desk.folder)
                        .status) == 0
                desk.git("config", "user.signingkey", key + ".missing")
                desk.run("add", "Unsigned")
                let refused = desk.run("commit")
                expect(refused.status) == 1
                expect(refused.stderr).to(
                    contain("commit.gpgsign is on, and signing the commit with ssh-keygen failed"))
            }
        }

        describe("hand edits") {
            func handEdit(_ machine: Machine, to text: String) throws {
                let file = machine.folder.appendingPathComponent(StoreLayout.todo(machine.state.todos[0].id))
                let edited = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(
                    of: "Buy milk", with: text)
                try Data(edited.utf8).write(to: file)
            }
            it("committed by docket commit weigh as made then, and win over an earlier edit elsewhere") {
                laptop.run("edit", milk, "Buy oat milk")
                laptop.run("sync")
                usleep(5000)
                try handEdit(desk, to: "Buy goat milk")
                desk.run("commit")
                desk.run("sync")
                laptop.run("sync")
                expect(laptop.state.todos[0].text) == "Buy goat milk"
                let decision = try Store.open(at: desk.folder).merges(limit: 1).first?.report.items.first?.fields.first
                { $0.field == "text" }
                expect(decision?.rule) == .laterEdit
                expect(decision?.kept) == "Buy goat milk"
            }
            it("committed with git weigh as made at their commit") {
                laptop.run("edit", milk, "Buy oat milk")
                laptop.run("sync")
                sleep(1)
                try handEdit(desk, to: "Buy goat milk")
                gitCLI(["commit", "-qam", "By hand"], in: desk.folder)
                desk.run("sync")
                expect(desk.state.todos[0].text) == "Buy goat milk"
            }
            it(
                "merged by plain git pull weigh as made at their commit, as docket sync weighs them, and merges says what was kept"
            ) {
                laptop.run("edit", milk, "Buy oat milk")
                laptop.run("sync")
                sleep(1)
                try handEdit(desk, to: "Buy goat milk")
                gitCLI(["commit", "-qam", "By hand"], in: desk.folder)
                let pulled = gitCLI(["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"], in: desk.folder)
                expect(pulled.status) == 0
                expect(desk.state.todos[0].text) == "Buy goat milk"
                let decision = try Store.open(at: desk.folder).merges(limit: 1).first?.report.items.first?.fields.first
                { $0.field == "text" }
                expect(decision?.kept) == "Buy goat milk"
                expect(decision?.lost) == "Buy oat milk"
            }
            it(
                "committed and pushed by dulwich, another git, are merged with a concurrent edit, and dulwich gets the merge"
            ) {
                let peer = machines.root.appendingPathComponent("dulwich")
                let script = """
                    import glob, json, os, sys
                    from dulwich import porcelain
                    remote, peer, action = sys.argv[1], sys.argv[2], sys.argv[3]
                    if action == "clone":
                        porcelain.clone(remote, peer)
                    elif action == "edit":
                        path = glob.glob(os.path.join(peer, "todos", "*", "*.json"))[0]
                        todo = json.load(open(path))
                        todo["text"] = "Buy goat milk"
                        open(path, "w").write(json.dumps(todo, indent=2, sort_keys=True) + "\\n")
                        porcelain.add(peer, [os.path.abspath(path)])
                        porcelain.commit(peer, message=b"Edited with dulwich", author=b"Dulwich <d@example.invalid>",
                                         committer=b"Dulwich <d@example.invalid>")
                        porcelain.push(peer, remote, b"refs/heads/main")
                    else:
                        porcelain.pull(peer, remote, b"refs/heads/main")
                        path = glob.glob(os.path.join(peer, "todos", "*", "*.json"))[0]
                        todo = json.load(open(path))
                        print(todo["text"], todo["completed"])
                    """
                func dulwich(_ action: String) -> CommandResult {
                    runCommand("python3", ["-c", script, machines.remote.path, peer.path, action])
                }
                expect(dulwich("clone").status) == 0
                laptop.run("done", milk)
                laptop.run("commit")
                let edited = dulwich("edit")
                expect(edited.status).to(equal(0), description: edited.stderr)
                expect(laptop.run("sync").stdout).to(contain("Merged origin"))
                expect(laptop.state.todos[0].text) == "Buy goat milk"
                expect(laptop.state.todos[0].completed) == true
                let pulled = dulwich("pull")
                expect(pulled.stdout).to(equal("Buy goat milk True\n"), description: pulled.stderr)
            }
        }
    }
}
