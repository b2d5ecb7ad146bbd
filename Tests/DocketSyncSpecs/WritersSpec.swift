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
