import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// A working tree checked out with CRLF line endings (a peer's `* text
/// eol=crlf`, or `core.autocrlf`) is compared as git compares it: a clean
/// file never looks changed, and pulls write files as git's checkout would.
final class LineEndingsSpec: QuickSpec {
    override class func spec() {
        var machines: TwoMachines!
        var ids: [String]!
        beforeEach {
            machines = TwoMachines("docket-line-endings")
            machines.laptop.run("add", "One")
            machines.laptop.run("add", "Two")
            expect(machines.laptop.run("sync").status) == 0
            ids = machines.laptop.state.todos.sorted { $0.text < $1.text }.map(\.id.uuidString)
        }
        afterEach { try? FileManager.default.removeItem(at: machines.root) }

        /// The desk's clone, made by plain git with `settings` (`-c name=value`, kept in the clone).
        func cloneDesk(_ settings: [String] = []) {
            expect(
                gitCLI(
                    settings.flatMap { ["-c", $0] } + ["clone", "-q", machines.remote.path, machines.desk.folder.path],
                    in: machines.root
                ).status) == 0
            for setting in settings {
                let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
                machines.desk.git("config", parts[0], parts[1])
            }
        }
        /// The store's files in the working tree whose line endings are not what git's checkout gives them.
        func filesNotAsGitChecksOut(_ machine: Machine) -> [String] {
            machine.git("ls-files", "--eol").split(separator: "\n").filter {
                $0.contains("eol=crlf") && !$0.contains("w/crlf")
            }
            .map(String.init)
        }
        func expectClean(_ machine: Machine) {
            expect(machine.git("status", "--porcelain")) == ""
            expect(machine.run("status").stdout).to(contain("Nothing to commit"))
        }

        context("when a peer commits '* text eol=crlf' and a machine checks out with plain git") {
            beforeEach {
                let attributes = machines.laptop.folder.appendingPathComponent(".gitattributes")
                let text = try! String(contentsOf: attributes, encoding: .utf8)
                try! (text + "* text eol=crlf\n").write(to: attributes, atomically: true, encoding: .utf8)
                machines.laptop.git("commit", "-qam", "Check out with CRLF")
                expect(machines.laptop.run("sync").status) == 0
                cloneDesk()
                expect(machines.desk.git("ls-files", "--eol")).to(contain("w/crlf"))
            }

            it("pulls what the peer changed, writing CRLF files as git would, and both statuses stay clean") {
                machines.laptop.run("edit", ids[0], "One from the laptop")
                expect(machines.laptop.run("sync").status) == 0
                expectClean(machines.desk)
                let pulled = machines.desk.run("pull")
                expect(pulled.status) == 0
                expect(pulled.stderr) == ""
                expect(machines.desk.state.todos.map(\.text).sorted()) == ["One from the laptop", "Two"]
                expect(filesNotAsGitChecksOut(machines.desk)) == []
                expectClean(machines.desk)
            }

            it("syncs edits made on both machines, and the git CLI pulls and pushes beside it") {
                machines.laptop.run("edit", ids[0], "One from the laptop")
                expect(machines.laptop.run("sync").status) == 0
                machines.desk.run("edit", ids[1], "Two from the desk")
                let synced = machines.desk.run("sync")
                expect(synced.status) == 0
                expect(synced.stdout).to(contain("Pushed to origin"))
                expectClean(machines.desk)
                // The git CLI, on the CRLF checkout, commits and pushes; docket pulls it on the other machine.
                machines.desk.run("edit", ids[0], "One from git")
                expect(gitCLI(["commit", "-qam", "By hand"], in: machines.desk.folder).status) == 0
                expect(gitCLI(["push", "-q"], in: machines.desk.folder).status) == 0
                expect(machines.laptop.run("sync").status) == 0
                expect(machines.laptop.state.todos.map(\.text).sorted()) == ["One from git", "Two from the desk"]
                // Never a CRLF in a blob: git's clean filter and Docket's agree.
                expect(machines.laptop.git("ls-files", "--eol")).notTo(contain("i/crlf"))
                // And the laptop's next edit comes back to the CRLF checkout through git's own pull.
                machines.laptop.run("edit", ids[1], "Two from the laptop")
                expect(machines.laptop.run("sync").status) == 0
                expect(gitCLI(["pull", "-q", "--no-rebase"], in: machines.desk.folder).status) == 0
                expectClean(machines.desk)
                expect(machines.desk.run("sync").status) == 0
                expectClean(machines.desk)
            }
        }

        context("when a machine checks out with core.autocrlf = true") {
            it("pulls, merges and pushes, and its CRLF files never count as changes") {
                cloneDesk(["core.autocrlf=true"])
                expect(machines.desk.git("ls-files", "--eol")).to(contain("w/crlf"))
                expectClean(machines.desk)
                machines.laptop.run("edit", ids[0], "One from the laptop")
                expect(machines.laptop.run("sync").status) == 0
                machines.desk.run("edit", ids[1], "Two from the desk")
                expect(machines.desk.run("sync").status) == 0
                expectClean(machines.desk)
                expect(machines.laptop.run("sync").status) == 0
                expect(machines.laptop.state.todos.map(\.text).sorted()) == [
                    "One from the laptop", "Two from the desk",
                ]
                expect(machines.laptop.git("ls-files", "--eol")).notTo(contain("i/crlf"))
            }

            it("pulls over CRLF files core.autocrlf wrote once it is unset, as git does, for their stat data matches") {
                cloneDesk(["core.autocrlf=true"])
                // The index written a second after the files, so that git no longer hashes them again (racy git).
                Thread.sleep(forTimeInterval: 1.1)
                machines.desk.git("update-index", "-q", "--really-refresh")
                machines.desk.git("config", "--unset", "core.autocrlf")
                // git trusts the index's stat data: the CRLF files are unchanged to it, and to docket status.
                expect(machines.desk.git("status", "--porcelain")) == ""
                expect(machines.desk.run("status").stdout).to(contain("Nothing to commit"))
                machines.laptop.run("edit", ids[0], "One from the laptop")
                expect(machines.laptop.run("sync").status) == 0
                let pulled = machines.desk.run("pull")
                expect(pulled.status).to(equal(0), description: pulled.stderr)
                expect(machines.desk.state.todos.map(\.text).sorted()) == ["One from the laptop", "Two"]
                expect(machines.desk.git("status", "--porcelain")) == ""
            }
        }
    }
}
