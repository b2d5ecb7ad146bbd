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

        /// Runs each command a message quotes ('git …', 'mv …'), as a user would.
        func follow(_ message: String, environment: [String: String] = [:]) {
            let quoted = try! NSRegularExpression(pattern: "'((?:git|mv) [^']+)'").matches(
                in: message, range: NSRange(message.startIndex..., in: message)
            )
            .map { String(message[Range($0.range(at: 1), in: message)!]) }
            expect(quoted).notTo(beEmpty())
            for command in quoted {
                for part in command.components(separatedBy: " && ") {
                    expect(runCommand("/bin/sh", ["-c", part], environment: environment).status).to(
                        equal(0), description: part)
                }
            }
        }

        for (name, setUp) in [
            ("split", ["-c", "core.splitIndex=true", "update-index", "--split-index"]),
            ("sparse", ["sparse-checkout", "init", "--cone", "--sparse-index"]),
        ] {
            it("refuses a \(name) index before adding anything, and its advice makes the store work again") {
                expect(gitCLI(setUp, in: store.folder).status) == 0
                if name == "sparse" {
                    expect(gitCLI(["sparse-checkout", "set", "todos", "projects", ".docket"], in: store.folder).status)
                        == 0
                }
                let before = files()
                let refused = store.run("add", "Second")
                expect(refused.status) != 0
                expect(refused.stderr).to(
                    contain(name == "split" ? "split (core.splitIndex)" : "sparse index (index.sparse)"))
                expect(store.run("status").status) != 0
                expect(store.state.todos.map(\.text)) == ["First"]
                follow(refused.stderr)
                expect(store.run("add", "Second").status) == 0
                expect(store.run("commit").status) == 0
                expect(files()) != before
                expect(store.git("status", "--porcelain")) == ""
            }
        }

        it(
            "refuses replacement objects and grafts, through which git sees other content and history, and each advice works"
        ) {
            let head = store.head
            let path = files().split(separator: "\n").first { $0.hasPrefix("todos/") }.map(String.init)!
            let blob = store.git("rev-parse", "HEAD:" + path).trimmingCharacters(in: .newlines)
            let other = store.git("rev-parse", "HEAD:.docket/format.json").trimmingCharacters(in: .newlines)
            store.git("replace", "-f", blob, other)
            var refused = store.run("add", "Second")
            expect(refused.stderr).to(contain("replacement objects"))
            expect(store.state.todos.count) == 1
            follow(refused.stderr)
            expect(store.run("add", "Second").status) == 0
            try! Data("\(head)\n".utf8).write(to: store.folder.appendingPathComponent(".git/info/grafts"))
            refused = store.run("commit")
            expect(refused.stderr).to(contain("grafts"))
            follow(refused.stderr)
            expect(store.run("commit").status) == 0
            expect(gitCLI(["fsck", "--strict"], in: store.folder).status) == 0
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
            let refused = store.run(
                "add", "Second", environment: ["GIT_DIR": other.appendingPathComponent(".git").path])
            expect(refused.status) != 0
            expect(refused.stderr).to(contain("GIT_DIR is set to"))
            expect(store.state.todos.count) == 1
            expect(
                store.run("add", "Second", environment: ["GIT_DIR": store.folder.appendingPathComponent(".git").path])
                    .status) == 0
            // GIT_WORK_TREE names the store to work on, as it names git's working tree.
            let result = runCommand(
                docketBinary, ["list"], in: root,
                environment: [
                    "GIT_WORK_TREE": store.folder.path, "GIT_DIR": store.folder.appendingPathComponent(".git").path,
                ])
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

        describe("with the user's own git configuration") {
            var home: URL!
            var environment: [String: String] {
                ["HOME": home.path, "XDG_CONFIG_HOME": home.path, "GIT_CONFIG_NOSYSTEM": "1"]
            }
            beforeEach {
                home = root.appendingPathComponent("home")
                try! FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            }
            func configure(_ text: String) { try! Data(text.utf8).write(to: home.appendingPathComponent(".gitconfig")) }

            it(
                "refuses to commit without an identity when user.useConfigOnly is set, as git does, and its advice works"
            ) {
                configure("[user]\n\tuseConfigOnly = true\n")
                store.run("add", "Second", environment: environment)
                let refused = store.run("commit", environment: environment)
                expect(refused.status) != 0
                expect(refused.stderr).to(contain("user.useConfigOnly"))
                // The advice, with this user's name and address in it.
                let advice = refused.stderr.replacingOccurrences(of: "Your Name", with: "Ann").replacingOccurrences(
                    of: "you@example.com", with: "ann@example.invalid")
                follow(advice, environment: environment)
                expect(store.run("commit", environment: environment).status) == 0
                expect(store.git("log", "-1", "--format=%an <%ae>")) == "Ann <ann@example.invalid>\n"
            }

            it("commits under the identity an includeIf hasconfig:remote.*.url gives, as git var names it") {
                let work = home.appendingPathComponent("work.gitconfig")
                try! Data("[user]\n\temail = ann@work.example\n".utf8).write(to: work)
                configure(
                    "[user]\n\tname = Ann\n\temail = ann@home.example\n[includeIf \"hasconfig:remote.*.url:https://work.example/**\"]\n\tpath = \(work.path)\n"
                )
                store.git("remote", "add", "origin", "https://work.example/lists.git")
                store.run("add", "Second", environment: environment)
                expect(store.run("commit", environment: environment).status) == 0
                expect(store.git("log", "-1", "--format=%an <%ae> %cn <%ce>"))
                    == "Ann <ann@work.example> Ann <ann@work.example>\n"
            }

            it("uses a store another user owns where safe.directory is *, as git does") {
                guard geteuid() == 0 else { return }
                expect(runCommand("chown", ["-R", "65534", store.folder.path]).status) == 0
                configure("[user]\n\tname = Ann\n\temail = ann@example.invalid\n")
                let refused = store.run("list", environment: environment)
                expect(refused.stderr).to(contain("belongs to another user"))
                configure("[user]\n\tname = Ann\n\temail = ann@example.invalid\n[safe]\n\tdirectory = *\n")
                expect(store.run("add", "Second", environment: environment).status) == 0
                expect(store.run("commit", environment: environment).status) == 0
                expect(runCommand("chown", ["-R", "0", store.folder.path]).status) == 0
            }
        }

        describe("git's client hooks") {
            func hook(_ name: String, _ body: String, in folder: String = ".git/hooks") {
                let url = store.folder.appendingPathComponent(folder).appendingPathComponent(name)
                try! FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try! Data("#!/bin/sh\n\(body)\n".utf8).write(to: url)
                chmod(url.path, 0o755)
            }
            var ran: URL { root.appendingPathComponent("ran") }
            func log() -> String { (try? String(contentsOf: ran, encoding: .utf8)) ?? "" }

            it(
                "runs pre-commit, which can refuse the commit and keep every change, and --no-verify skips it, as git's do"
            ) {
                hook("pre-commit", "echo 'no beer, please' >&2\ngit diff --cached | grep -q Beer && exit 1\nexit 0")
                store.run("add", "Buy Beer")
                let refused = store.run("commit")
                expect(refused.status) != 0
                expect(refused.stderr).to(contain("no beer, please"))
                expect(refused.stderr).to(contain("pre-commit hook"))
                expect(store.git("log", "--format=%s")).notTo(contain("Add 1 todo\nAdd"))
                expect(store.run("status").stdout).to(contain("added todo 'Buy Beer'"))
                expect(store.run("commit", "--no-verify").status) == 0
                expect(store.run("status").stdout).to(contain("Nothing to commit"))
            }

            it(
                "runs the hooks in core.hooksPath, and lets prepare-commit-msg and commit-msg change the message, and post-commit hear of it"
            ) {
                store.git("config", "core.hooksPath", "my-hooks")
                hook("prepare-commit-msg", "echo \"[$2] $(cat \"$1\")\" > \"$1\"", in: "my-hooks")
                hook("commit-msg", "printf '\\nSigned-off-by: Ann <ann@example.invalid>\\n' >> \"$1\"", in: "my-hooks")
                hook("post-commit", "git log -1 --format=%s > \(ran.path)", in: "my-hooks")
                store.run("add", "Second")
                expect(store.run("commit").status) == 0
                expect(store.git("log", "-1", "--format=%B").trimmingCharacters(in: .newlines))
                    == "[message] Add 1 todo\n\nSigned-off-by: Ann <ann@example.invalid>"
                expect(log()) == "[message] Add 1 todo\n"
            }

            it("runs pre-push with the remote and what is sent, which can refuse the push, and post-merge after a pull")
            {
                let remote = root.appendingPathComponent("remote.git")
                gitCLI(["init", "-q", "--bare", "-b", "main", remote.path], in: root)
                store.run("remote", "add", "origin", remote.path)
                hook("pre-push", "cat > \(ran.path)\necho \"$1 $2\" >> \(ran.path)\nexit 1")
                expect(store.run("push").status) != 0
                expect(gitCLI(["rev-parse", "--verify", "-q", "main"], in: remote).stdout) == ""
                expect(log())
                    == "refs/heads/main \(store.head) refs/heads/main \(String(repeating: "0", count: 40))\norigin \(remote.path)\n"
                expect(store.run("push", "--no-verify").status) == 0
                // Another machine's change, pulled: post-merge hears of it.
                let other = Machine(folder: root.appendingPathComponent("other"))
                runCommand(docketBinary, ["clone", remote.path, other.folder.path])
                other.run("add", "From the other")
                other.run("sync")
                hook("post-merge", "echo \"post-merge $1\" > \(ran.path)")
                expect(store.run("pull").status) == 0
                expect(log()) == "post-merge 0\n"
            }

            it(
                "runs reference-transaction around the branch's moves on commit and pull, as git does, and a refusal in prepared moves nothing"
            ) {
                let refuse = root.appendingPathComponent("refuse")
                hook(
                    "reference-transaction",
                    "echo \"== $1\" >> \(ran.path)\ncat >> \(ran.path)\n[ \"$1\" = prepared ] && [ -e \(refuse.path) ] && exit 1\nexit 0"
                )
                func states() -> [String] {
                    log().split(separator: "\n").filter { $0.hasPrefix("== ") }.map(String.init)
                }
                func lines(_ old: String, _ new: String) -> String {
                    "\(old) \(new) HEAD\n\(old) \(new) refs/heads/main\n"
                }
                let first = store.head
                store.run("add", "Second")
                expect(store.run("commit").status) == 0
                let second = store.head
                expect(log()) == "== prepared\n" + lines(first, second) + "== committed\n" + lines(first, second)

                // Refused in prepared: the hook hears aborted, the branch stays, the change stays uncommitted.
                try! FileManager.default.removeItem(at: ran)
                FileManager.default.createFile(atPath: refuse.path, contents: nil)
                store.run("add", "Third")
                let refused = store.run("commit")
                expect(refused.status) != 0
                expect(refused.stderr).to(contain("reference-transaction hook"))
                expect(store.head) == second
                expect(states()) == ["== prepared", "== aborted"]
                expect(log()).to(contain("\(second) "))
                expect(store.run("status").stdout).to(contain("added todo 'Third'"))
                try! FileManager.default.removeItem(at: refuse)
                expect(store.run("commit").status) == 0
                let third = store.head

                // A pull's fast-forward, refused and then taken: the files move only with the branch.
                let remote = root.appendingPathComponent("remote.git")
                gitCLI(["init", "-q", "--bare", "-b", "main", remote.path], in: root)
                store.run("remote", "add", "origin", remote.path)
                expect(store.run("push").status) == 0
                let other = Machine(folder: root.appendingPathComponent("other"))
                runCommand(docketBinary, ["clone", remote.path, other.folder.path])
                other.run("add", "From the other")
                expect(other.run("sync").status) == 0
                FileManager.default.createFile(atPath: refuse.path, contents: nil)
                try! FileManager.default.removeItem(at: ran)
                expect(store.run("pull").status) != 0
                expect(store.head) == third
                expect(store.git("status", "--porcelain")) == ""
                expect(store.state.todos.map(\.text)).notTo(contain("From the other"))
                expect(states()) == ["== prepared", "== aborted"]
                try! FileManager.default.removeItem(at: refuse)
                try! FileManager.default.removeItem(at: ran)
                expect(store.run("pull").status) == 0
                expect(store.head) == other.head
                expect(store.state.todos.map(\.text)).to(contain("From the other"))
                expect(log()) == "== prepared\n" + lines(third, other.head) + "== committed\n"
                    + lines(third, other.head)
            }
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
