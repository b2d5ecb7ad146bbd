import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// Tags, notes, priorities, recurrence, undo and restoring what a merge
/// discarded, across two machines syncing one remote.
final class RichItemsSyncSpec: QuickSpec {
    override class func spec() {
        var root: URL!
        var laptop: Machine!
        var desk: Machine!
        beforeEach {
            let machines = TwoMachines("docket-rich")
            (root, laptop, desk) = (machines.root, machines.laptop, machines.desk)
            runCommand(docketBinary, ["clone", machines.remote.path, desk.folder.path])
        }
        afterEach { try? FileManager.default.removeItem(at: root) }
        func files(_ machine: Machine) -> [String: String] {
            let todos = machine.folder.appendingPathComponent("todos")
            var result: [String: String] = [:]
            for case let url as URL in FileManager.default.enumerator(at: todos, includingPropertiesForKeys: nil)
                ?? .init()
            where url.pathExtension == "json" {
                result[url.lastPathComponent] = try? String(contentsOf: url, encoding: .utf8)
            }
            return result
        }

        describe("two machines editing one todo concurrently") {
            it("keep both machines' tags and notes and make one next instance of a series both completed") {
                let milk = laptop.id("add", "Buy milk", "+errand")
                let water = laptop.id("add", "Water plants", "--every", "week", "--due", "tomorrow")
                laptop.run("sync")
                desk.run("pull")
                expect(laptop.run("tag", milk, "+shop").status) == 0
                expect(laptop.run("note", milk, "called, left a message").status) == 0
                expect(laptop.run("done", water).stdout).to(contain("Next: "))
                expect(desk.run("tag", milk, "+home", "-errand").status) == 0
                expect(desk.run("note", milk, "closed on Sunday").status) == 0
                expect(desk.run("done", water).stdout).to(contain("Next: "))
                expect(laptop.run("sync").status) == 0
                expect(desk.run("sync").status) == 0
                expect(laptop.run("sync").status) == 0

                for machine in [laptop!, desk!] {
                    let state = machine.state
                    let todo = state.todos.first { $0.text == "Buy milk" }
                    expect(todo?.tags) == ["home", "shop"]
                    expect(todo?.notes.map(\.text).sorted()) == ["called, left a message", "closed on Sunday"]
                    let plants = state.todos.filter { $0.text == "Water plants" }
                    expect(plants.count) == 2
                    expect(plants.filter { !$0.completed }.count) == 1
                }
                expect(files(laptop)) == files(desk)
                expect(laptop.state) == desk.state
                expect(laptop.run("merges").stdout).to(contain("tags: kept \"[home, shop]\" (both changed it:"))
            }
        }

        describe("two machines changing one todo's dependencies and wait") {
            it("keep each machine's dependencies, through docket sync and through git pull's merge driver alike") {
                let paint = laptop.id("add", "Buy paint")
                let brush = laptop.id("add", "Buy brush")
                let sand = laptop.id("add", "Sand fence")
                let fence = laptop.id("add", "Paint fence", "--depends", sand)
                laptop.run("sync")
                desk.run("pull")
                expect(laptop.run("depend", fence, "+\(paint)", "-\(sand)").status) == 0
                expect(laptop.run("wait", fence, "2030-01-05").status) == 0
                expect(desk.run("depend", fence, "+\(brush)").status) == 0
                expect(desk.run("schedule", fence, "2030-01-04").status) == 0
                expect(laptop.run("sync").status) == 0
                expect(desk.run("commit").status) == 0
                // The desk pulls as plain git does: its merge driver merges the file.
                expect(gitCLI(["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"], in: desk.folder).status)
                    == 0
                let todo = desk.state.todos.first { $0.text == "Paint fence" }
                expect(todo?.dependencies.map { String($0.uuidString.lowercased().prefix(8)) }.sorted())
                    == [brush, paint].sorted()
                expect(todo?.waitDate).notTo(beNil())
                expect(todo?.scheduledDate).notTo(beNil())
                expect(desk.run("sync").status) == 0
                expect(laptop.run("sync").status) == 0
                expect(laptop.state) == desk.state
            }
        }

        describe("undo") {
            it("of a dependency and a wait, synced, puts them back as new edits the other machine takes") {
                let paint = laptop.id("add", "Buy paint")
                let fence = laptop.id("add", "Paint fence")
                expect(laptop.run("depend", fence, "+\(paint)").status) == 0
                expect(laptop.run("wait", fence, "2030-01-05").status) == 0
                laptop.run("sync")
                expect(laptop.run("undo", "-n", "2").status) == 0
                expect(laptop.run("sync").status) == 0
                expect(desk.run("pull").status) == 0
                let todo = desk.state.todos.first { $0.text == "Paint fence" }
                expect(todo?.dependencies) == []
                expect(todo?.waitDate).to(beNil())
            }
            it("of a synced edit writes the reverse as a new edit, which reaches the other machine") {
                let milk = laptop.id("add", "Buy milk")
                laptop.run("sync")
                desk.run("pull")
                laptop.run("priority", milk, "high")
                laptop.run("sync")
                desk.run("pull")
                expect(desk.state.todos.first?.priority) == .high
                let undone = laptop.run("undo")
                expect(undone.stdout).to(contain("Undid docket priority \(milk) high (todo 'Buy milk')"))
                expect(undone.stdout).to(contain("reversed by a new edit"))
                expect(laptop.run("sync").status) == 0
                expect(desk.run("pull").status) == 0
                expect(desk.state.todos.first?.priority).to(beNil())
                expect(desk.state.todos.first!.alterDate!) > laptop.state.todos.first!.creationDate
            }
            it("of a merge puts back the values this machine had before it, and keeps what the merge brought in") {
                let milk = laptop.id("add", "Buy milk")
                laptop.run("sync")
                desk.run("pull")
                desk.run("edit", milk, "Buy oat milk")
                desk.run("add", "Call Anna")
                desk.run("sync")
                laptop.run("add", "Pay rent")
                laptop.run("commit")
                expect(laptop.run("pull").stdout).to(contain("Merged"))
                expect(laptop.state.todos.map(\.text).sorted()) == ["Buy oat milk", "Call Anna", "Pay rent"]
                expect(laptop.run("undo", "--list").stdout).to(contain("1  "))
                expect(laptop.run("undo", "--list").stdout).to(contain("merge origin/main  todo 'Buy oat milk'"))
                expect(laptop.run("undo").stdout).to(contain("Undid merge origin/main"))
                expect(laptop.state.todos.map(\.text).sorted()) == ["Buy milk", "Call Anna", "Pay rent"]
            }
        }

        describe("Samples/tags-notes-repeats.sh") {
            it(
                "runs from a fresh clone and ends with every tag and note, one next instance, and the undo on both machines"
            ) {
                let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent()
                let sample = runCommand(
                    root.appendingPathComponent("Samples/tags-notes-repeats.sh").path, [],
                    environment: ["DOCKET": docketBinary])
                expect(sample.status) == 0
                expect(sample.stdout).to(contain("tags: kept \"[home, shop]\" (both changed it:"))
                expect(sample.stdout.components(separatedBy: "[ ]  Water plants").count) == 2
                expect(sample.stdout).to(contain("priority  none\n  tags      +home +shop"))
                expect(sample.stdout).to(contain("closed on Sunday"))
                expect(sample.stdout).to(contain("called, left a message"))
            }
        }

        describe("merges restore") {
            it("puts back the value a merge discarded as a new edit that syncs") {
                let milk = laptop.id("add", "Buy milk")
                laptop.run("sync")
                desk.run("pull")
                desk.run("edit", milk, "Buy oat milk")
                desk.run("sync")
                Thread.sleep(forTimeInterval: 0.01)
                laptop.run("edit", milk, "Buy soy milk")
                expect(laptop.run("sync").status) == 0
                expect(laptop.state.todos.first?.text) == "Buy soy milk"
                let listing = laptop.run("merges").stdout
                expect(listing).to(
                    contain(
                        "[1] todo 'Buy soy milk' text: kept \"Buy soy milk\" (ours, the later edit), lost \"Buy oat milk\" (theirs)"
                    ))
                let merge = String(listing.prefix(7))
                let restored = laptop.run("merges", "restore", merge, "1")
                expect(restored.stdout)
                    == "Restored todo 'Buy soy milk' text \"Buy oat milk\"; commit and sync to share it\n"
                expect(laptop.run("sync").status) == 0
                expect(desk.run("pull").status) == 0
                expect(desk.state.todos.first?.text) == "Buy oat milk"
                let wrong = laptop.run("merges", "restore", merge, "2")
                expect(wrong.stderr).to(contain("has no lost value 2; it has 1 ('docket merges' numbers them)"))
            }
        }

        describe("a store of format 1") {
            it("is raised to this docket's format by the first change, and the commit carries it") {
                try Data("{\n  \"format\" : 1\n}\n".utf8).write(
                    to: laptop.folder.appendingPathComponent(".docket/format.json"))
                laptop.git("commit", "-qam", "an older store")
                expect(laptop.run("list").status) == 0
                expect(laptop.git("status", "--porcelain")) == ""
                laptop.run("add", "Buy milk", "+errand")
                expect(laptop.run("commit").status) == 0
                expect(laptop.git("show", "HEAD:.docket/format.json")).to(contain("\"format\" : \(Store.format)"))
            }
        }
    }
}
