import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// A remote branch rewritten with git's own tools and force-pushed is seen:
/// a sync never merges the old history back in (and never pushes it), stops
/// before any change naming what happened, and its advice takes the new
/// history with this machine's unsynced changes carried onto it.
final class RewrittenHistorySpec: QuickSpec {
    override class func spec() {
        var machines: TwoMachines!
        var laptop: Machine { machines.laptop }
        var desk: Machine { machines.desk }
        beforeEach {
            machines = TwoMachines("docket-rewritten")
            laptop.run("add", "Bank PIN 1234")
            laptop.run("add", "Milk")
            expect(laptop.run("sync").status) == 0
            runCommand(docketBinary, ["clone", machines.remote.path, desk.folder.path])
        }
        afterEach { try? FileManager.default.removeItem(at: machines.root) }

        func remoteHead() -> String {
            gitCLI(["rev-parse", "main"], in: machines.remote).stdout.trimmingCharacters(in: .newlines)
        }
        func remoteHolds(_ commit: String) -> Bool {
            gitCLI(["merge-base", "--is-ancestor", commit, "main"], in: machines.remote).status == 0
        }
        /// Runs the docket command a message quotes, as a user would.
        func follow(_ message: String, on machine: Machine) -> CommandResult {
            let command = try! NSRegularExpression(pattern: "'docket ([^']+)'").firstMatch(
                in: message, range: NSRange(message.startIndex..., in: message)
            ).map { String(message[Range($0.range(at: 1), in: message)!]) }
            expect(command).notTo(beNil())
            return docket((command ?? "sync").split(separator: " ").map(String.init), store: machine.folder)
        }
        /// Expects `sync` on `machine` to refuse the rewrite and change nothing, here or on the remote.
        func expectRefused(_ machine: Machine) -> CommandResult {
            let (head, remote, todos) = (machine.head, remoteHead(), machine.state.todos.map(\.text).sorted())
            let refused = machine.run("sync")
            expect(refused.status) == 1
            expect(refused.stderr).to(contain("origin/main was rewritten (a forced update"))
            expect(machine.head) == head
            expect(remoteHead()) == remote
            expect(machine.state.todos.map(\.text).sorted()) == todos
            return refused
        }

        context("when a peer redacts text with fast-export and fast-import (as git filter-repo does) and force-pushes")
        {
            var oldHead: String!
            beforeEach {
                desk.run("add", "Only on the desk")
                expect(desk.run("commit").status) == 0
                oldHead = remoteHead()
                let rewritten = machines.root.appendingPathComponent("rewritten.git")
                expect(gitCLI(["init", "-q", "--bare", "-b", "main", rewritten.path], in: machines.root).status) == 0
                let pipeline =
                    "git -C '\(machines.remote.path)' fast-export --all | sed 's/PIN 1234/PIN XXXX/' "
                    + "| git -C '\(rewritten.path)' fast-import --quiet"
                expect(runCommand("/bin/sh", ["-c", pipeline]).status) == 0
                expect(gitCLI(["push", "-q", "--force", machines.remote.path, "main"], in: rewritten).status) == 0
                expect(remoteHolds(oldHead)) == false
            }

            it("keeps the ids of the commits the rewrite did not change, as git would") {
                let roots = { (folder: URL) in gitCLI(["rev-list", "--max-parents=0", "main"], in: folder).stdout }
                expect(roots(machines.remote)) == roots(laptop.folder)
            }

            it("refuses before any change, and its advice takes the new history with the desk's work carried onto it") {
                let refused = expectRefused(desk)
                let accepted = follow(refused.stderr, on: desk)
                expect(accepted.status) == 0
                expect(accepted.stdout).to(contain("Took origin's rewritten history"))
                expect(desk.state.todos.map(\.text).sorted()) == ["Bank PIN XXXX", "Milk", "Only on the desk"]
                expect(remoteHolds(oldHead)) == false
                expect(gitCLI(["log", "-p", "main"], in: machines.remote).stdout).notTo(contain("PIN 1234"))
                expect(desk.git("status", "--porcelain")) == ""
                expect(desk.run("merges").stdout).notTo(contain("no merge"))
                // The laptop, with nothing unsynced, is refused too, and takes the new history the same way.
                let laptopRefused = expectRefused(laptop)
                expect(follow(laptopRefused.stderr, on: laptop).status) == 0
                expect(laptop.state.todos.map(\.text).sorted()) == ["Bank PIN XXXX", "Milk", "Only on the desk"]
                expect(laptop.head) == remoteHead()
                expect(gitCLI(["fsck", "--strict"], in: laptop.folder).status) == 0
            }
        }

        context("when a peer drops the last commit and force-pushes, and the old clone ran 'git fetch' first") {
            it("refuses, and the dropped item never comes back") {
                laptop.run("add", "Dropped")
                expect(laptop.run("sync").status) == 0
                expect(desk.run("sync").status) == 0
                expect(desk.state.todos.map(\.text)).to(contain("Dropped"))
                expect(gitCLI(["reset", "-q", "--hard", "HEAD~1"], in: laptop.folder).status) == 0
                expect(gitCLI(["push", "-q", "--force", "origin", "main"], in: laptop.folder).status) == 0
                expect(gitCLI(["fetch", "-q"], in: desk.folder).status) == 0
                let refused = expectRefused(desk)
                expect(follow(refused.stderr, on: desk).status) == 0
                expect(desk.state.todos.map(\.text).sorted()) == ["Bank PIN 1234", "Milk"]
                expect(desk.head) == remoteHead()
            }
        }

        context("when a peer amends the last commit and force-pushes") {
            it("refuses, and git's own force push, the other way out, puts the desk's history back") {
                laptop.run("add", "Amended")
                expect(laptop.run("sync").status) == 0
                expect(desk.run("sync").status) == 0
                let old = remoteHead()
                expect(gitCLI(["commit", "-q", "--amend", "-m", "Amended by hand"], in: laptop.folder).status) == 0
                expect(gitCLI(["push", "-q", "--force"], in: laptop.folder).status) == 0
                let refused = expectRefused(desk)
                let gitCommand = try! NSRegularExpression(pattern: "'(git push [^']+)'").firstMatch(
                    in: refused.stderr, range: NSRange(refused.stderr.startIndex..., in: refused.stderr)
                ).map { String(refused.stderr[Range($0.range(at: 1), in: refused.stderr)!]) }
                expect(gitCommand).notTo(beNil())
                expect(runCommand("/bin/sh", ["-c", gitCommand ?? "false"], in: desk.folder).status) == 0
                expect(remoteHead()) == old
                expect(desk.run("sync").status) == 0
            }
        }
    }
}
