import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// Claims taken on two machines that sync one remote, merged by `docket pull` and by plain `git merge` through
/// Docket's merge driver.
final class ClaimSyncSpec: QuickSpec {
    override class func spec() {
        var machines: TwoMachines!
        var laptop: Machine!
        var desk: Machine!
        var paint: String!
        func at(_ time: String) -> [String: String] { ["DOCKET_NOW": "2026-11-28T\(time):00+00:00"] }
        beforeEach {
            machines = TwoMachines("docket-claims")
            (laptop, desk) = (machines.laptop, machines.desk)
            runCommand(docketBinary, ["clone", machines.remote.path, desk.folder.path])
            paint = laptop.id("add", "Paint the fence")
            laptop.run("sync")
            desk.run("pull")
            // Both claim it before hearing of the other: the desk's claim is taken first.
            expect(desk.run("claim", paint, "--as", "agent-2", environment: at("10:00")).status) == 0
            expect(laptop.run("claim", paint, "--as", "agent-1", environment: at("10:05")).status) == 0
            expect(desk.run("sync", environment: at("10:06")).status) == 0
        }
        afterEach { try? FileManager.default.removeItem(at: machines.root) }

        describe("two machines claiming one todo") {
            it("keep the claim taken first after docket sync, and docket merges names the other") {
                expect(laptop.run("sync", environment: at("10:07")).status) == 0
                expect(desk.run("sync", environment: at("10:08")).status) == 0
                for machine in [laptop!, desk!] {
                    expect(machine.state.todos.first?.claim?.holder) == "agent-2"
                }
                expect(laptop.state) == desk.state
                let merges = laptop.run("merges").stdout
                expect(merges).to(contain("claim: kept \"agent-2 until"))
                expect(merges).to(contain("lost \"agent-1 until"))
                expect(laptop.run("show", paint, environment: at("10:09")).stdout).to(contain("agent-2"))
            }
            it("tell the losing holder who holds it when it renews its claim") {
                laptop.run("sync", environment: at("10:07"))
                let renewed = laptop.run("claim", paint, "--as", "agent-1", environment: at("10:10"))
                expect(renewed.status) == 1
                expect(renewed.stderr).to(contain("claimed by agent-2 until"))
            }
            it("decide the same under git merge through the driver as under docket pull") {
                let reference = Machine(folder: machines.root.appendingPathComponent("reference"))
                expect(runCommand("cp", ["-a", laptop.folder.path, reference.folder.path]).status) == 0
                reference.run("commit", environment: at("10:07"))
                let pulled = reference.run("pull", environment: at("10:07"))
                expect(pulled.status).to(equal(0), description: pulled.stderr)
                laptop.run("commit", environment: at("10:07"))
                gitCLI(["pull", "--no-rebase", "-q"], in: laptop.folder)
                expect(laptop.git("status", "--porcelain")) == ""
                expect(laptop.state.todos.first?.claim) == reference.state.todos.first?.claim
                expect(laptop.state.todos.first?.claim?.holder) == "agent-2"
            }
        }
    }
}
