import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// What a hostile or broken remote can serve, crafted with git's object
/// format directly, and what each machine must do with it: on every way in
/// (a fast-forward, a merge, a clone) set it aside, naming the file and the
/// commit, never write it, and go on with the rest.
final class HostileRemoteSpec: QuickSpec {
    override class func spec() {
        var machines: TwoMachines!
        var milk: UUID!
        beforeEach {
            machines = TwoMachines("docket-hostile")
            machines.laptop.run("add", "Buy milk")
            machines.laptop.run("sync")
            milk = machines.laptop.state.todos[0].id
            runCommand(docketBinary, ["clone", machines.remote.path, machines.desk.folder.path])
        }
        afterEach { try? FileManager.default.removeItem(at: machines.root) }

        let other = UUID(uuidString: "AB000000-0000-4000-8000-000000000001")!
        func todoJSON(_ id: UUID, _ text: String, due: String = "null") -> String {
            "{\"id\": \"\(id.uuidString)\", \"text\": \"\(text)\", \"creationDate\": \"2026-11-20T10:00:00.000Z\", \"completed\": false, \"dueDate\": \(due)}\n"
        }
        /// Each of `commands` on the desk fails saying all of `said`, and moves nothing.
        func refusedByDesk(_ commands: [String], saying said: [String]) {
            let before = machines.desk.head
            for command in commands {
                let result = machines.desk.run(command)
                expect(result.status).to(equal(1), description: "\(command): \(result.stderr)")
                for words in said { expect(result.stderr).to(contain(words)) }
            }
            expect(machines.desk.head) == before
        }
        /// A clone of the remote fails saying all of `said`, and leaves no folder behind.
        @discardableResult
        func refusedByClone(saying said: [String]) -> CommandResult {
            let target = machines.root.appendingPathComponent("refused-clone")
            let cloned = runCommand(docketBinary, ["clone", machines.remote.path, target.path])
            expect(cloned.status).to(equal(1), description: cloned.stderr)
            for words in said { expect(cloned.stderr).to(contain(words)) }
            expect(FileManager.default.fileExists(atPath: target.path)) == false
            return cloned
        }
        let cases: [(String, () -> (path: String, files: [CraftedFile]))] = [
            (
                "a link at an item's path",
                { (StoreLayout.todo(other), [.link(StoreLayout.todo(other), to: "/etc/passwd")]) }
            ),
            ("a link in place of a shard folder", { ("todos/CD", [.link("todos/CD", to: "/tmp")]) }),
            (
                "a link in place of the folder of removals",
                { (StoreLayout.removed, [.link(StoreLayout.removed, to: "/tmp")]) }
            ),
            (
                "an item that holds another item's id",
                { (StoreLayout.todo(other), [.file(StoreLayout.todo(other), todoJSON(milk, "Overwritten"))]) }
            ),
            (
                "an item under a lower-case name",
                {
                    let path = "todos/ab/\(other.uuidString.lowercased()).json"
                    return (path, [.file(path, todoJSON(other, "Look-alike"))])
                }
            ),
            (
                "a date no file can hold",
                {
                    (
                        StoreLayout.todo(other),
                        [.file(StoreLayout.todo(other), todoJSON(other, "Old", due: "\"0000-01-01T00:00:00.000Z\""))]
                    )
                }
            ),
            (
                "a file that does not decode",
                { (StoreLayout.todo(other), [.file(StoreLayout.todo(other), "{ broken")]) }
            ),
            (
                "a file over 1 MiB",
                {
                    (
                        StoreLayout.todo(other),
                        [
                            .file(
                                StoreLayout.todo(other), String(repeating: " ", count: 2 << 20) + todoJSON(other, "Big")
                            )
                        ]
                    )
                }
            ),
            (
                "a submodule in the store",
                {
                    (
                        StoreLayout.todo(other),
                        [.submodule(StoreLayout.todo(other), commit: String(repeating: "1", count: 40))]
                    )
                }
            ),
            (
                "a path that climbs out with ..",
                { ("todos/../../escaped.json", [.file("todos/../../escaped.json", "{}")]) }
            ),
            (
                "a path into git's own folder",
                {
                    (
                        ".git/hooks/post-checkout",
                        [.executable(".git/hooks/post-checkout", "#!/bin/sh\ntouch /tmp/docket-pwned\n")]
                    )
                }
            ),
            ("a path into git's folder by its short name", { ("GIT~1/config", [.file("GIT~1/config", "[core]\n")]) }),
        ]

        let refusedWhole: Set<String> = [
            "a path that climbs out with ..", "a path into git's own folder",
            "a path into git's folder by its short name",
        ]
        for (name, make) in cases {
            describe("a remote commit with \(name)") {
                var path: String!
                var commit: String!
                beforeEach {
                    let crafted = make()
                    path = crafted.path
                    commit = String(craftCommit(in: machines.remote, crafted.files).prefix(7))
                }
                /// What the bad file's commit brought is set aside: named with its commit, never on disk, and
                /// the store as it was (the milk, and nothing from the attacker).
                func setAside(_ result: CommandResult, on machine: Machine, keeping state: AppState) {
                    expect(result.status).to(equal(0), description: result.stderr)
                    expect(result.stdout + result.stderr).to(contain("from \(commit!)"))
                    expect(machine.state) == state
                    expect(machine.git("status", "--porcelain")) == ""
                    expect(machine.run("merges").stdout).to(contain("that docket cannot take in"))
                    var info = stat()
                    expect(lstat(machine.folder.appendingPathComponent(path).path, &info)).to(
                        equal(-1), description: "\(path) is on disk")
                    expect(FileManager.default.fileExists(atPath: "/tmp/docket-pwned")) == false
                    expect(
                        FileManager.default.fileExists(
                            atPath: machine.folder.appendingPathComponent(".git/docket-update").path)) == false
                    expect(fsckProblem(machine.folder)).to(beNil())
                }
                // A path git's own fsck rejects is refused whole, as git refuses it: taking the commit would put a tree
                // git calls corrupt into this machine's history.
                if refusedWhole.contains(name) {
                    it("is refused by a pull, a sync and a clone, naming the file and the commit, and nothing changes")
                    {
                        let desk = machines.desk
                        let before = (desk.head, desk.state)
                        for command in ["pull", "sync"] {
                            let result = desk.run(command)
                            expect(result.status) == 1
                            expect(result.stderr).to(contain("in commit \(commit!)"))
                        }
                        expect(desk.head) == before.0
                        expect(desk.state) == before.1
                        expect(desk.git("status", "--porcelain")) == ""
                        let target = machines.root.appendingPathComponent("fresh")
                        let cloned = runCommand(docketBinary, ["clone", machines.remote.path, target.path])
                        expect(cloned.status) == 1
                        expect(cloned.stderr).to(contain("in commit \(commit!)"))
                        expect(FileManager.default.fileExists(atPath: target.path)) == false
                    }
                    return
                }
                it(
                    "is set aside by a fast-forwarding pull, naming the file and the commit, and the store stays as it was"
                ) {
                    let desk = machines.desk
                    let before = desk.state
                    setAside(desk.run("pull"), on: desk, keeping: before)
                }
                it("is set aside by a merging pull and by sync, and this machine's work still leaves") {
                    let desk = machines.desk
                    desk.run("add", "Desk todo")
                    desk.run("commit")
                    let before = desk.state
                    setAside(desk.run("pull"), on: desk, keeping: before)
                    let synced = desk.run("sync")
                    expect(synced.status).to(equal(0), description: synced.stderr)
                    expect(machines.laptop.run("sync").status) == 0
                    expect(machines.laptop.state.todos.map(\.text)).to(contain("Desk todo"))
                    expect(fsckProblem(machines.remote)).to(beNil())
                }
                it("is set aside by a clone, which still makes the store") {
                    let fresh = Machine(folder: machines.root.appendingPathComponent("fresh"))
                    let result = runCommand(docketBinary, ["clone", machines.remote.path, fresh.folder.path])
                    expect(result.status).to(equal(0), description: result.stderr)
                    setAside(fresh.run("status"), on: fresh, keeping: machines.laptop.state)
                }
            }
        }

        describe("a submodule at an item's path, committed with git on this machine") {
            it("is named as a submodule by sync, not as an object to fetch again, and nothing leaves") {
                let desk = machines.desk
                desk.git(
                    "update-index", "--add", "--cacheinfo",
                    "160000,\(String(repeating: "1", count: 40)),\(StoreLayout.todo(other))")
                desk.git("commit", "-qm", "A submodule")
                let remoteHead = gitCLI(["rev-parse", "main"], in: machines.remote).stdout
                let result = desk.run("sync")
                expect(result.status) == 1
                expect(result.stderr).to(contain(shown(StoreLayout.todo(other))))
                expect(result.stderr).to(contain("is a submodule (a commit of another repository"))
                expect(result.stderr).toNot(contain("--refetch"))
                expect(gitCLI(["rev-parse", "main"], in: machines.remote).stdout) == remoteHead
            }
        }

        describe("a remote project file whose order key is the largest number there is") {
            it("is taken in, and adding and ordering projects goes on") {
                let project = UUID(uuidString: "CC000000-0000-4000-8000-000000000001")!
                craftCommit(
                    in: machines.remote,
                    [
                        .file(
                            StoreLayout.project(project),
                            "{\"id\": \"\(project.uuidString)\", \"title\": \"Far\", \"alterDate\": null, \"position\": 9223372036854775807}\n"
                        )
                    ])
                let desk = machines.desk
                expect(desk.run("pull").status) == 0
                let added = desk.run("project", "add", "Near")
                expect(added.status) == 0
                expect(desk.state.projects.map(\.title)) == ["Far", "Near"]
                expect(desk.run("sync").status) == 0
            }
        }

        describe("a remote of 1,000 todos, which a clone checks on all cores") {
            var fresh: URL!
            beforeEach {
                let list = machines.root.appendingPathComponent("todo.txt")
                try! (1...1_000).map { "Todo number \($0)\n" }.joined().write(
                    to: list, atomically: true, encoding: .utf8)
                machines.laptop.run("import", "todotxt", list.path)
                machines.laptop.run("sync")
                fresh = machines.root.appendingPathComponent("fresh")
            }
            it("is cloned whole") {
                let result = runCommand(docketBinary, ["clone", machines.remote.path, fresh.path])
                expect(result.status) == 0
                let cloned = Machine(folder: fresh)
                expect(cloned.state.todos.count) == 1_001
                expect(cloned.git("status", "--porcelain")) == ""
            }
            it("with two bad files among them, is cloned with both set aside, each named with its commit") {
                let early = UUID(uuidString: "10000000-0000-4000-8000-000000000001")!
                let late = UUID(uuidString: "F0000000-0000-4000-8000-000000000001")!
                let commit = String(
                    craftCommit(
                        in: machines.remote,
                        [.file(StoreLayout.todo(late), "{ broken"), .file(StoreLayout.todo(early), "{ broken")]
                    ).prefix(7))
                let result = runCommand(docketBinary, ["clone", machines.remote.path, fresh.path])
                expect(result.status).to(equal(0), description: result.stderr)
                let merges = docket(["merges"], store: fresh).stdout
                expect(merges).to(contain("Set aside 2 files from origin/main"))
                expect(merges).to(contain("[1] \(StoreLayout.todo(early)) from \(commit)"))
                expect(merges).to(contain("[2] \(StoreLayout.todo(late)) from \(commit)"))
                expect((try? Store.open(at: fresh).load().state.todos.count) ?? 0) == 1_001
            }
        }

        describe("a removal dated far ahead of the commit that carries it") {
            it("is named in the merge's summary and by docket merges") {
                let tombstone =
                    "{\"id\": \"\(milk.uuidString)\", \"kind\": \"todo\", \"removedDate\": \"9999-01-01T00:00:00.000Z\", \"path\": \"\(StoreLayout.todo(milk))\"}\n"
                craftCommit(
                    in: machines.remote,
                    [.removed(StoreLayout.todo(milk)), .file(StoreLayout.tombstone(milk), tombstone)])
                let desk = machines.desk
                desk.run("add", "Desk todo")
                desk.run("commit")
                let pulled = desk.run("pull")
                expect(pulled.stdout).to(
                    contain("1 date far ahead of its commit: todo 'Buy milk' removedDate 9999-01-01"))
                expect(desk.run("merges").stdout).to(
                    contain("removedDate 9999-01-01T00:00:00.000Z is far ahead of its commit"))
            }
            it("is named by a pull that fast-forwards too, and the todo it brings can still be edited") {
                let ahead = todoJSON(other, "From the future").replacingOccurrences(
                    of: "\"dueDate\": null}", with: "\"dueDate\": null, \"alterDate\": \"9999-12-31T23:59:59.999Z\"}")
                craftCommit(in: machines.remote, [.file(StoreLayout.todo(other), ahead)])
                let desk = machines.desk
                let pulled = desk.run("pull")
                expect(pulled.stdout).to(contain("Fast-forwarded to "))
                expect(pulled.stdout).to(
                    contain("todo 'From the future' alterDate 9999-12-31T23:59:59.999Z is far ahead of its commit"))
                expect(desk.run("edit", other.uuidString.lowercased(), "Now").status) == 0
                expect(desk.run("sync").status) == 0
                expect(desk.state.todo(id: other)?.text) == "Now"
            }
            it("lets the later of two concurrent edits of a todo pinned at year 9999 win on both machines") {
                let ahead = todoJSON(other, "Pinned").replacingOccurrences(
                    of: "\"dueDate\": null}", with: "\"dueDate\": null, \"alterDate\": \"9999-12-31T23:59:59.999Z\"}")
                craftCommit(in: machines.remote, [.file(StoreLayout.todo(other), ahead)])
                let (desk, laptop) = (machines.desk, machines.laptop)
                expect(desk.run("sync").status) == 0
                expect(laptop.run("sync").status) == 0
                let id = other.uuidString.lowercased()
                let earlier = ["DOCKET_NOW": "2026-11-28T10:00:00+01:00"]
                let later = ["DOCKET_NOW": "2026-11-28T11:00:00+01:00"]
                expect(desk.run("edit", id, "Buy oat milk", environment: earlier).status) == 0
                expect(desk.run("sync", environment: earlier).status) == 0
                expect(laptop.run("edit", id, "Buy almond milk", environment: later).status) == 0
                expect(laptop.run("sync", environment: later).status) == 0
                expect(desk.run("sync", environment: later).status) == 0
                expect(laptop.state.todo(id: other)?.text) == "Buy almond milk"
                expect(desk.state.todo(id: other)?.text) == "Buy almond milk"
            }
        }

        describe("a file of 150 MiB outside the store's folders (150 KB packed)") {
            it("is refused by pull, sync and clone before anything reads it whole, and changes nothing") {
                craftCommit(in: machines.remote, [.zeros("video.bin", count: 150 << 20)])
                refusedByDesk(["pull", "sync"], saying: ["holds a file of 150 MiB", "over the 100 MiB docket copies"])
                refusedByClone(saying: [
                    "video.bin in commit", "is a file of 150 MiB, over the 100 MiB docket takes in outside its folders",
                ])
            }
        }

        describe("a commit of 1,001,000 files (one blob, named a million times)") {
            it("is refused by pull and clone with a message, and changes nothing") {
                // 1,001 folders of 1,000 names each, all the same small blob: 33 MB of trees.
                let crafted = runCommand(
                    "python3",
                    [
                        "-c",
                        """
                        import hashlib, os, subprocess, sys, zlib
                        repo = sys.argv[1]
                        def put(kind, body):
                            data = kind + b" " + str(len(body)).encode() + b"\\0" + body
                            sha = hashlib.sha1(data).hexdigest()
                            os.makedirs(os.path.join(repo, "objects", sha[:2]), exist_ok=True)
                            with open(os.path.join(repo, "objects", sha[:2], sha[2:]), "wb") as f:
                                f.write(zlib.compress(data, 1))
                            return bytes.fromhex(sha)
                        blob = put(b"blob", b"x\\n")
                        folder = put(b"tree", b"".join(b"100644 %06d\\0" % i + blob for i in range(1000)))
                        bulk = put(b"tree", b"".join(b"40000 %04d\\0" % i + folder for i in range(1001)))
                        parent = subprocess.run(["git", "-C", repo, "rev-parse", "main"], capture_output=True, text=True).stdout.strip()
                        entries = subprocess.run(["git", "-C", repo, "cat-file", "-p", parent + "^{tree}"], capture_output=True, text=True).stdout
                        lines = [l for l in entries.splitlines() if l]
                        body = b""
                        items = [(l.split("\\t")[1].encode(), l.split()[0].encode(), bytes.fromhex(l.split()[2])) for l in lines]
                        items.append((b"bulk", b"40000", bulk))
                        for name, mode, sha in sorted(items, key=lambda e: e[0] + (b"/" if e[1] == b"40000" else b"")):
                            body += mode + b" " + name + b"\\0" + sha
                        root = put(b"tree", body)
                        commit = put(b"commit", b"tree " + root.hex().encode() + b"\\nparent " + parent.encode()
                                     + b"\\nauthor M <m@example.invalid> 1795339800 +0000\\ncommitter M <m@example.invalid> 1795339800 +0000\\n\\nMany\\n")
                        subprocess.run(["git", "-C", repo, "update-ref", "refs/heads/main", commit.hex()], check=True)
                        """, machines.remote.path,
                    ])
                expect(crafted.status).to(equal(0), description: crafted.stderr)
                refusedByDesk(["pull"], saying: ["brings more than 1,000,000 files, more than docket takes in"])
                refusedByClone(saying: ["brings more than 1,000,000 files"])
            }
        }

        describe("a tree naming a billion files (nine folders of ten names of one subtree)") {
            it("is refused by pull, sync and clone once a million are counted, not after walking them all") {
                // A few kilobytes: each folder names the one below it ten times. Walked whole, a pull never ended.
                let crafted = runCommand(
                    "python3",
                    [
                        "-c",
                        """
                        import subprocess, sys
                        repo = sys.argv[1]
                        def git(*args, input=None):
                            return subprocess.run(["git", "-C", repo, "-c", "user.name=M", "-c", "user.email=m@example.invalid"] + list(args),
                                                  input=input, capture_output=True,
                                                  text=True, check=True).stdout.strip()
                        blob = git("hash-object", "-w", "--stdin", input="x\\n")
                        tree = git("mktree", input="".join("100644 blob %s\\tf%d\\n" % (blob, i) for i in range(10)))
                        for level in range(8):
                            tree = git("mktree", input="".join("040000 tree %s\\td%d\\n" % (tree, i) for i in range(10)))
                        root = git("mktree", input=git("ls-tree", "main") + "\\n040000 tree %s\\tbulk\\n" % tree)
                        commit = git("commit-tree", root, "-p", "main", "-m", "A billion names")
                        git("update-ref", "refs/heads/main", commit)
                        """, machines.remote.path,
                    ])
                expect(crafted.status).to(equal(0), description: crafted.stderr)
                refusedByDesk(["pull", "sync"], saying: ["brings more than 1,000,000 files"])
                refusedByClone(saying: ["brings more than 1,000,000 files"])
            }
        }

        describe("eleven names of one 99 MiB file of zeros (about 100 KB packed)") {
            it("is refused by pull, sync and clone before a byte is written, and changes nothing") {
                // Each file is under the 100 MiB limit; together they would write 1.1 GB from a remote of 700 KB.
                craftCommit(in: machines.remote, (1...11).map { .zeros("media/copy-\($0).bin", count: 99 << 20) })
                refusedByDesk(["pull", "sync"], saying: ["would write more than 1 GiB of files"])
                let media = machines.desk.folder.appendingPathComponent("media")
                expect(FileManager.default.fileExists(atPath: media.path)) == false
                refusedByClone(saying: ["would write more than 1 GiB of files"])
            }
        }

        describe("a tree 2,100 folders deep") {
            // Deeper than the 256 Docket reads, and a path longer than 4,096 bytes.
            let deep = "deep/" + String(repeating: "d/", count: 2_100) + "file"
            it("is refused by pull and sync with a message, not a crash, again and again, and changes nothing") {
                craftCommit(in: machines.remote, [.file(deep, "x")])
                refusedByDesk(["pull", "sync", "sync"], saying: ["nested more than 256 deep"])
                expect(machines.desk.run("status").status) == 0
            }
            it("is refused by clone, which leaves no folder behind and names the path in a line") {
                craftCommit(in: machines.remote, [.file(deep, "x")])
                // NB: a clone walks the commit's tree first, as deep as a pull's would go, and no deeper.
                let refused = refusedByClone(saying: ["nested more than 256 deep"])
                // The path is shown by its start and end, not as 4 KB of one line.
                expect(refused.stderr.count) < 600
            }
        }

        describe("a tree 300 folders deep, in a path shorter than 4,096 bytes") {
            let deep = "deep/" + String(repeating: "d/", count: 300) + "file"
            it("is refused by pull and by clone alike, as SECURITY.md says") {
                craftCommit(in: machines.remote, [.file(deep, "x")])
                refusedByDesk(["pull"], saying: ["nested more than 256 deep"])
                refusedByClone(saying: ["nested more than 256 deep"])
            }
        }

        describe("a remote address with a password") {
            let url = "https://me:s3cret-token@127.0.0.1:1/lists.git"
            it("is refused by clone and remote add, and the secret is never shown") {
                let cloned = runCommand(docketBinary, ["clone", url, machines.root.appendingPathComponent("x").path])
                expect(cloned.status) == 1
                expect(cloned.stderr).to(
                    contain("https://***@127.0.0.1:1/lists.git carries a user name, password or token before the host"))
                let added = machines.desk.run("remote", "add", "web", url)
                expect(added.status) == 1
                expect(cloned.stdout + cloned.stderr + added.stdout + added.stderr).toNot(contain("s3cret"))
                expect(machines.desk.git("config", "--get-regexp", "remote")).toNot(contain("s3cret"))
            }
            it("is refused with a token as the user name, which some forges document, and nothing keeps it") {
                let token = "https://ghp_T0kenT0kenT0ken@127.0.0.1:1/lists.git"
                let cloned = runCommand(docketBinary, ["clone", token, machines.root.appendingPathComponent("x").path])
                expect(cloned.status) == 1
                expect(cloned.stderr).to(contain("DOCKET_GIT_USERNAME and DOCKET_GIT_TOKEN"))
                expect(FileManager.default.fileExists(atPath: machines.root.appendingPathComponent("x").path)) == false
                let added = machines.desk.run("remote", "add", "web", token)
                expect(added.status) == 1
                expect(cloned.stderr + added.stderr).toNot(contain("T0ken"))
                let kept = runCommand(
                    "grep", ["-r", "T0ken", machines.desk.folder.appendingPathComponent(".git").path])
                expect(kept.stdout).to(beEmpty())
            }
            it("added with git is shown without its user-info, and failures never show the secret") {
                machines.desk.git("remote", "add", "web", url)
                let listed = machines.desk.run("remote", "list")
                expect(listed.stdout).to(contain("web  https://***@127.0.0.1:1/lists.git"))
                let pulled = machines.desk.run("pull", "web")
                expect(pulled.status) == 1
                expect(listed.stdout + pulled.stdout + pulled.stderr).toNot(contain("s3cret"))
            }
        }
    }
}

/// ssh addresses whose user or host ssh would read as an option, and addresses
/// holding control characters: refused before anything runs, as git refuses them.
final class HostileAddressSpec: QuickSpec {
    override class func spec() {
        var machines: TwoMachines!
        beforeEach { machines = TwoMachines("docket-address") }
        afterEach { try? FileManager.default.removeItem(at: machines.root) }

        let proof = { (root: URL) in root.appendingPathComponent("ran") }
        for form in [
            "ssh://-oProxyCommand=touch%20RAN@host/repo.git", "-oProxyCommand=touch RAN@host:repo.git",
            "ssh://-Fconfig@host/repo.git", "ssh://me@-oProxyCommand=touch%20RAN/repo.git", "-E log@host:repo.git",
        ] {
            it("refuses \(form) at clone and remote add, and never runs ssh with it") {
                // NB: the scp-like form is ssh only without a '/' before its ':', so its proof is a name, not a path.
                let url = form.replacingOccurrences(
                    of: "RAN", with: form.hasPrefix("ssh://") ? proof(machines.root).path : "ran")
                let target = machines.root.appendingPathComponent("x")
                // "--", as a script passing an address on would: an address starting with '-' is then taken as the
                // address.
                let cloned = runCommand(
                    docketBinary, ["clone", "--", url, target.path],
                    environment: ["GIT_SSH_COMMAND": "touch \(proof(machines.root).path); false"])
                expect(cloned.status) == 1
                expect(cloned.stderr).to(contain("starts with '-', which ssh would take as an option"))
                let added = machines.laptop.run("remote", "add", "--", "evil", url)
                expect(added.status) == 1
                expect(added.stderr).to(contain("starts with '-', which ssh would take as an option"))
                expect(machines.laptop.git("remote")).toNot(contain("evil"))
                expect(FileManager.default.fileExists(atPath: proof(machines.root).path)) == false
            }
        }

        it("refuses such an address added with git when it syncs, before ssh runs") {
            let url = "ssh://-oProxyCommand=touch%20\(proof(machines.root).path)@host/repo.git"
            gitCLI(["remote", "add", "evil", url], in: machines.laptop.folder)
            let pulled = machines.laptop.run("pull", "evil")
            expect(pulled.status) == 1
            expect(pulled.stderr).to(contain("starts with '-', which ssh would take as an option"))
            expect(FileManager.default.fileExists(atPath: proof(machines.root).path)) == false
        }

        // NB: `user@[:path` made the address parser copy a length of -1: clone, remote add and pull aborted (134).
        for form in ["user@[:path", "[:path", "user@[::1:path", "ssh://[::1/lists.git", "ssh://host:99999/lists.git"] {
            it("refuses the ssh address \(form), which does not read, at clone, remote add and pull") {
                let cloned = runCommand(docketBinary, ["clone", form, machines.root.appendingPathComponent("x").path])
                expect(cloned.status) == 1
                expect(cloned.stderr).to(contain("is not an ssh address docket understands: its "))
                let added = machines.laptop.run("remote", "add", "odd", form)
                expect(added.status) == 1
                expect(added.stderr).to(contain("is not an ssh address docket understands: its "))
                expect(machines.laptop.git("remote")).toNot(contain("odd"))
                gitCLI(["remote", "add", "odd", form], in: machines.laptop.folder)
                let pulled = machines.laptop.run("pull", "odd")
                expect(pulled.status) == 1
                expect(pulled.stderr).to(contain("is not an ssh address docket understands: its "))
            }
        }

        it("names a folder holding a newline escaped, on one line, when it clones or starts a store there") {
            let cloned = runCommand(
                docketBinary, ["clone", machines.remote.path, machines.root.appendingPathComponent("new\nline").path])
            expect(cloned.status) == 0
            expect(cloned.stdout) == "Cloned \(machines.remote.path) into \(machines.root.path)/new\\nline (0 todos).\n"
            let started = runCommand(docketBinary, ["init", machines.root.appendingPathComponent("odd\u{1B}[2J").path])
            expect(started.status) == 0
            expect(started.stdout) == "Created a Docket store in \(machines.root.path)/odd\\e[2J\n"
        }

        it("refuses an address holding a newline or another control character") {
            for url in ["/tmp/lists\n.git", "ssh://host/lists\u{1B}[2J.git", "/tmp/a\u{2028}b.git"] {
                let added = machines.laptop.run("remote", "add", "odd", url)
                expect(added.status) == 1
                expect(added.stderr).to(contain("holds a control character"))
                expect(added.stderr).toNot(contain("\u{1B}"))
            }
        }
    }
}

/// What a path looks like in docket's messages: control characters escaped.
private func shown(_ path: String) -> String {
    path.replacingOccurrences(of: "\u{1B}", with: "\\e")
}
