import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// Many writers, one remote: a sync whose push to the shared branch loses the race publishes on its own writer
/// reference instead of giving up, and every machine, new clone and plain git user still gets everything.
final class WritersSpec: QuickSpec {
    override class func spec() {
        describe("a sync whose push loses the race to another machine") {
            var machines: TwoMachines!
            var laptop: Machine { machines.laptop }
            var desk: Machine { machines.desk }
            var other: URL!

            beforeEach {
                machines = TwoMachines("docket-writers")
                laptop.run("add", "Buy milk")
                expect(laptop.run("sync").status) == 0
                runCommand(docketBinary, ["clone", machines.remote.path, desk.folder.path])
                other = machines.root.appendingPathComponent("other")
                gitCLI(["clone", "-q", machines.remote.path, other.path], in: machines.root)
                // The race: while the laptop's sync pushes, another machine's commit lands on the remote's main.
                let hook = laptop.folder.appendingPathComponent(".git/hooks/pre-push")
                try! """
                #!/bin/sh
                [ -e "\(machines.root.path)/raced" ] && exit 0
                touch "\(machines.root.path)/raced"
                unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX
                cd "\(other.path)" && git -c user.name=O -c user.email=o@x commit -q --allow-empty -m race \\
                    && git push -q origin HEAD:main >"\(machines.root.path)/raced" 2>&1
                """.write(to: hook, atomically: true, encoding: .utf8)
                chmod(hook.path, 0o755)
            }
            afterEach { try? FileManager.default.removeItem(at: machines.root) }

            func writers() -> String {
                gitCLI(["for-each-ref", "refs/docket/writers/"], in: machines.remote).stdout
            }

            it("publishes on its own writer reference instead of giving up, and the next sync anywhere carries it") {
                laptop.run("add", "Laptop's work")
                let synced = laptop.run("sync")
                expect(synced.status).to(equal(0), description: synced.stderr)
                expect(synced.stdout).to(contain("Pushed to origin as writer "))
                expect(writers()).to(contain("refs/docket/writers/"))
                // The desk hears of it, and says so until a sync carries it into main.
                expect(desk.run("pull").status) == 0
                expect(desk.state.todos.map(\.text)).to(contain("Laptop's work"))
                expect(desk.run("status").stdout).to(
                    contain("Writers whose work the shared branch does not hold yet, at the last sync: "))
                // Winning its push, the desk carries it into main for plain git users.
                expect(desk.run("sync").status) == 0
                expect(desk.run("status").stdout).notTo(contain("Writers whose work"))
                expect(desk.state.todos.map(\.text)).to(contain("Laptop's work"))
                let plain = machines.root.appendingPathComponent("plain")
                gitCLI(["clone", "-q", machines.remote.path, plain.path], in: machines.root)
                expect((try? Store.open(at: plain).load().state.todos.map(\.text)) ?? []).to(contain("Laptop's work"))
                // The laptop's next sync finds main holding its writer reference, and removes it.
                expect(laptop.run("sync").status) == 0
                expect(writers()) == ""
                expect(desk.run("sync").status) == 0
                expect(desk.state) == laptop.state
                expect(fsckProblem(machines.remote)).to(beNil())
                expect(fsckProblem(laptop.folder)).to(beNil())
            }

            it("merges with the rules of any pull: a value its edit lost is in docket merges, and restores") {
                let id = laptop.state.todos[0].id.uuidString
                laptop.run("edit", id, "Buy oat milk")
                expect(laptop.run("sync").stdout).to(contain("as writer "))
                desk.run("edit", id, "Buy soy milk")
                desk.run("commit")
                let pulled = desk.run("pull")
                expect(pulled.status).to(equal(0), description: pulled.stderr)
                expect(desk.state.todos.map(\.text)) == ["Buy soy milk"]
                let merges = desk.run("merges", "-n", "1")
                expect(merges.stdout).to(contain("Buy oat milk"))
                let json = desk.run("merges", "--json", "-n", "1").stdout
                let record = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [[String: Any]]
                let commit = record?.first?["commit"] as? String ?? "none"
                let restored = desk.run("merges", "restore", commit, "1")
                expect(restored.status).to(equal(0), description: restored.stderr)
                expect(desk.state.todos.map(\.text)) == ["Buy oat milk"]
                // Every machine takes the restore, and the writer reference is retired.
                expect(desk.run("sync").status) == 0
                expect(laptop.run("sync").status) == 0
                expect(laptop.state) == desk.state
                expect(writers()) == ""
            }

            it("is removed by any machine once the shared branch holds it and its newest commit is a day old") {
                // A writer that stopped: its last commit is two days old, and main took it long since.
                let twoDaysAgo = "@\(Int(Date().timeIntervalSince1970) - 2 * 86_400) +0000"
                let committed = gitCLI(
                    ["commit", "-q", "--allow-empty", "-m", "gone"], in: other,
                    environment: ["GIT_COMMITTER_DATE": twoDaysAgo, "GIT_AUTHOR_DATE": twoDaysAgo])
                expect(committed.status).to(equal(0), description: committed.stderr)
                gitCLI(["push", "-q", "origin", "HEAD:main", "HEAD:refs/docket/writers/gone"], in: other)
                gitCLI(["commit", "-q", "--allow-empty", "-m", "fresh"], in: other)
                gitCLI(["push", "-q", "origin", "HEAD:refs/docket/writers/fresh"], in: other)
                expect(writers()).to(contain("refs/docket/writers/gone"))
                // The desk's sync pulls main and both writers, and takes away only the one a day old.
                desk.run("add", "Desk's work")
                let synced = desk.run("sync")
                expect(synced.status).to(equal(0), description: synced.stderr)
                expect(writers()).notTo(contain("refs/docket/writers/gone"))
                expect(writers()).to(contain("refs/docket/writers/fresh"))
            }

            it("is never taken in once the branch was rewritten away from what it holds, and its machine retires it") {
                laptop.run("add", "Laptop's work")
                expect(laptop.run("sync").stdout).to(contain("as writer "))
                // A plain git user drops the commit before the race's (which added "Buy milk", and which the laptop's
                // writer reference holds) with git rebase -i, and force-pushes.
                let dropped = gitCLI(["rev-parse", "HEAD~1"], in: other).stdout.trimmingCharacters(in: .newlines)
                let rebased = gitCLI(
                    ["-c", "sequence.editor=sed -i 1s/^pick/drop/", "rebase", "-q", "-i", "HEAD~2"], in: other)
                expect(rebased.status).to(equal(0), description: rebased.stderr)
                expect(gitCLI(["push", "-q", "--force", "origin", "HEAD:main"], in: other).status) == 0
                func dropReturned() -> Bool {
                    gitCLI(["merge-base", "--is-ancestor", dropped, "main"], in: machines.remote).status == 0
                }
                // The desk takes the rewrite, and leaves out the writer's reference that would bring the drop back.
                expect(desk.run("sync").stderr).to(contain("rewritten"))
                let taken = desk.run("sync", "--accept-rewrite")
                expect(taken.status).to(equal(0), description: taken.stderr)
                expect(dropReturned()) == false
                expect(desk.state.todos.map(\.text)).notTo(contain("Buy milk"))
                expect(desk.run("sync").status) == 0
                expect(dropReturned()) == false
                // The laptop refuses the rewrite, takes it with --accept-rewrite, carrying its work, and retires its
                // writer's reference.
                expect(laptop.run("sync").stderr).to(contain("rewritten"))
                let accepted = laptop.run("sync", "--accept-rewrite")
                expect(accepted.status).to(equal(0), description: accepted.stderr)
                expect(dropReturned()) == false
                expect(writers()) == ""
                expect(desk.run("sync").status) == 0
                expect(desk.state.todos.map(\.text)) == ["Laptop's work"]
                expect(dropReturned()) == false
            }

            it("is seen by a machine cloned before anyone carried it into main") {
                laptop.run("add", "Laptop's work")
                expect(laptop.run("sync").status) == 0
                let fresh = Machine(folder: machines.root.appendingPathComponent("fresh"))
                let cloned = runCommand(docketBinary, ["clone", machines.remote.path, fresh.folder.path])
                expect(cloned.status).to(equal(0), description: cloned.stderr)
                expect(fresh.state.todos.map(\.text)).to(contain("Laptop's work"))
                expect(fresh.run("sync").status) == 0
                expect(laptop.run("sync").status) == 0
                expect(fresh.state) == laptop.state
            }
        }
    }
}
