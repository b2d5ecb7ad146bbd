import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

final class HooksSpec: QuickSpec {
    override class func spec() {
        var root: URL!
        var remote: URL!
        var laptop: Machine!
        var desk: Machine!
        beforeEach {
            let machines = TwoMachines("docket-hooks")
            (root, remote, laptop, desk) = (machines.root, machines.remote, machines.laptop, machines.desk)
        }
        afterEach { try? FileManager.default.removeItem(at: root) }

        /// Writes an executable hook into `folder` (made when missing).
        func hook(_ name: String, in folder: URL, _ body: String, executable: Bool = true) {
            try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent(name)
            try! ("#!/bin/sh\n" + body + "\n").write(to: file, atomically: true, encoding: .utf8)
            try! FileManager.default.setAttributes(
                [.posixPermissions: executable ? 0o755 : 0o644], ofItemAtPath: file.path)
        }
        func hooksFolder(_ machine: Machine) -> URL { machine.folder.appendingPathComponent(".git/docket/hooks") }
        /// A hook that appends what it heard to `<store>/../<name>.heard`: a line of its environment, then its input.
        func recordingHook(_ name: String, _ machine: Machine) -> URL {
            let heard = root.appendingPathComponent("\(machine.folder.lastPathComponent)-\(name).heard")
            hook(
                name, in: hooksFolder(machine),
                """
                echo "hook=$DOCKET_HOOK origin=$DOCKET_ORIGIN store=$DOCKET_STORE commit=$DOCKET_COMMIT" >> '\(heard.path)'
                cat >> '\(heard.path)'
                """)
            return heard
        }
        func read(_ file: URL) -> String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }
        func items(_ text: String) -> [[String: Any]] {
            text.split(separator: "\n").filter { $0.hasPrefix("{") }.map {
                try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
            }
        }

        describe("hooks for changes made here") {
            it("run on add, modify and remove with the items' JSON on stdin, and say where the change came from") {
                let added = recordingHook("on-add", laptop)
                let modified = recordingHook("on-modify", laptop)
                let removed = recordingHook("on-remove", laptop)
                let id = laptop.id("add", "Buy milk", "+shop")
                expect(laptop.run("done", id).status) == 0
                expect(laptop.run("rm", id).status) == 0

                expect(read(added)).to(contain("hook=on-add origin=edit store=\(laptop.folder.path) commit=\n"))
                let add = items(read(added))
                expect(add.count) == 1
                expect(add.first?["kind"] as? String) == "todo"
                expect((add.first?["id"] as? String)?.lowercased()).to(beginWith(id))
                expect((add.first?["item"] as? [String: Any])?["text"] as? String) == "Buy milk"
                expect((add.first?["item"] as? [String: Any])?["tags"] as? [String]) == ["shop"]

                let modify = items(read(modified))
                expect(modify.count) == 2
                expect((modify.first?["item"] as? [String: Any])?["completed"] as? Bool) == false
                expect((modify.last?["item"] as? [String: Any])?["completed"] as? Bool) == true

                let remove = items(read(removed))
                expect(remove.count) == 1
                expect((remove.first?["item"] as? [String: Any])?["text"] as? String) == "Buy milk"
            }

            it("hear of projects and tasks, tasks with their project's id") {
                let added = recordingHook("on-add", laptop)
                let project = laptop.id("project", "add", "Garden")
                laptop.run("task", "add", project, "Dig")
                let heard = items(read(added))
                expect(heard.map { $0["kind"] as? String }) == ["project", "task"]
                expect((heard.last?["project"] as? String)?.lowercased()).to(beginWith(project))
                expect((heard.last?["item"] as? [String: Any])?["title"] as? String) == "Dig"
            }

            it("report a failing hook, with what it wrote, and keep the change") {
                hook("on-add", in: hooksFolder(laptop), "echo 'mail server down' >&2; exit 3")
                let result = laptop.run("add", "Buy milk")
                expect(result.status) == 0
                expect(result.stderr).to(contain("mail server down"))
                expect(result.stderr).to(
                    contain(
                        "Warning: the on-add hook \(hooksFolder(laptop).path)/on-add failed: it exited with status 3; the change is kept"
                    ))
                expect(laptop.state.todos.map(\.text)) == ["Buy milk"]
            }

            it("never hand a hook the https token docket was given, nor an editor") {
                let seen = root.appendingPathComponent("seen")
                hook(
                    "on-add", in: hooksFolder(laptop),
                    "echo \"token=$DOCKET_GIT_TOKEN user=$DOCKET_GIT_USERNAME\" > '\(seen.path)'")
                let result = laptop.run(
                    "add", "Buy milk", environment: ["DOCKET_GIT_TOKEN": "s3cret-t0ken", "DOCKET_GIT_USERNAME": "me"])
                expect(result.status) == 0
                expect(try? String(contentsOf: seen, encoding: .utf8)) == "token= user=me\n"
                let id = laptop.state.todos[0].id.uuidString.lowercased()
                let editor = root.appendingPathComponent("editor.sh")
                try! "#!/bin/sh\necho \"token=$DOCKET_GIT_TOKEN\" > '\(seen.path)'\n".write(
                    to: editor, atomically: true, encoding: .utf8)
                chmod(editor.path, 0o755)
                laptop.run(
                    "edit", id,
                    environment: ["DOCKET_GIT_TOKEN": "s3cret-t0ken", "VISUAL": editor.path, "EDITOR": editor.path])
                expect(try? String(contentsOf: seen, encoding: .utf8)) == "token=\n"
            }

            it("stop a hook that does not finish in DOCKET_HOOK_TIMEOUT seconds") {
                hook("on-add", in: hooksFolder(laptop), "sleep 60")
                let started = Date()
                let result = laptop.run("add", "Buy milk", environment: ["DOCKET_HOOK_TIMEOUT": "1"])
                expect(Date().timeIntervalSince(started)) < 20
                expect(result.status) == 0
                expect(result.stderr).to(
                    contain("failed: it did not finish in 1 s and was stopped (DOCKET_HOOK_TIMEOUT sets the limit)"))
                expect(laptop.state.todos.map(\.text)) == ["Buy milk"]
            }

            it("name a hook that is not executable with the command that fixes it, which does") {
                let heard = root.appendingPathComponent("heard")
                hook("on-add", in: hooksFolder(laptop), "cat >> '\(heard.path)'", executable: false)
                let result = laptop.run("add", "Buy milk")
                let path = hooksFolder(laptop).appendingPathComponent("on-add").path
                expect(result.stderr).to(
                    contain(
                        "Warning: the on-add hook \(path) is not executable, so it did not run; make it executable with 'chmod +x \(path)'"
                    ))
                expect(read(heard)) == ""
                expect(runCommand("chmod", ["+x", path]).status) == 0
                let again = laptop.run("add", "Call Anna")
                expect(again.stderr).toNot(contain("Warning"))
                expect(items(read(heard)).map { ($0["item"] as? [String: Any])?["text"] as? String }) == ["Call Anna"]
            }

            it("run every hook of an event, in name order, from the folder docket.hooksPath names") {
                let folder = root.appendingPathComponent("shared-hooks")
                let heard = root.appendingPathComponent("heard")
                hook("on-add.2-second", in: folder, "echo second >> '\(heard.path)'")
                hook("on-add.1-first", in: folder, "echo first >> '\(heard.path)'")
                hook("on-add", in: hooksFolder(laptop), "echo default-folder >> '\(heard.path)'")
                gitCLI(["config", "docket.hooksPath", "../shared-hooks"], in: laptop.folder)
                laptop.run("add", "Buy milk")
                expect(read(heard)) == "first\nsecond\n"
            }

            it("never run from the store's own folder, where a pull can put files, and say so") {
                let ran = root.appendingPathComponent("ran")
                // As a pull would have brought it: whoever can push would choose what runs on every machine.
                hook("on-add", in: laptop.folder.appendingPathComponent("hooks"), "touch '\(ran.path)'")
                gitCLI(["config", "docket.hooksPath", "hooks"], in: laptop.folder)
                let added = laptop.run("add", "Buy milk")
                let path = laptop.folder.appendingPathComponent("hooks/on-add").path
                expect(added.status) == 0
                expect(added.stderr).to(
                    contain(
                        "Warning: the on-add hook \(path) is in the store's folder, where a pull can put files, so it did not run"
                    ))
                expect(FileManager.default.fileExists(atPath: ran.path)) == false

                // Nor through a link from the hook folder to a program there.
                gitCLI(["config", "--unset", "docket.hooksPath"], in: laptop.folder)
                try! FileManager.default.createDirectory(at: hooksFolder(laptop), withIntermediateDirectories: true)
                try! FileManager.default.createSymbolicLink(
                    atPath: hooksFolder(laptop).appendingPathComponent("on-add").path, withDestinationPath: path)
                expect(laptop.run("add", "Call Anna").stderr).to(contain("is in the store's folder"))
                expect(FileManager.default.fileExists(atPath: ran.path)) == false
            }

            it("do not run for changes made by a docket a hook started, so a hook that edits cannot set itself off") {
                let heard = root.appendingPathComponent("heard")
                hook("on-add", in: hooksFolder(laptop), "cat >> '\(heard.path)'; '\(docketBinary)' add 'Follow up'")
                laptop.run("add", "Buy milk")
                expect(Set(laptop.state.todos.map(\.text))) == ["Buy milk", "Follow up"]
                expect(items(read(heard)).count) == 1
            }

            it("run from the next command when a killed docket had not run them, at least once and in order") {
                let heard = root.appendingPathComponent("heard")
                let killed = root.appendingPathComponent("killed")
                // The first run kills the docket that started it, as a crash or a kill -9 would.
                hook(
                    "on-add", in: hooksFolder(laptop),
                    """
                    cat >> '\(heard.path)'
                    if [ ! -e '\(killed.path)' ]; then touch '\(killed.path)'; kill -9 $PPID; fi
                    """)
                let first = laptop.run("add", "Buy milk")
                expect(first.status) == 137
                expect(laptop.state.todos.map(\.text)) == ["Buy milk"]
                laptop.run("add", "Call Anna")
                let texts = items(read(heard)).map { ($0["item"] as? [String: Any])?["text"] as? String }
                expect(texts) == ["Buy milk", "Buy milk", "Call Anna"]
                let pending = laptop.folder.appendingPathComponent(".git/docket/hooks-pending").path
                expect(try? FileManager.default.contentsOfDirectory(atPath: pending)) == []
            }
        }

        describe("hooks for changes that arrive") {
            it("run for items a pull fast-forwards or merges in, with DOCKET_ORIGIN=pull and the new commit") {
                runCommand(docketBinary, ["clone", remote.path, desk.folder.path])
                let added = recordingHook("on-add", desk)
                let modified = recordingHook("on-modify", desk)
                let removed = recordingHook("on-remove", desk)
                let milk = laptop.id("add", "Buy milk")
                laptop.run("sync")
                desk.run("sync")
                expect(read(added)).to(
                    contain("hook=on-add origin=pull store=\(desk.folder.path) commit=\(desk.head)\n"))
                expect(items(read(added)).map { ($0["item"] as? [String: Any])?["text"] as? String }) == ["Buy milk"]

                // Both sides change: the desk merges, and hears of what the merge took from the laptop.
                laptop.run("done", milk)
                laptop.run("add", "Call Anna")
                laptop.run("sync")
                desk.run("add", "Water plants")
                desk.run("sync")
                let adds = read(added)
                expect(adds).to(contain("hook=on-add origin=edit"))
                expect(adds).to(contain("commit=\(desk.head)\n"))
                expect(items(adds).map { ($0["item"] as? [String: Any])?["text"] as? String }) == [
                    "Buy milk", "Water plants", "Call Anna",
                ]
                let modify = items(read(modified))
                expect(modify.count) == 2
                expect((modify.last?["item"] as? [String: Any])?["completed"] as? Bool) == true

                laptop.run("sync")
                laptop.run("rm", milk)
                laptop.run("sync")
                desk.run("sync")
                expect(read(removed)).to(contain("origin=pull"))
                expect(items(read(removed)).map { ($0["item"] as? [String: Any])?["text"] as? String }) == ["Buy milk"]
            }
        }
    }
}
