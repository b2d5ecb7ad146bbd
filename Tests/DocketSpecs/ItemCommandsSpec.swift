import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// Todos and tasks as one space of ids: every item command takes any id the
/// day's view or a list shows, a task's as a todo's; `task add` takes what
/// `add` takes; a finished task stops its clock; and a repeating task repeats.
final class ItemCommandsSpec: QuickSpec {
    override class func spec() {
        var store: URL!
        beforeEach { store = temporaryStore("docket-items") }
        afterEach { try? FileManager.default.removeItem(at: store) }
        @discardableResult func run(_ arguments: String..., environment: [String: String] = [:]) -> CommandResult {
            docket(arguments, store: store, environment: environment)
        }
        func id(_ arguments: String...) -> String {
            docket(arguments, store: store).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func tasks() -> [ProjectTask] { (try? Store.open(at: store).load().state.projects.flatMap(\.tasks)) ?? [] }
        func task(_ short: String) -> ProjectTask? {
            tasks().first { $0.id.uuidString.lowercased().hasPrefix(short) }
        }
        var garden: String!
        beforeEach { garden = id("project", "add", "Garden") }

        describe("a task's id, as the day's view shows it") {
            it("is taken by done, reopen, edit, due, tag, priority, note, show, start, stop and rm") {
                let dig = id("task", "add", garden, "Dig", "beds", "--due", "today")
                expect(run().stdout).to(contain("\(dig)  [ ]  Dig beds  · Garden"))
                expect(run("edit", dig, "Dig", "the", "beds").stdout) == "Edited: Dig the beds\n"
                expect(run("due", dig, "tomorrow").stdout) == "Dig the beds: due tomorrow\n"
                expect(run("tag", dig, "+outside").status) == 0
                expect(run("priority", dig, "high").status) == 0
                expect(run("note", dig, "bring", "a", "spade").status) == 0
                expect(run(dig, "start").stdout) == "Task 'Dig the beds' recording time\n"
                expect(run(dig, "stop").stdout) == "Task 'Dig the beds' stopped recording\n"
                let edited = task(dig)!
                expect(edited.title) == "Dig the beds"
                expect(edited.tags) == ["outside"]
                expect(edited.priority) == .high
                expect(edited.notes.map(\.text)) == ["bring a spade"]
                expect(edited.dueDate.date.map(DateFormatterSpecs.day))
                    == DateFormatterSpecs.day(Calendar.current.date(byAdding: .day, value: 1, to: Date())!)
                expect(run("show", dig).stdout).to(contain("project   Garden (\(garden!))"))
                expect(run(dig, "done").stdout) == "Done: Dig the beds\n"
                expect(task(dig)?.state) == .finished
                expect(run("done", dig).stdout) == "Already done: Dig the beds\n"
                expect(run("reopen", dig).stdout) == "Reopened: Dig the beds\n"
                expect(run("rm", dig).stdout) == "Removed: Dig the beds\n"
                expect(tasks()).to(beEmpty())
            }
            it("is done with todos in one command, taken back by one undo") {
                let milk = id("add", "Buy", "milk")
                let dig = id("task", "add", garden, "Dig")
                expect(run("done", milk, dig).stdout) == "Done: Buy milk\nDone: Dig\n"
                expect(task(dig)?.state) == .finished
                expect(run("undo").status) == 0
                expect(task(dig)?.state) == .unfinished
                expect(try Store.open(at: store).load().state.todos.first?.completed) == false
            }
            it("is reopened in progress when time was recorded on it, else unfinished") {
                let dig = id("task", "add", garden, "Dig")
                let weed = id("task", "add", garden, "Weed")
                run("task", "start", dig)
                run("done", dig, weed)
                run("reopen", dig, weed)
                expect(task(dig)?.state) == .inProgress
                expect(task(weed)?.state) == .unfinished
            }
            it("opens in the editor form as a todo does, its title as the text") {
                let dig = id("task", "add", garden, "Dig")
                let file = store.deletingLastPathComponent().appendingPathComponent("editor-\(UUID().uuidString).sh")
                defer { try? FileManager.default.removeItem(at: file) }
                try Data(
                    "#!/bin/sh\nsed -i -e 's/^text: .*/text: Dig deeper/' -e 's/^due: .*/due: 2030-01-02/' \"$1\"\n"
                        .utf8
                )
                .write(to: file)
                chmod(file.path, 0o755)
                let edited = run("edit", dig, environment: ["EDITOR": file.path, "VISUAL": ""])
                expect(edited.stdout).to(contain("Edited: Dig deeper"))
                expect(task(dig)?.title) == "Dig deeper"
                expect(task(dig)?.dueDate.date.map(DateFormatterSpecs.day)) == "2030-01-02"
            }
        }

        describe("a task in the editor form") {
            func editor(_ script: String) -> [String: String] {
                let file = store.deletingLastPathComponent().appendingPathComponent("editor-\(UUID().uuidString).sh")
                try! Data("#!/bin/sh\n\(script)\n".utf8).write(to: file)
                chmod(file.path, 0o755)
                return ["EDITOR": file.path, "VISUAL": ""]
            }
            it("holds every field a command sets, as a todo's form does, and applies each line changed") {
                let seeds = id("add", "Buy", "seeds")
                let dig = id("task", "add", garden, "Dig", "+outside", "--due", "2030-01-10", "--wait", "2030-01-05")
                run("note", dig, "bring a spade")
                let form = store.deletingLastPathComponent().appendingPathComponent("form-\(UUID().uuidString).txt")
                defer { try? FileManager.default.removeItem(at: form) }
                expect(run("edit", dig, environment: editor("cp \"$1\" \(form.path)")).status) == 0
                let shown = (try? String(contentsOf: form, encoding: .utf8)) ?? ""
                for line in [
                    "text: Dig\n", "due: 2030-01-10\n", "wait: 2030-01-05\n", "scheduled: none\n", "tags: +outside\n",
                    "priority: none\n", "repeat: none\n", "depends:\n", "notes:\n- bring a spade\n",
                ] {
                    expect(shown).to(contain(line))
                }
                let edited = run(
                    "edit", dig,
                    environment: editor(
                        #"sed -i -e 's/^text: .*/text: Dig deeper/' -e 's/^wait: .*/wait: none/' "#
                            + #"-e 's/^scheduled: .*/scheduled: 2030-01-08 9am/' -e 's/^priority: .*/priority: high/' "#
                            + #"-e 's/^repeat: .*/repeat: 2 weeks/' -e 's/^depends:.*/depends: \#(seeds)/' "#
                            + #"-e 's/^- bring a spade$/- bring two spades/' "$1""#))
                expect(edited.status) == 0
                expect(edited.stdout).to(contain("Edited: Dig deeper"))
                // Every field the form changed is named, not only the text.
                expect(edited.stdout).to(
                    contain("(changed text, wait, scheduled, priority, repeat, depends and notes)"))
                let task = task(dig)!
                expect(task.title) == "Dig deeper"
                expect(task.waitDate) == .unknown
                expect(task.scheduledDate.hasTime) == true
                expect(task.dueDate) == .day(CalendarDay(year: 2030, month: 1, day: 10)!)
                expect(task.tags) == ["outside"]
                expect(task.priority) == .high
                expect(task.recurrence?.every) == Recurrence.Interval(.week, count: 2)
                expect(task.recurrence?.series) == task.id
                expect(task.dependencies.map { String($0.uuidString.lowercased().prefix(8)) }) == [seeds]
                expect(task.notes.map(\.text)) == ["bring two spades"]
            }
            it("changes nothing when a line does not read, says which, and goes on from the form") {
                let dig = id("task", "add", garden, "Dig")
                let before = task(dig)
                let bad = run(
                    "edit", dig,
                    environment: editor(
                        #"sed -i -e 's/^text: .*/text: Dig deeper/' -e 's/^depends:.*/depends: \#(dig)/' "$1""#))
                expect(bad.status) == 1
                expect(bad.stderr).to(contain("\(dig) cannot depend on itself"))
                expect(bad.stderr).to(contain("nothing was changed; 'docket edit \(dig)' goes on from your edit"))
                expect(task(dig)) == before
                let fixed = run("edit", dig, environment: editor(#"sed -i 's/^depends:.*/depends:/' "$1""#))
                expect(fixed.stderr).to(contain("Going on from your last edit of this task"))
                expect(fixed.status) == 0
                expect(task(dig)?.title) == "Dig deeper"
            }
        }

        describe("an id that starts ids of both kinds") {
            it("is refused naming every todo and task it starts, even when the todos alone would be ambiguous") {
                let opened = try Store.open(at: store)
                for (number, text) in [("1111", "Buy milk"), ("3333", "Call Anna")] {
                    try opened.addTodo(
                        TodoItem(
                            id: UUID(uuidString: "ABCD\(number)-0000-4000-8000-000000000000")!, text: text,
                            creationDate: Date(), completed: false, dueDate: nil, alterDate: nil))
                }
                try opened.addTask(
                    ProjectTask(
                        id: UUID(uuidString: "ABCD2222-0000-4000-8000-000000000000")!, title: "Dig", dueDate: .unknown,
                        state: .unfinished, timeSlips: [], alterDate: nil), to: try opened.projectID(garden))
                let refused = run("done", "abcd")
                expect(refused.status) == 1
                expect(refused.stderr).to(
                    contain("the id abcd matches todos abcd1111, abcd3333 and task abcd2222; give more of the id"))
                expect(tasks().first?.state) == .unfinished
                expect(run("done", "abcd2").stdout) == "Done: Dig\n"
            }
        }

        describe("a command that has no meaning for a kind") {
            it("says what the item is and what the command takes") {
                let milk = id("add", "Buy", "milk")
                let dig = id("task", "add", garden, "Dig")
                let fork = run("fork", dig)
                expect(fork.status) == 1
                expect(fork.stderr)
                    == "Error: \(dig) is a task of Garden, and 'docket fork' copies todos only; 'docket task add' adds a task\n"
                let start = run(milk, "start")
                expect(start.status) == 1
                expect(start.stderr).to(
                    contain(
                        "\(milk) is a todo, and only a project's tasks record time ('docket task add <project> <title>' adds one)"
                    ))
            }
        }

        describe("task add") {
            it("takes +tags, --priority, --due, --every and --from as add does") {
                let mow = id(
                    "task", "add", garden, "Mow", "+lawn", "the", "lawn", "--priority", "low", "--due", "saturday",
                    "--every", "2 weeks", "--from", "completion")
                let made = task(mow)!
                expect(made.title) == "Mow the lawn"
                expect(made.tags) == ["lawn"]
                expect(made.priority) == .low
                expect(made.dueDate.date).toNot(beNil())
                expect(made.recurrence) == Recurrence(every: .init(.week, count: 2), from: .completion, series: made.id)
            }
            it("refuses a mistyped option naming its own nearest one, a one-letter one too") {
                let typo = run("task", "add", garden, "Mow", "-p", "low")
                expect(typo.status) == 64
                expect(typo.stderr).to(contain("unknown option '-p'; did you mean '--priority'?"))
                expect(run("task", "add", garden, "Mow", "--evry", "week").stderr).to(
                    contain("unknown option '--evry'; did you mean '--every'?"))
                expect(tasks()).to(beEmpty())
            }
        }

        describe("finishing a task") {
            it("stops its running slip at the finish: the day's view and the report stop counting") {
                let dig = id("task", "add", garden, "Dig")
                run("task", "start", dig)
                expect(run().stdout).to(contain("Running"))
                run("done", dig)
                let finished = task(dig)!
                expect(finished.runningSlip).to(beNil())
                expect(finished.timeSlips.last?.stop) == finished.completedDate
                expect(run().stdout).toNot(contain("Running"))
                expect(run("report").stdout).toNot(contain("(running)"))
                expect(run("report", "--json").stdout).to(contain("\"running\" : false"))
                let again = run("task", "start", dig)
                expect(again.status) == 1
                expect(again.stderr).to(contain("'docket reopen \(dig)' opens it again"))
            }
            it("written by another tool with the slip still running, is reported stopped at the finish") {
                let dig = id("task", "add", garden, "Dig")
                run("task", "start", dig)
                let opened = try Store.open(at: store)
                let finish = Date()
                try opened.edit(projects: [try opened.projectID(garden)]) { state in
                    let project = state.projects[0]
                    let written = project.tasks[0].replacing(
                        state: .finished, alterDate: .some(finish), completedDate: .some(finish))
                    return state.alter(by: .updating(.project(project.alter(by: .updating(.task(written))))))
                }
                expect(task(dig)?.runningSlip).toNot(beNil())
                expect(run("report").stdout).toNot(contain("(running)"))
                expect(run("report", "--json").stdout).to(contain("\"running\" : false"))
                let csv = run("report", "--csv").stdout
                expect(csv.split(separator: "\n").last.map { $0.split(separator: ",")[3] }.map(String.init))
                    == DocketJSON.string(from: finish)
            }
            it("by task state stops it too") {
                let dig = id("task", "add", garden, "Dig")
                run("task", "start", dig)
                run("task", "state", dig, "finished")
                expect(task(dig)?.runningSlip).to(beNil())
            }
        }

        describe("a repeating task") {
            it("makes its next instance when done, says so, and once only; repeat changes or stops it") {
                let mow = id("task", "add", garden, "Mow", "--every", "week", "--due", "2026-12-05")
                expect(run("show", mow).stdout).to(
                    contain(
                        "repeats   every week from the due date, instance 1; when finished, the next is due 2026-12-12")
                )
                let done = run("done", mow)
                expect(done.stdout).to(contain("Done: Mow\nNext: "))
                expect(done.stdout).to(contain(", due 2026-12-12"))
                run("reopen", mow)
                run("done", mow)
                expect(tasks().count) == 2
                let next = tasks().first { $0.state != .finished }!
                expect(next.recurrence?.occurrence) == 2
                let short = String(next.id.uuidString.prefix(8)).lowercased()
                expect(run("repeat", short, "3", "days").stdout) == "Repeats: Mow, every 3 days from the due date\n"
                expect(run("repeat", short, "none").stdout) == "Stopped repeating: Mow\n"
                expect(task(short)?.recurrence).to(beNil())
            }
            it("done, undone and done again makes one next instance, dated after its removal") {
                let mow = id("task", "add", garden, "Mow", "--every", "day")
                run("commit")
                run("done", mow)
                run("commit")
                run("undo")
                expect(tasks().count) == 1
                run("commit")
                let next = try Store.open(at: store).load().state.removed.first { $0.kind == .task }!
                let tombstone = store.appendingPathComponent(StoreLayout.tombstone(next.id))
                expect(FileManager.default.fileExists(atPath: tombstone.path)) == true
                run("done", mow)
                expect(tasks().count) == 2
                // Dated after its removal, so a machine that has the removal takes it back, and its tombstone gone.
                expect(tasks().first { $0.id == next.id }?.alterDate) > next.removedDate
                expect(FileManager.default.fileExists(atPath: tombstone.path)) == false
                expect(run("commit").status) == 0
            }
        }

        describe("show --json of a task") {
            it("names its project by id, as list and the day's view do, with the project's title") {
                let dig = id("task", "add", garden, "Dig", "--due", "today")
                let projectID = try Store.open(at: store).projectID(garden).uuidString
                for json in [run("show", dig, "--json").stdout, run("list", "--project", garden, "--json").stdout] {
                    expect(json).to(contain("\"kind\" : \"task\""))
                    expect(json).to(contain("\"project\" : \"\(projectID)\""))
                    expect(json).to(contain("\"projectTitle\" : \"Garden\""))
                }
                expect(run("today", "--json").stdout).to(contain("\"project\" : \"\(projectID)\""))
            }
        }
    }
}
