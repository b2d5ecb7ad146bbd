import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// One bad file never stops the fleet: what a remote brings that docket cannot take in is set aside, with a record,
/// and every machine's own work still travels.
final class QuarantineSpec: QuickSpec {
    override class func spec() {
        describe("a file a remote brings that docket cannot take in") {
            var machines: TwoMachines!
            var laptop: Machine { machines.laptop }
            var desk: Machine { machines.desk }
            var attacker: URL!
            var milk: UUID!

            beforeEach {
                machines = TwoMachines("docket-quarantine")
                laptop.run("add", "Buy milk")
                milk = laptop.state.todos.first { $0.text == "Buy milk" }?.id
                laptop.run("add", "Call Anna")
                expect(laptop.run("sync").status) == 0
                runCommand(docketBinary, ["clone", machines.remote.path, desk.folder.path])
                attacker = machines.root.appendingPathComponent("attacker")
                gitCLI(["clone", "-q", machines.remote.path, attacker.path], in: machines.root)
                gitCLI(["config", "user.name", "Mallory"], in: attacker)
                gitCLI(["config", "user.email", "m@example.com"], in: attacker)
            }
            afterEach { try? FileManager.default.removeItem(at: machines.root) }

            /// The attacker's clone takes the remote's branch, changes it with `plant`, commits and pushes.
            func plant(_ what: String, _ change: (URL) throws -> Void) {
                gitCLI(["fetch", "-q", "origin"], in: attacker)
                gitCLI(["reset", "-q", "--hard", "origin/main"], in: attacker)
                try! change(attacker)
                gitCLI(["add", "-A"], in: attacker)
                gitCLI(["commit", "-q", "-m", "plant \(what)"], in: attacker)
                let pushed = gitCLI(["push", "-q", "origin", "HEAD:main"], in: attacker)
                expect(pushed.status).to(equal(0), description: pushed.stderr)
            }
            func milkFile(_ folder: URL) -> URL { folder.appendingPathComponent(StoreLayout.todo(milk)) }
            func rewrite(_ folder: URL, _ edit: (inout [String: Any]) -> Void) throws {
                var json = try JSONSerialization.jsonObject(with: Data(contentsOf: milkFile(folder))) as! [String: Any]
                edit(&json)
                try JSONSerialization.data(withJSONObject: json).write(to: milkFile(folder))
            }

            let kinds = [
                "a tag with a newline", "'completed' as a number", "bytes that are not UTF-8", "a lone surrogate",
                "a wait date of month 13", "a folder at the item's path", "a symbolic link at the item's path",
            ]
            for (index, kind) in kinds.enumerated() {
                it(
                    "is set aside when it is \(kind): the item keeps its last good value, and both machines' work travels"
                ) {
                    plant(kind) { folder in
                        switch index {
                        case 0: try rewrite(folder) { $0["tags"] = ["bad\ntag"] }
                        case 1: try rewrite(folder) { $0["completed"] = 1 }
                        case 2: try Data([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D]).write(to: milkFile(folder))
                        case 3:
                            let text = try String(contentsOf: milkFile(folder), encoding: .utf8)
                            try text.replacingOccurrences(of: "\"Buy milk\"", with: "\"\\ud800\"")
                                .write(to: milkFile(folder), atomically: true, encoding: .utf8)
                        case 4: try rewrite(folder) { $0["waitDate"] = "2026-13-45" }
                        case 5:
                            try FileManager.default.removeItem(at: milkFile(folder))
                            try FileManager.default.createDirectory(
                                at: milkFile(folder), withIntermediateDirectories: true)
                            try Data("x".utf8).write(to: milkFile(folder).appendingPathComponent("x"))
                        default:
                            try FileManager.default.removeItem(at: milkFile(folder))
                            try FileManager.default.createSymbolicLink(
                                atPath: milkFile(folder).path, withDestinationPath: "/etc/passwd")
                        }
                    }
                    laptop.run("add", "Laptop's own work")
                    let synced = laptop.run("sync")
                    expect(synced.status).to(equal(0), description: synced.stderr)
                    expect(synced.stdout).to(contain("Set aside: \(StoreLayout.todo(milk)) from "))
                    expect(synced.stdout).to(contain("kept this machine's version"))
                    expect(laptop.state.todos.first { $0.id == milk }?.text) == "Buy milk"
                    // The other machine's own work travels too, and both end the same.
                    desk.run("add", "Desk's own work")
                    expect(desk.run("sync").status) == 0
                    expect(laptop.run("sync").status) == 0
                    expect(Set(desk.state.todos.map(\.text))) == [
                        "Buy milk", "Call Anna", "Laptop's own work", "Desk's own work",
                    ]
                    expect(desk.state) == laptop.state
                    expect(fsckProblem(machines.remote)).to(beNil())
                    // Said in one line until it is settled, and recorded where 'docket merges' shows it.
                    expect(laptop.run("status").stdout).to(contain("Set aside: \(StoreLayout.todo(milk))"))
                    expect(laptop.run().stderr).to(contain("Set aside: \(StoreLayout.todo(milk))"))
                    let merges = laptop.run("merges").stdout
                    expect(merges).to(contain("Set aside 1 file from origin/main that docket cannot take in"))
                    expect(merges).to(contain("[1] \(StoreLayout.todo(milk)) from "))
                    // The item's next edit settles it.
                    laptop.run("edit", String(milk.uuidString.prefix(8)).lowercased(), "Buy oat milk")
                    expect(laptop.run("sync").status) == 0
                    expect(laptop.run("status").stdout).notTo(contain("Set aside"))
                    expect(desk.run("sync").status) == 0
                    expect(desk.state.todos.first { $0.id == milk }?.text) == "Buy oat milk"
                }
            }

            it("merges two machines that each set the same file aside, though their common base holds it") {
                plant("a bad tag") { folder in try rewrite(folder) { $0["tags"] = ["bad\ntag"] } }
                // Each pulls the plant and sets it aside with a commit of its own, then both have more to send.
                // (At other times, as two machines would: the same commit made in the same second would be one.)
                expect(laptop.run("pull", environment: ["GIT_COMMITTER_DATE": "2026-11-28T10:00:00Z"]).status) == 0
                expect(desk.run("pull", environment: ["GIT_COMMITTER_DATE": "2026-11-28T10:00:05Z"]).status) == 0
                expect(laptop.head) != desk.head
                laptop.run("add", "Laptop after")
                desk.run("add", "Desk after")
                expect(laptop.run("sync").status) == 0
                let synced = desk.run("sync")
                expect(synced.status).to(equal(0), description: synced.stderr)
                expect(laptop.run("sync").status) == 0
                expect(desk.state) == laptop.state
                expect(Set(desk.state.todos.map(\.text))) == ["Buy milk", "Call Anna", "Laptop after", "Desk after"]
            }

            it("keeps the store a store when a remote commit removes or damages its format file") {
                plant("no format") { folder in
                    try FileManager.default.removeItem(at: folder.appendingPathComponent(StoreLayout.format))
                }
                let synced = laptop.run("sync")
                expect(synced.status).to(equal(0), description: synced.stderr)
                expect(
                    FileManager.default.fileExists(
                        atPath: laptop.folder.appendingPathComponent(StoreLayout.format).path))
                    == true
                expect(laptop.run("merges").stdout).to(contain("removes the store's format file"))
                plant("a bad format") { folder in
                    try Data("nope".utf8).write(to: folder.appendingPathComponent(StoreLayout.format))
                }
                expect(desk.run("sync").status) == 0
                expect(laptop.run("sync").status) == 0
                let added = laptop.run("add", "Still in this store")
                expect(added.stderr).notTo(contain("Created a new Docket store"))
                expect(laptop.run("sync").status) == 0
                expect(desk.run("sync").status) == 0
                expect(desk.state.todos.map(\.text)).to(contain("Still in this store"))
                expect(try? Data(contentsOf: desk.folder.appendingPathComponent(StoreLayout.format)))
                    == (try? Data(contentsOf: laptop.folder.appendingPathComponent(StoreLayout.format)))
            }

            it("refuses a format file of a newer docket whole, naming the upgrade") {
                plant("a newer format") { folder in
                    try Data("{\"format\": 999}".utf8).write(to: folder.appendingPathComponent(StoreLayout.format))
                }
                let refused = laptop.run("sync")
                expect(refused.status) == 1
                expect(refused.stderr).to(contain("format 999"))
                expect(laptop.state.todos.count) == 2
            }

            it("clones a remote whose branch holds a bad file, leaving the file out with a record") {
                plant("a bad tag") { folder in try rewrite(folder) { $0["tags"] = ["bad\ntag"] } }
                let fresh = Machine(folder: machines.root.appendingPathComponent("fresh"))
                let cloned = runCommand(docketBinary, ["clone", machines.remote.path, fresh.folder.path])
                expect(cloned.status).to(equal(0), description: cloned.stderr)
                expect(fresh.state.todos.map(\.text)) == ["Call Anna"]
                expect(fresh.run("status").stdout).to(contain("left out, as this machine never had it"))
                expect(fresh.run("sync").status) == 0
            }

            it("leaves a hand edit that does not decode uncommitted, sends the rest, and the advice it gives works") {
                try! Data("{broken".utf8).write(to: milkFile(laptop.folder))
                laptop.run("add", "Sent all the same")
                let synced = laptop.run("sync")
                expect(synced.status).to(equal(0), description: synced.stderr)
                expect(synced.stderr).to(contain("left uncommitted: \(StoreLayout.todo(milk)) does not decode"))
                expect(synced.stderr).to(contain("'git checkout -- \(StoreLayout.todo(milk))'"))
                expect(desk.run("sync").status) == 0
                expect(desk.state.todos.map(\.text)).to(contain("Sent all the same"))
                laptop.git("checkout", "--", StoreLayout.todo(milk))
                expect(laptop.run("status").stdout).to(contain("Nothing to commit"))
            }

            it("is set aside by git's merge driver too: a plain 'git pull' keeps this machine's version, with a record")
            {
                laptop.run("edit", String(milk.uuidString.prefix(8)).lowercased(), "Buy oat milk")
                expect(laptop.run("commit").status) == 0
                plant("a bad tag") { folder in try rewrite(folder) { $0["tags"] = ["bad\ntag"] } }
                let pulled = laptop.git("pull", "-q", "--no-rebase", "origin", "main")
                expect(laptop.git("status", "--porcelain")) == ""
                _ = pulled
                expect(laptop.state.todos.first { $0.id == milk }?.text) == "Buy oat milk"
                let status = laptop.run("status").stdout
                expect(status).to(contain("Set aside: \(StoreLayout.todo(milk)) from "))
                expect(status).to(contain("kept this machine's version"))
                expect(laptop.run("sync").status) == 0
                expect(desk.run("sync").status) == 0
                expect(desk.state.todos.first { $0.id == milk }?.text) == "Buy oat milk"
            }

            it("never passes over a store whose marker plain git removed for ~/.docket, and the way out it names works")
            {
                let home = machines.root.appendingPathComponent("home")
                try! FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
                laptop.git("rm", "-q", StoreLayout.format)
                laptop.git("commit", "-qm", "remove the marker")
                let refused = runCommand(
                    docketBinary, ["add", "Lost?"], in: laptop.folder, environment: ["HOME": home.path])
                expect(refused.status) == 1
                expect(refused.stderr).to(contain("is a Docket store whose marker .docket/format.json is gone"))
                expect(FileManager.default.fileExists(atPath: home.appendingPathComponent(".docket").path)) == false
                // As the message says.
                expect(runCommand(docketBinary, ["init", laptop.folder.path], environment: ["HOME": home.path]).status)
                    == 0
                let added = runCommand(
                    docketBinary, ["add", "Found"], in: laptop.folder, environment: ["HOME": home.path])
                expect(added.status).to(equal(0), description: added.stderr)
                expect(laptop.state.todos.map(\.text)).to(contain("Found"))
                expect(laptop.run("sync").status) == 0
                expect(desk.run("sync").status) == 0
                expect(desk.state.todos.map(\.text)).to(contain("Found"))
            }

            it("settles a set-aside file with 'docket merges restore', keeping this machine's version") {
                plant("a bad tag") { folder in try rewrite(folder) { $0["tags"] = ["bad\ntag"] } }
                expect(laptop.run("sync").status) == 0
                let merges = laptop.run("merges").stdout
                guard let line = merges.split(separator: "\n").first(where: { $0.contains("Set aside 1 file") }) else {
                    return fail("no set-aside commit in: \(merges)")
                }
                let restored = laptop.run("merges", "restore", String(line.prefix(7)), "1")
                expect(restored.status).to(equal(0), description: restored.stderr)
                expect(restored.stdout).to(contain("still cannot be taken in; this machine's version stands"))
                expect(laptop.run("status").stdout).notTo(contain("Set aside"))
                expect(laptop.state.todos.first { $0.id == milk }?.tags) == []
            }
        }
    }
}
