import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

final class FaultSpec: QuickSpec {
    override class func spec() {
        var root: URL!
        var remote: URL!
        var laptop: Machine!
        var desk: Machine!
        beforeEach {
            let machines = TwoMachines("docket-fault")
            (root, remote, laptop, desk) = (machines.root, machines.remote, machines.laptop, machines.desk)
            laptop.run("add", "Buy milk")
            laptop.run("sync")
            runCommand(docketBinary, ["clone", remote.path, desk.folder.path])
        }
        afterEach { try? FileManager.default.removeItem(at: root) }
        func remoteHead() -> String { gitCLI(["rev-parse", "main"], in: remote).stdout }

        describe("a connection that breaks off") {
            var daemon: GitDaemon!
            beforeEach {
                daemon = GitDaemon(serving: root)
                // Enough to send that a cut lands mid-transfer.
                for i in 1...150 { laptop.run("add", "Todo number \(i) with a realistic length of text") }
                laptop.run("commit")
            }
            afterEach { daemon.stop() }
            it("shows progress on stderr when a transfer takes more than a second on a terminal") {
                laptop.run("push")
                let proxy = CuttingProxy(to: daemon.port, direction: "slow", bytes: 80)
                defer { proxy.stop() }
                let target = root.appendingPathComponent("slow").path
                let shown = runCommand(
                    "script",
                    ["-qec", "\(docketBinary) clone git://127.0.0.1:\(proxy.port)/remote.git \(target)", "/dev/null"])
                expect(shown.stdout).to(contain("objects"))
                expect(shown.stdout).to(contain("KiB"))
                let quiet = runCommand(
                    docketBinary, ["clone", "git://127.0.0.1:\(proxy.port)/remote.git", target + "2"])
                expect(quiet.stderr).toNot(contain("objects"))
            }
            it("mid-fetch fails the pull with its own message and changes nothing") {
                laptop.run("push")
                desk.run("add", "Desk")
                desk.run("commit")
                let proxy = CuttingProxy(to: daemon.port, direction: "down", bytes: 4000)
                defer { proxy.stop() }
                desk.run("remote", "add", "cut", "git://127.0.0.1:\(proxy.port)/remote.git")
                let before = (desk.head, desk.state)
                let result = desk.run("pull", "cut")
                expect(result.status) == 1
                expect(result.stderr).to(contain("broke off during the transfer"))
                expect(desk.head) == before.0
                expect(desk.state) == before.1
                expect(desk.git("status", "--porcelain")) == ""
                expect(desk.run("pull").status) == 0
                expect(desk.state.todos.count) == 152
            }
            it("mid-push fails the push with its own message, and neither side changes") {
                let proxy = CuttingProxy(to: daemon.port, direction: "up", bytes: 4000)
                defer { proxy.stop() }
                laptop.run("remote", "add", "cut", "git://127.0.0.1:\(proxy.port)/remote.git")
                let (local, upstream) = (laptop.head, remoteHead())
                let result = laptop.run("push", "cut")
                expect(result.status) == 1
                expect(result.stderr).to(contain("broke off during the transfer"))
                expect(laptop.head) == local
                expect(remoteHead()) == upstream
                expect(laptop.run("push").status) == 0
                expect(remoteHead()) == laptop.head + "\n"
            }
        }

        describe("a pull killed") {
            beforeEach {
                laptop.run("add", "Laptop")
                laptop.run("sync")
                desk.run("add", "Desk")
                desk.run("commit")
            }
            for step in ["after-fetch", "after-merge-commit", "after-checkout"] {
                it("\(step.replacingOccurrences(of: "-", with: " ")) is finished by running it again, losing nothing") {
                    let killed = desk.run("pull", environment: ["DOCKET_FAULT": step])
                    expect(killed.status) == 137
                    let again = desk.run("pull")
                    expect(again.status) == 0
                    expect(Set(desk.state.todos.map(\.text))) == Set(["Buy milk", "Laptop", "Desk"])
                    expect(desk.git("status", "--porcelain")) == ""
                    expect(desk.git("rev-list", "--parents", "-n", "1", "HEAD").split(separator: " ").count) == 3
                    expect(gitCLI(["fsck"], in: desk.folder).status) == 0
                    expect(desk.run("sync").status) == 0
                    laptop.run("sync")
                    expect(laptop.state) == desk.state
                }
            }
        }

        describe("a pull killed while it writes the store's files") {
            beforeEach {
                for i in 1...12 { laptop.run("add", "Laptop todo \(i)") }
                laptop.run("sync")
                let killed = desk.run("pull", environment: ["DOCKET_FAULT": "mid-batch"])
                expect(killed.status) == 137
            }
            func itemFiles() -> [URL] {
                let todos = desk.folder.appendingPathComponent(StoreLayout.todos)
                let shards =
                    (try? FileManager.default.contentsOfDirectory(at: todos, includingPropertiesForKeys: nil)) ?? []
                return shards.flatMap {
                    (try? FileManager.default.contentsOfDirectory(at: $0, includingPropertiesForKeys: nil)) ?? []
                }
                .filter { !$0.lastPathComponent.hasPrefix(".") }
            }
            it("leaves every item file whole, old or new, never empty") {
                for file in itemFiles() {
                    expect(try? DocketJSON.decode(TodoItem.self, from: Data(contentsOf: file))).toNot(
                        beNil(), description: file.path)
                }
            }
            it("is finished by the next sync, which ignores a todo made in between, and leaves nothing behind") {
                desk.run("add", "Mine")
                expect(desk.run("sync").status) == 0
                expect(desk.git("status", "--porcelain")) == ""
                expect(desk.state.todos.count) == 14
                expect(desk.state.todos.map(\.text)).to(contain("Mine"))
                expect(
                    FileManager.default.fileExists(
                        atPath: desk.folder.appendingPathComponent(".git/docket-update").path)) == false
                expect(desk.run("sync").status) == 0
                laptop.run("sync")
                expect(laptop.state) == desk.state
            }
            it(
                "is said by status, and finished first by an edit, done, tag or note, which then syncs with nothing lost"
            ) {
                expect(desk.run("status").stdout).to(contain("A pull was interrupted while it wrote the store's files"))
                let pulled = desk.state.todos.first { $0.text.hasPrefix("Laptop") }!
                let id = pulled.id.uuidString.lowercased()
                for command in [
                    ["edit", id, "Edited on the desk"], ["done", id], ["tag", id, "+home"], ["note", id, "Call first"],
                ] {
                    let result = docket(command, store: desk.folder)
                    expect(result.status).to(equal(0), description: "\(command): \(result.stderr)")
                }
                expect(
                    FileManager.default.fileExists(
                        atPath: desk.folder.appendingPathComponent(".git/docket-update").path)) == false
                expect(desk.run("status").stdout).toNot(contain("interrupted"))
                let synced = desk.run("sync")
                expect(synced.status).to(equal(0), description: synced.stderr)
                expect(desk.state.todos.count) == 13
                let edited = desk.state.todo(id: pulled.id)
                expect(edited?.text) == "Edited on the desk"
                expect(edited?.completed) == true
                expect(edited?.tags) == ["home"]
                expect(edited?.notes.map(\.text)) == ["Call first"]
                laptop.run("sync")
                expect(laptop.state) == desk.state
            }

            it("names a file changed by hand since, and finishes once it is moved out, as the message says") {
                let touched = itemFiles().first {
                    (try? DocketJSON.decode(TodoItem.self, from: Data(contentsOf: $0)))?.text.hasPrefix("Laptop")
                        == true
                }!
                try Data("{\"mine\": true}\n".utf8).write(to: touched)
                let refused = desk.run("pull")
                expect(refused.status) == 1
                expect(refused.stderr).to(contain("has been changed since; move your version of it out of the store"))
                try FileManager.default.moveItem(at: touched, to: root.appendingPathComponent("mine.json"))
                expect(desk.run("pull").status) == 0
                expect(desk.state.todos.count) == 13
                expect(desk.git("status", "--porcelain")) == ""
            }
        }

        describe("a clone killed while it writes the store's files") {
            for step in ["clone-started", "after-clone-fetch"] {
                it(
                    "killed at \(step.replacingOccurrences(of: "-", with: " ")) leaves a folder the next clone into it starts again"
                ) {
                    let fresh = Machine(folder: root.appendingPathComponent("fresh"))
                    let killed = runCommand(
                        docketBinary, ["clone", remote.path, fresh.folder.path], environment: ["DOCKET_FAULT": step])
                    expect(killed.status) == 137
                    let again = runCommand(docketBinary, ["clone", remote.path, fresh.folder.path])
                    expect(again.status).to(equal(0), description: again.stderr)
                    expect(fresh.state.todos.map(\.text)) == ["Buy milk"]
                    expect(fresh.git("status", "--porcelain")) == ""
                    expect(
                        FileManager.default.fileExists(atPath: root.appendingPathComponent(".fresh.docket-clone").path))
                        == false
                }
            }

            it("never takes a folder holding a git repository of someone's for a killed clone") {
                let mine = root.appendingPathComponent("mine")
                gitCLI(["init", "-q", mine.path], in: root)
                try! "999999\n".write(
                    to: root.appendingPathComponent(".mine.docket-clone"), atomically: true, encoding: .utf8)
                try! "notes\n".write(to: mine.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
                let refused = runCommand(docketBinary, ["clone", remote.path, mine.path])
                expect(refused.status) == 1
                expect(refused.stderr).to(contain("exists and is not empty"))
                expect(FileManager.default.fileExists(atPath: mine.appendingPathComponent("notes.txt").path)) == true
            }

            it("is finished by the next command, which neither commits nor pushes a removal") {
                // Enough files that every part of the checkout has some to write.
                for i in 1...40 { laptop.run("add", "Todo number \(i)") }
                laptop.run("sync")
                let fresh = Machine(folder: root.appendingPathComponent("fresh"))
                let killed = runCommand(
                    docketBinary, ["clone", remote.path, fresh.folder.path],
                    environment: ["DOCKET_FAULT": "mid-checkout"])
                expect(killed.status) == 137
                expect(
                    FileManager.default.fileExists(
                        atPath: fresh.folder.appendingPathComponent(".git/docket-clone").path)) == true
                // The index's lock file a checkout killed midway leaves, which no process holds.
                _ = FileManager.default.createFile(
                    atPath: fresh.folder.appendingPathComponent(".git/index.lock").path, contents: Data())
                let synced = fresh.run("sync")
                expect(synced.status) == 0
                expect(fresh.state) == laptop.state
                expect(fresh.git("status", "--porcelain")) == ""
                expect(fresh.head) == laptop.head
                expect(remoteHead().trimmingCharacters(in: .newlines)) == laptop.head
                expect(
                    FileManager.default.fileExists(
                        atPath: fresh.folder.appendingPathComponent(".git/docket-clone").path)) == false
            }
        }

        describe("a pull whose checkout is blocked by a file made here") {
            it("names the file, changes nothing, leaves no marker, and works once the file is moved") {
                try Data("laptop\n".utf8).write(to: laptop.folder.appendingPathComponent("NOTES"))
                gitCLI(["add", "NOTES"], in: laptop.folder)
                gitCLI(["commit", "-qm", "notes"], in: laptop.folder)
                laptop.run("add", "Laptop")
                laptop.run("sync")
                try Data("desk\n".utf8).write(to: desk.folder.appendingPathComponent("NOTES"))
                let before = (desk.head, desk.state)
                let refused = desk.run("pull")
                expect(refused.status) == 1
                expect(refused.stderr).to(contain("the pull would overwrite NOTES"))
                expect(desk.head) == before.0
                expect(desk.state) == before.1
                expect(
                    FileManager.default.fileExists(
                        atPath: desk.folder.appendingPathComponent(".git/docket-update").path)) == false
                try FileManager.default.removeItem(at: desk.folder.appendingPathComponent("NOTES"))
                expect(desk.run("pull").status) == 0
                expect(desk.state.todos.map(\.text)).to(contain("Laptop"))
            }
        }

        describe("git's own lock files") {
            it("left in the store by a killed program are removed, and commit and sync go on") {
                for lock in ["index.lock", "HEAD.lock", "refs/heads/main.lock", "refs/remotes/origin/main.lock"] {
                    _ = FileManager.default.createFile(
                        atPath: laptop.folder.appendingPathComponent(".git/" + lock).path, contents: Data())
                }
                laptop.run("add", "After the crash")
                expect(laptop.run("commit").status) == 0
                expect(laptop.run("sync").status) == 0
                expect(laptop.git("status", "--porcelain")) == ""
            }
            it("left in the shared bare remote by a killed push is removed, and the next sync pushes") {
                _ = FileManager.default.createFile(
                    atPath: remote.appendingPathComponent("refs/heads/main.lock").path, contents: Data())
                laptop.run("add", "After the crash")
                let synced = laptop.run("sync")
                expect(synced.status) == 0
                expect(synced.stdout).to(contain("Pushed to origin."))
                expect(remoteHead()) == laptop.head + "\n"
            }
            it("held by a running program stop commit with a message naming the file, until it ends") {
                let lock = laptop.folder.appendingPathComponent(".git/index.lock")
                let holder = LockHolder(lock.path)
                laptop.run("add", "Waiting")
                let refused = laptop.run("commit", environment: ["DOCKET_LOCK_TIMEOUT": "0.5"])
                expect(refused.status) == 1
                expect(refused.stderr).to(
                    contain("a running git program is changing the repository (it holds .git/index.lock)"))
                holder.stop()
                try? FileManager.default.removeItem(at: lock)
                expect(laptop.run("commit").status) == 0
            }
        }

        describe("a command killed while writing") {
            it("before its rename leaves the old file and the store usable") {
                let id = laptop.id("add", "Call Anna")
                let killed = laptop.run("done", id, environment: ["DOCKET_FAULT": "before-rename"])
                expect(killed.status) == 137
                expect(laptop.state.todos.first { $0.text == "Call Anna" }?.completed) == false
                expect(laptop.run("done", id).status) == 0
                expect(laptop.state.todos.first { $0.text == "Call Anna" }?.completed) == true
            }
            it("while committing is finished by the next commit") {
                laptop.run("add", "Call Anna")
                expect(laptop.run("commit", environment: ["DOCKET_FAULT": "after-stage"]).status) == 137
                expect(laptop.run("commit").stdout).to(contain("Add 1 todo"))
                expect(laptop.git("status", "--porcelain")) == ""
            }
        }
    }
}
