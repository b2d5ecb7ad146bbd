import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// A push goes where git's settings send it (`pushurl`s, `pushRemote`,
/// `remote.pushDefault`, `push.default`), the message says where, and a
/// branch is never pushed into another branch its configuration does not name.
final class PushSettingsSpec: QuickSpec {
    override class func spec() {
        var machines: TwoMachines!
        var laptop: Machine { machines.laptop }
        var root: URL { machines.root }
        beforeEach {
            machines = TwoMachines("docket-push-settings")
            laptop.run("add", "First")
            expect(laptop.run("sync").status) == 0
        }
        afterEach { try? FileManager.default.removeItem(at: machines.root) }

        func bare(_ name: String) -> URL {
            let folder = root.appendingPathComponent(name)
            gitCLI(["init", "-q", "--bare", "-b", "main", folder.path], in: root)
            return folder
        }
        func tip(_ repository: URL, _ branch: String = "main") -> String {
            gitCLI(["rev-parse", "-q", "--verify", "refs/heads/" + branch], in: repository).stdout
                .trimmingCharacters(in: .newlines)
        }

        it("pushes to every remote.<name>.pushurl, in order, as git does") {
            let mirror = bare("mirror.git")
            laptop.git("config", "--add", "remote.origin.pushurl", machines.remote.path)
            laptop.git("config", "--add", "remote.origin.pushurl", mirror.path)
            laptop.run("add", "Second")
            let synced = laptop.run("sync")
            expect(synced.status) == 0
            expect(synced.stdout).to(contain("Pushed to origin."))
            expect(tip(machines.remote)) == laptop.head
            expect(tip(mirror)) == laptop.head
            // The next sync sees no rewrite in the remote-tracking branch a push moved.
            expect(laptop.run("sync").status) == 0
        }

        it("publishes and retires a writer's reference through the pushurls when fetches go over ssh") {
            let server = SSHServer()
            defer { server.stop() }
            let remote = machines.remote
            laptop.git(
                "config", "core.sshCommand",
                "ssh -i \(server.userKey) -o IdentitiesOnly=yes -o UserKnownHostsFile=\(server.knownHosts) -o BatchMode=yes"
            )
            laptop.git("config", "remote.origin.url", server.url(remote.path))
            laptop.git("config", "--add", "remote.origin.pushurl", remote.path)
            laptop.git("config", "--add", "remote.origin.pushurl", "file://" + remote.path)
            // The race: while the laptop's sync pushes, another machine's commit lands on the remote's main.
            let other = root.appendingPathComponent("other")
            gitCLI(["clone", "-q", remote.path, other.path], in: root)
            let hook = laptop.folder.appendingPathComponent(".git/hooks/pre-push")
            try! """
            #!/bin/sh
            rm -f "$0"
            unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX
            cd "\(other.path)" && git -c user.name=O -c user.email=o@x commit -q --allow-empty -m race \\
                && git push -q origin HEAD:main >/dev/null 2>&1
            """.write(to: hook, atomically: true, encoding: .utf8)
            chmod(hook.path, 0o755)
            func writers() -> String { gitCLI(["for-each-ref", "refs/docket/writers/"], in: remote).stdout }
            laptop.run("add", "Second")
            let lost = laptop.run("sync")
            expect(lost.status).to(equal(0), description: lost.stderr)
            expect(lost.stdout).to(contain("Pushed to origin as writer "))
            expect(writers()).to(contain("refs/docket/writers/"))
            // The next sync wins its push to main, which then holds the writer's work: the reference goes.
            let won = laptop.run("sync")
            expect(won.status).to(equal(0), description: won.stderr)
            expect(tip(remote)) == laptop.head
            expect(writers()) == ""
        }

        it("pushes to branch.<name>.pushRemote, then remote.pushDefault, and pulls from origin (a fork workflow)") {
            let fork = bare("fork.git")
            expect(laptop.run("remote", "add", "fork", fork.path).status) == 0
            laptop.git("config", "branch.main.pushRemote", "fork")
            let before = tip(machines.remote)
            laptop.run("add", "Second")
            let synced = laptop.run("sync")
            expect(synced.status) == 0
            expect(synced.stdout).to(contain("Pushed to fork."))
            expect(tip(fork)) == laptop.head
            expect(tip(machines.remote)) == before
            laptop.git("config", "--unset", "branch.main.pushRemote")
            laptop.git("config", "remote.pushDefault", "fork")
            laptop.run("add", "Third")
            expect(laptop.run("sync").stdout).to(contain("Pushed to fork."))
            expect(tip(fork)) == laptop.head
            expect(tip(machines.remote)) == before
            // A remote named on the command line is the one pushed to, as with 'git push origin'.
            expect(laptop.run("push", "origin").stdout).to(contain("Pushed to origin."))
            expect(tip(machines.remote)) == laptop.head
        }

        it("refuses push.default = nothing before sending anything, and its advice pushes") {
            laptop.git("config", "push.default", "nothing")
            laptop.run("add", "Second")
            let before = tip(machines.remote)
            let refused = laptop.run("sync")
            expect(refused.status) == 1
            expect(refused.stderr).to(contain("push.default is 'nothing'"))
            expect(tip(machines.remote)) == before
            let command = try! NSRegularExpression(pattern: "'(git push [^']+)'").firstMatch(
                in: refused.stderr, range: NSRange(refused.stderr.startIndex..., in: refused.stderr)
            ).map { String(refused.stderr[Range($0.range(at: 1), in: refused.stderr)!]) }
            expect(command).notTo(beNil())
            expect(runCommand("/bin/sh", ["-c", command ?? "false"], in: laptop.folder).status) == 0
            expect(tip(machines.remote)) == laptop.head
        }

        it("pushes a linked worktree's new branch to a branch of its own name, never into main") {
            let worktree = Machine(folder: root.appendingPathComponent("feature"))
            expect(gitCLI(["worktree", "add", "-q", "-b", "feature", worktree.folder.path], in: laptop.folder).status)
                == 0
            let main = tip(machines.remote)
            worktree.run("add", "On the feature branch")
            let synced = worktree.run("sync")
            expect(synced.status) == 0
            expect(tip(machines.remote)) == main
            expect(tip(machines.remote, "feature")) == worktree.head
            expect(worktree.git("config", "branch.feature.merge")).to(contain("refs/heads/feature"))
            // main still syncs with main.
            laptop.run("add", "On main")
            expect(laptop.run("sync").status) == 0
            expect(tip(machines.remote)) == laptop.head
        }
    }
}
