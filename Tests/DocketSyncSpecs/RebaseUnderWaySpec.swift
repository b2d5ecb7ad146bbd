import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// A git rebase that is not stopped on a conflict (running `--exec`, or at an
/// `edit`) is git's: docket neither throws it away nor pushes a merge in its
/// place, and says what is under way.
final class RebaseUnderWaySpec: QuickSpec {
    override class func spec() {
        var machines: TwoMachines!
        var laptop: Machine { machines.laptop }
        var desk: Machine { machines.desk }
        beforeEach {
            machines = TwoMachines("docket-rebase-under-way")
            laptop.run("add", "One")
            expect(laptop.run("sync").status) == 0
            runCommand(docketBinary, ["clone", machines.remote.path, desk.folder.path])
            desk.run("add", "Two")
            expect(desk.run("commit").status) == 0
            desk.run("add", "Three")
            expect(desk.run("commit").status) == 0
            laptop.run("add", "Four")
            expect(laptop.run("sync").status) == 0
            expect(gitCLI(["fetch", "-q"], in: desk.folder).status) == 0
        }
        afterEach { try? FileManager.default.removeItem(at: machines.root) }

        func remoteHead() -> String {
            gitCLI(["rev-parse", "main"], in: machines.remote).stdout.trimmingCharacters(in: .newlines)
        }
        let path =
            URL(fileURLWithPath: docketBinary).deletingLastPathComponent().path + ":"
            + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")

        for command in ["docket sync", "docket commit"] {
            it("refuses '\(command)' run by 'git rebase -x', naming the rebase, and the rebase finishes as git's") {
                let before = remoteHead()
                let rebase = gitCLI(
                    ["rebase", "-x", command, "origin/main"], in: desk.folder, environment: ["PATH": path])
                expect(rebase.status) != 0
                expect(rebase.stderr).to(contain("a git rebase is under way and not stopped on a conflict"))
                expect(rebase.stderr).notTo(contain("stopped on a conflict)"))
                expect(remoteHead()) == before
                // git's rebase is still there, and goes on as its advice says.
                for _ in 0..<4 where desk.git("status").contains("rebase in progress") {
                    gitCLI(["rebase", "--continue"], in: desk.folder, environment: ["PATH": path])
                }
                expect(desk.git("status")).notTo(contain("rebase in progress"))
                expect(desk.git("rev-list", "--merges", "HEAD")) == ""
                expect(desk.git("log", "--format=%s", "origin/main..HEAD").split(separator: "\n").count) == 2
                expect(desk.run("sync").status) == 0
                expect(remoteHead()) == desk.head
                expect(desk.state.todos.map(\.text).sorted()) == ["Four", "One", "Three", "Two"]
            }
        }
    }
}
