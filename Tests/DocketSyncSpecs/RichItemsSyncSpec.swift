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
        var remote: URL!
        var laptop: Machine!
        var desk: Machine!
        beforeEach {
            let machines = TwoMachines("docket-rich")
            (root, remote, laptop, desk) = (machines.root, machines.remote, machines.laptop, machines.desk)
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
                expect(todo?.waitDate) == .day(CalendarDay(year: 2030, month: 1, day: 5)!)
                expect(todo?.scheduledDate) == .day(CalendarDay(year: 2030, month: 1, day: 4)!)
                expect(desk.run("sync").status) == 0
                expect(laptop.run("sync").status) == 0
                expect(laptop.state) == desk.state
            }
        }

        describe("two machines and one project's task") {
            it("make one next instance of a repeating task both finished, by the ids the day's view shows") {
                let garden = laptop.id("project", "add", "Garden")
                let mow = laptop.id("task", "add", garden, "Mow", "--every", "week", "--due", "tomorrow")
                laptop.run("sync")
                desk.run("pull")
                expect(laptop.run("done", mow).stdout).to(contain("Next: "))
                expect(desk.run(mow, "done").stdout).to(contain("Next: "))
                expect(laptop.run("sync").status) == 0
                expect(desk.run("sync").status) == 0
                expect(laptop.run("sync").status) == 0
                for machine in [laptop!, desk!] {
                    let tasks = machine.state.projects[0].tasks
                    expect(tasks.count) == 2
                    expect(tasks.filter { $0.state != .finished }.map { $0.recurrence?.occurrence }) == [2]
                }
                expect(laptop.state) == desk.state
            }
            it("stop a slip started on one machine when the other finishes the task, and the report stops counting") {
                let garden = laptop.id("project", "add", "Garden")
                let dig = laptop.id("task", "add", garden, "Dig")
                laptop.run("sync")
                desk.run("pull")
                // The laptop starts recording; the desk, not knowing, finishes the task a moment later.
                laptop.run("task", "start", dig)
                desk.run("done", dig)
                expect(laptop.run("sync").status) == 0
                expect(desk.run("sync").status) == 0
                expect(laptop.run("sync").status) == 0
                for machine in [laptop!, desk!] {
                    let task = machine.state.projects[0].tasks[0]
                    expect(task.state) == .finished
                    expect(task.runningSlip).to(beNil())
                    expect(task.timeSlips.last?.stop) == task.completedDate
                    expect(machine.run("report").stdout).toNot(contain("(running)"))
                }
                expect(laptop.state) == desk.state
                expect(desk.run("merges").stdout).to(contain("running slip"))
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
                expect(todo?.waitDate) == .unknown
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
            /// The desk's docket, committing as Desk.
            @discardableResult
            func onDesk(_ arguments: String...) -> CommandResult {
                docket(
                    arguments, store: desk.folder,
                    environment: [
                        "GIT_AUTHOR_NAME": "Desk", "GIT_AUTHOR_EMAIL": "desk@example.invalid",
                        "GIT_COMMITTER_NAME": "Desk", "GIT_COMMITTER_EMAIL": "desk@example.invalid",
                    ])
            }
            func todo(_ machine: Machine, _ id: String) -> TodoItem? {
                machine.state.todos.first { $0.id.uuidString.lowercased().hasPrefix(id.lowercased()) }
            }
            /// The laptop's store pushed, and the desk cloned from it again: one history, in which every commit
            /// the desk makes from here on is Desk's (its first clone, of the empty remote, began a store of its own).
            func deskClonesLaptop() {
                laptop.run("sync")
                try? FileManager.default.removeItem(at: desk.folder)
                runCommand(docketBinary, ["clone", remote.path, desk.folder.path])
            }

            it("after a sync takes back this machine's own last change, not the other machine's completion it merged") {
                let milk = laptop.id("add", "Buy milk", "+errand")
                deskClonesLaptop()
                onDesk("done", milk)
                onDesk("tag", milk, "+home")
                onDesk("sync")
                laptop.run("edit", milk, "Buy oat milk")
                laptop.run("tag", milk, "+shop", "-errand")
                expect(laptop.run("sync").stdout).to(contain("Merged"))
                expect(todo(laptop, milk)?.completed) == true

                let undone = laptop.run("undo")
                expect(undone.stdout).to(contain("Undid docket tag \(milk) +shop -errand (todo 'Buy oat milk')"))
                expect(todo(laptop, milk)?.tags) == ["errand", "home"]
                expect(laptop.run("undo").stdout).to(contain("Undid docket edit \(milk) Buy oat milk"))
                let back = todo(laptop, milk)
                expect(back?.text) == "Buy milk"
                expect(back?.completed) == true
                expect(back?.completedDate).toNot(beNil())

                expect(laptop.run("sync").status) == 0
                expect(desk.run("pull").status) == 0
                expect(todo(desk, milk)?.text) == "Buy milk"
                expect(todo(desk, milk)?.completed) == true
                expect(todo(desk, milk)?.tags) == ["errand", "home"]
                expect(laptop.run("undo", "--list").stdout).to(
                    contain(
                        "merge origin/main, changes by Desk <desk@example.invalid> (undo --merge)  todo 'Buy oat milk'")
                )
            }
            it("leaves a field another machine changed after this one, saying whose edit it keeps") {
                let milk = laptop.id("add", "Buy milk")
                deskClonesLaptop()
                laptop.run("priority", milk, "high")
                laptop.run("commit")
                Thread.sleep(forTimeInterval: 0.01)
                onDesk("priority", milk, "low")
                onDesk("sync")
                expect(laptop.run("sync").stdout).to(contain("Merged"))
                let undone = laptop.run("undo")
                expect(undone.stdout).to(contain("Undid docket priority \(milk) high"))
                expect(undone.stdout).to(
                    contain(
                        "kept todo 'Buy milk' priority: changed since by Desk <desk@example.invalid> (merge origin/main)"
                    ))
                expect(todo(laptop, milk)?.priority) == .low
                expect(laptop.run("status").stdout).to(contain("Nothing to commit"))
            }
            it("gives a field back the other machine's edit this one had won over in a merge, saying whose") {
                let milk = laptop.id("add", "Buy milk")
                deskClonesLaptop()
                onDesk("edit", milk, "Buy oat milk")
                onDesk("sync")
                Thread.sleep(forTimeInterval: 0.01)
                laptop.run("edit", milk, "Buy soy milk")
                expect(laptop.run("sync").stdout).to(contain("chose the later edit"))
                expect(todo(laptop, milk)?.text) == "Buy soy milk"
                let undone = laptop.run("undo")
                expect(undone.stdout).to(
                    contain(
                        "todo 'Buy soy milk' text: set to \"Buy oat milk\", the edit by Desk <desk@example.invalid> "
                            + "this change had won over in merge origin/main"))
                expect(todo(laptop, milk)?.text) == "Buy oat milk"
                expect(laptop.run("sync").status) == 0
                expect(desk.run("pull").status) == 0
                expect(todo(desk, milk)?.text) == "Buy oat milk"
            }
            it("gives a field back the edit a merge made on the other machine set aside for this one's") {
                let milk = laptop.id("add", "Buy milk")
                deskClonesLaptop()
                onDesk("edit", milk, "Buy oat milk")
                Thread.sleep(forTimeInterval: 0.01)
                laptop.run("edit", milk, "Buy soy milk")
                expect(laptop.run("sync").status) == 0
                // The desk merges: the laptop's later edit wins there, and the desk's is set aside.
                expect(onDesk("sync").stdout).to(contain("chose the later edit"))
                expect(laptop.run("pull").status) == 0
                expect(todo(laptop, milk)?.text) == "Buy soy milk"
                let undone = laptop.run("undo")
                expect(undone.stdout).to(
                    contain(
                        "todo 'Buy soy milk' text: set to \"Buy oat milk\", the edit by Desk <desk@example.invalid> "))
                expect(todo(laptop, milk)?.text) == "Buy oat milk"
                expect(laptop.run("sync").status) == 0
                expect(desk.run("pull").status) == 0
                expect(todo(desk, milk)?.text) == "Buy oat milk"
            }
            it("gives a date back the edit a merge made by plain git on the other machine set aside for this one's") {
                let milk = laptop.id("add", "Buy milk", "--due", "2030-01-01")
                deskClonesLaptop()
                onDesk("due", milk, "2030-02-02")
                onDesk("commit")
                Thread.sleep(forTimeInterval: 0.01)
                laptop.run("due", milk, "2030-03-03")
                expect(laptop.run("sync").status) == 0
                // The desk merges with git's own pull, through Docket's driver, and pushes.
                expect(
                    gitCLI(
                        [
                            "-c", "user.name=Desk", "-c", "user.email=desk@example.invalid", "pull", "-q",
                            "--no-rebase",
                            "--no-edit", "origin", "main",
                        ], in: desk.folder
                    ).status) == 0
                expect(gitCLI(["push", "-q", "origin", "main"], in: desk.folder).status) == 0
                expect(laptop.run("pull").status) == 0
                expect(todo(laptop, milk)?.due) == .day(CalendarDay("2030-03-03")!)
                let undone = laptop.run("undo")
                expect(undone.stdout).to(contain("set to \"2030-02-02\", the edit by Desk <desk@example.invalid> "))
                expect(todo(laptop, milk)?.due) == .day(CalendarDay("2030-02-02")!)
            }
            it("removes again, asked for, a todo an edit here kept over the other machine's removal") {
                let milk = laptop.id("add", "Buy milk")
                deskClonesLaptop()
                onDesk("rm", milk)
                onDesk("sync")
                Thread.sleep(forTimeInterval: 0.01)
                laptop.run("edit", milk, "Buy oat milk")
                expect(laptop.run("sync").stdout).to(contain("1 edit won over a removal"))
                let merges = laptop.run("merges").stdout
                expect(merges).to(contain("[1] todo 'Buy oat milk': kept, edited on ours after its removal on theirs"))
                let commit = String(merges.split(separator: " ").first ?? "")
                expect(laptop.run("merges", "restore", commit, "1").stdout).to(
                    contain("Removed todo 'Buy oat milk' again"))
                expect(todo(laptop, milk)).to(beNil())
                expect(laptop.run("sync").status) == 0
                expect(desk.run("pull").status) == 0
                expect(todo(desk, milk)).to(beNil())
            }
            it(
                "of a merge, asked for, puts back the values this machine had before it, keeps what it brought in, and names whose edits it reverses"
            ) {
                let milk = laptop.id("add", "Buy milk")
                deskClonesLaptop()
                onDesk("edit", milk, "Buy oat milk")
                onDesk("add", "Call Anna")
                onDesk("sync")
                laptop.run("add", "Pay rent")
                laptop.run("commit")
                expect(laptop.run("pull").stdout).to(contain("Merged"))
                expect(laptop.state.todos.map(\.text).sorted()) == ["Buy oat milk", "Call Anna", "Pay rent"]
                let listed = laptop.run("undo", "--list").stdout
                expect(listed).to(beginWith("1  "))
                expect(listed).to(
                    contain(
                        "merge origin/main, changes by Desk <desk@example.invalid> (undo --merge)  todo 'Buy oat milk'")
                )
                let undone = laptop.run("undo", "--merge")
                expect(undone.stdout).to(
                    contain(
                        "Undid merge origin/main, taking back the changes by Desk <desk@example.invalid> it brought in "
                            + "(todo 'Buy oat milk', todo 'Call Anna'): reversed by a new edit"))
                expect(laptop.state.todos.map(\.text).sorted()) == ["Buy milk", "Call Anna", "Pay rent"]
                let again = laptop.run("undo", "--merge")
                expect(again.status) == 1
                expect(again.stderr).to(
                    contain(
                        "there is no merge to undo: no merge made on this machine is kept ('docket undo' takes back your own changes)"
                    ))
            }
            it("of a merge that only brought items in, asked for, says it changed nothing") {
                laptop.id("add", "Buy milk")
                deskClonesLaptop()
                onDesk("add", "Call Anna")
                onDesk("sync")
                laptop.run("add", "Pay rent")
                laptop.run("commit")
                expect(laptop.run("pull").stdout).to(contain("Merged"))
                let head = laptop.git("rev-parse", "HEAD")
                let undone = laptop.run("undo", "--merge")
                expect(undone.status) == 0
                expect(undone.stdout).to(
                    contain("nothing changed: what it brought in stays, and nothing else was left to take back"))
                expect(undone.stdout).notTo(contain("reversed by a new edit"))
                expect(laptop.run("status").stdout).to(contain("Nothing to commit"))
                expect(laptop.git("rev-parse", "HEAD")) == head
                expect(laptop.state.todos.map(\.text).sorted()) == ["Buy milk", "Call Anna", "Pay rent"]
            }
            it("says when only merges are left to undo, naming the last and how to take it back") {
                let milk = laptop.id("add", "Buy milk")
                deskClonesLaptop()
                onDesk("done", milk)
                onDesk("sync")
                laptop.run("priority", milk, "high")
                laptop.run("sync")
                Array(1...2).forEach { _ in laptop.run("undo") }
                let refused = laptop.run("undo")
                expect(refused.status) == 1
                expect(refused.stderr).to(
                    contain(
                        "there is no change of yours to undo: the changes kept on this machine are merges (the last, "
                            + "merge origin/main, brought in changes by Desk <desk@example.invalid>); "
                            + "'docket undo --merge' takes a merge back"))
                expect(laptop.run("undo", "--list").stdout.split(separator: "\n").count) == 1
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

        describe("Samples/a-week.sh") {
            it(
                "walks a week on two machines under faketime: times, a wait, a dependency, filters, a repeating task, undo"
            ) {
                let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent()
                let sample = runCommand(
                    root.appendingPathComponent("Samples/a-week.sh").path, [], environment: ["DOCKET": docketBinary])
                expect(sample.status).to(equal(0), description: sample.stderr)
                let days = sample.stdout.components(separatedBy: "\n## ")
                expect(days.count) == 6
                guard days.count == 6 else { return }
                let (monday, tuesday, wednesday, saturday, later) = (days[1], days[2], days[3], days[4], days[5])
                // Monday: a time of day shown; the passport waits; planting waits on the seeds.
                expect(monday).to(contain("Call mom  due tomorrow 09:00"))
                expect(monday).to(contain("1 waiting until 2026-12-14"))
                expect(monday).to(contain("Renew passport  waiting until 2026-12-14"))
                expect(monday).to(match("Plant the seeds  \\+garden  blocked by [0-9a-f]{8}"))
                expect(monday).to(match("Buy seeds  \\+garden  blocking [0-9a-f]{8}"))
                // Tuesday: overdue since the time passed; the laptop's undo leaves the desk's completion.
                expect(tuesday).to(contain("Call mom  overdue since 09:00"))
                expect(tuesday).to(contain("Merged origin"))
                expect(tuesday).to(contain("Undid docket priority"))
                expect(tuesday).to(contain("  state     done 2026-12-01 09:30\n  due       none\n  priority  none"))
                // Wednesday: a context narrows the day's view and says so; the seeds bought, planting is ready.
                expect(wednesday).to(contain("Context work: +work"))
                // Sorted by priority, high first; -health leaves the dentist out, with no '--' before it.
                expect(wednesday).to(
                    match("Water the plants  !high  \\+home\\n[0-9a-f]{8}  \\[ \\]  Book the dentist  !medium"))
                let withoutHealth = wednesday.components(separatedBy: "docket list -health\n").dropFirst().first?
                    .components(separatedBy: "\n$ ").first
                expect(withoutHealth).to(contain("Water the plants"))
                expect(withoutHealth).toNot(contain("dentist"))
                expect(wednesday).to(match("Plant the seeds  \\+garden\n"))
                // Saturday: the repeating task's next instance, one week on.
                expect(saturday).to(contain("Mow the lawn, due 2026-12-12"))
                // Two weeks on: the wait is over.
                expect(later).to(contain("Renew passport"))
                expect(later).toNot(contain("waiting"))
                expect(sample.stdout).to(contain("Both machines hold the same items: yes"))
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
                let head = laptop.head
                let undoable = laptop.run("undo", "--list").stdout
                let again = laptop.run("merges", "restore", merge, "1")
                expect(again.status) == 0
                expect(again.stdout)
                    == "Already restored: todo 'Buy soy milk' text \"Buy oat milk\"; nothing changed\n"
                expect(laptop.run("status").stdout).to(contain("Nothing to commit"))
                expect(laptop.head) == head
                expect(laptop.run("undo", "--list").stdout) == undoable
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
