import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// Tags, priorities, notes, completion dates, repeating todos and undo, as typed.
final class RichItemsSpec: QuickSpec {
    override class func spec() {
        var store: URL!
        beforeEach { store = temporaryStore("docket-rich") }
        afterEach { try? FileManager.default.removeItem(at: store) }
        @discardableResult
        func run(_ arguments: String...) -> CommandResult { docket(arguments, store: store) }
        @discardableResult func add(_ words: String...) -> String {
            docket(["add"] + words, store: store).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func todos() -> [TodoItem] { (try? Store.open(at: store).load().state.todos) ?? [] }
        func file(_ id: String) -> String {
            let full = todos().first { $0.id.uuidString.lowercased().hasPrefix(id) }!.id.uuidString
            return
                (try? String(
                    contentsOf: store.appendingPathComponent("todos/\(full.prefix(2))/\(full).json"), encoding: .utf8))
                ?? ""
        }

        describe("tags") {
            it("come from +words on add, change with tag, and filter a list") {
                let milk = add("Buy", "milk", "+errand", "+shop")
                add("Call", "Anna")
                expect(todos().first { $0.text == "Buy milk" }?.tags) == ["errand", "shop"]
                expect(run("tag", milk, "+home", "-shop").stdout) == "Tagged: Buy milk  +errand +home\n"
                expect(run("list", "+home").stdout).to(contain("Buy milk"))
                expect(run("list", "+home").stdout).notTo(contain("Call Anna"))
                expect(run("list", "+shop").stdout) == "No todos match.\n"
                expect(file(milk)).to(contain("\"tags\" : [\n    \"errand\",\n    \"home\"\n  ]"))
            }
            it("change with the id first too, as Taskwarrior users type it") {
                let milk = add("Buy", "milk")
                expect(run(milk, "tag", "+errand").status) == 0
                expect(run(milk, "priority", "low").status) == 0
                expect(run(milk, "note", "oat", "milk").status) == 0
                expect(todos().first?.tags) == ["errand"]
                expect(todos().first?.priority) == .low
                expect(todos().first?.notes.map(\.text)) == ["oat milk"]
            }
            it("ask for more of an id that starts both a todo's and a task's, and take the longer one") {
                let opened = try Store.open(at: store)
                let todo = TodoItem(
                    id: UUID(uuidString: "ABCD1111-0000-4000-8000-000000000000")!, text: "Buy milk",
                    creationDate: Date(),
                    completed: false, dueDate: nil, alterDate: nil)
                try opened.addTodo(todo)
                let project = Project(title: "Garden")
                try opened.addProject(project)
                try opened.addTask(
                    ProjectTask(
                        id: UUID(uuidString: "ABCD2222-0000-4000-8000-000000000000")!, title: "Dig", dueDate: .unknown,
                        state: .unfinished, timeSlips: [], alterDate: nil), to: project.id)
                let both = run("tag", "abcd", "+x")
                expect(both.stderr).to(
                    contain("the id abcd matches todo abcd1111 and task abcd2222; give more of the id"))
                expect(run("tag", "abcd2", "+x").stdout) == "Tagged: Dig  +x\n"
            }
            it("are refused when they are not one word, with the reason") {
                let milk = add("Buy", "milk")
                let spaced = run("tag", milk, "+two words")
                expect(spaced.status) == 64
                expect(spaced.stderr).to(
                    contain("'+two words' is not a tag: a tag is one word, without spaces or control characters"))
                expect(run("tag", milk, "home").stderr).to(
                    contain("'home' is neither +tag nor -tag: docket tag <id> +home -work"))
            }
            it("leave a file without tags as it was written before there were tags") {
                let milk = add("Buy", "milk")
                expect(file(milk)).notTo(contain("tags"))
                expect(file(milk)).notTo(contain("priority"))
                expect(file(milk)).notTo(contain("notes"))
            }
        }

        describe("priority") {
            it("orders the list within equal due dates, high first") {
                add("Low", "--due", "tomorrow", "--priority", "low")
                add("None", "--due", "tomorrow")
                add("High", "--due", "tomorrow", "--priority", "high")
                add("Later", "--due", "+3d", "--priority", "high")
                let texts = run("list").stdout.split(separator: "\n").map {
                    $0.split(separator: " ", omittingEmptySubsequences: true)[3]
                }
                expect(texts) == ["High", "Low", "None", "Later"]
            }
            it("is set and cleared with priority, and a word it does not know is refused") {
                let milk = add("Buy", "milk")
                expect(run("priority", milk, "high").stdout) == "Priority high: Buy milk\n"
                expect(todos().first?.priority) == .high
                expect(run("priority", milk, "none").stdout) == "Priority none: Buy milk\n"
                expect(todos().first?.priority).to(beNil())
                expect(run("priority", milk, "urgent").stderr).to(
                    contain("'urgent' is not a priority; use high, medium, low or none"))
            }
        }

        describe("notes") {
            it("shows a note's later lines under its first") {
                let milk = add("Buy", "milk")
                expect(run("note", milk, "first line\nsecond line").status) == 0
                let shown = run("show", milk).stdout
                let first = shown.components(separatedBy: "\n").first { $0.contains("first line") } ?? ""
                let second = shown.components(separatedBy: "\n").first { $0.contains("second line") } ?? ""
                expect(second.firstIndex(of: "s")?.utf16Offset(in: second))
                    == first.range(of: "first")?.lowerBound.utf16Offset(in: first)
            }
            it("are added, shown numbered, edited and removed") {
                let milk = add("Buy", "milk")
                expect(run("note", milk, "called,", "left", "a", "message").stdout) == "Noted: Buy milk (1 note)\n"
                run("note", milk, "shop", "closed")
                expect(run("show", milk).stdout).to(contain("  notes\n    1. "))
                expect(run("show", milk).stdout).to(contain("called, left a message\n    2. "))
                expect(run("note", milk, "--edit", "2", "shop", "open", "at", "9").status) == 0
                expect(todos().first?.notes.map(\.text)) == ["called, left a message", "shop open at 9"]
                expect(run("note", milk, "--remove", "1").stdout) == "Note removed: Buy milk (1 note)\n"
                let missing = run("note", milk, "--remove", "5")
                expect(missing.stderr).to(contain("it has notes 1 to 1; 'docket show \(milk)' lists them"))
                expect(run("show", milk).status) == 0
            }
            it("go on a project's task too, and show shows the task") {
                let project = docket(["project", "add", "Garden"], store: store).stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines)
                let task = docket(["task", "add", project, "Dig", "beds"], store: store).stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines)
                expect(run("note", task, "needs a spade").status) == 0
                expect(run("tag", task, "+outside").status) == 0
                let shown = run("show", task).stdout
                expect(shown).to(contain("Dig beds\n"))
                expect(shown).to(contain("+outside"))
                expect(shown).to(contain("needs a spade"))
            }
        }

        describe("the completion date") {
            it("is set by done, cleared by reopen, and used by --done-since") {
                let milk = add("Buy", "milk")
                run("done", milk)
                let done = todos().first!
                expect(done.completedDate) == done.alterDate
                expect(run("list", "--done-since", "today").stdout).to(contain("Buy milk"))
                expect(run("list", "--done-since", "tomorrow").stdout) == "No todos match.\n"
                run("reopen", milk)
                expect(todos().first?.completedDate).to(beNil())
            }
            it("is a finished task's, shown by the time report") {
                let project = docket(["project", "add", "Garden"], store: store).stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines)
                let task = docket(["task", "add", project, "Dig"], store: store).stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines)
                run("task", "start", task)
                run("task", "stop", task)
                run("task", "state", task, "finished")
                let finished = try Store.open(at: store).load().state.projects[0].tasks[0]
                expect(finished.completedDate) == finished.alterDate
                expect(run("report").stdout).to(
                    contain("Dig  finished \(String(ISODate.string(from: finished.completedDate!).prefix(10)))"))
                expect(run("report", "--json").stdout).to(
                    contain("\"finished\" : \"\(ISODate.string(from: finished.completedDate!))\""))
            }
        }

        describe("repeating todos") {
            it("says, when one is reopened, that the next instance its completion made stays open") {
                let water = add("Water", "plants", "--every", "week", "--due", "2030-01-04")
                expect(run("done", water).status) == 0
                let reopened = run("reopen", water).stdout
                expect(reopened).to(contain("Reopened: Water plants"))
                expect(reopened).to(match("Its next instance stays open: [0-9a-f]{8}  Water plants \\('docket rm"))
                expect(run("reopen", water).stdout) == "Already open: Water plants\n"
            }
            it("make the next instance when done, once, and show says what repeats") {
                let water = add("Water", "plants", "--every", "week", "--due", "2026-12-05")
                expect(run("show", water).stdout).to(
                    contain("repeats   every week from the due date, instance 1; when done, the next is due 2026-12-12")
                )
                let done = run("done", water)
                expect(done.stdout).to(contain("Done: Water plants\nNext: "))
                expect(done.stdout).to(contain(", due 2026-12-12"))
                run("reopen", water)
                run("done", water)
                expect(todos().count) == 2
                let next = todos().first { !$0.completed }!
                expect(next.recurrence?.occurrence) == 2
                expect(run("repeat", String(next.id.uuidString.prefix(8)), "none").stdout)
                    == "Stopped repeating: Water plants\n"
                expect(run("repeat", water, "fortnight").stderr).to(contain("'fortnight' is not an interval"))
            }
        }

        describe("undo") {
            it("before a commit puts the files back byte for byte") {
                let milk = add("Buy", "milk")
                run("commit")
                let before = file(milk)
                run("tag", milk, "+errand")
                run("note", milk, "call first")
                expect(run("undo", "-n", "2").stdout).to(contain("its files are back as they were"))
                expect(file(milk)) == before
                expect(run("status").stdout).to(contain("Nothing to commit"))
            }
            it("after a commit writes the reverse as a new edit, and names a field changed since") {
                let milk = add("Buy", "milk")
                run("edit", milk, "Buy oat milk")
                run("priority", milk, "high")
                run("commit")
                let committed = todos().first!
                expect(run("undo").stdout).to(contain("reversed by a new edit"))
                expect(todos().first?.priority).to(beNil())
                expect(todos().first!.alterDate!) > committed.alterDate!
                run("commit")
                // A change made outside docket (here by hand) is kept, and named.
                run("priority", milk, "high")
                run("commit")
                let path = store.appendingPathComponent(
                    "todos/\(committed.id.uuidString.prefix(2))/\(committed.id.uuidString).json")
                let text = try String(contentsOf: path, encoding: .utf8).replacingOccurrences(
                    of: "\"high\"", with: "\"low\"")
                try text.write(to: path, atomically: true, encoding: .utf8)
                run("commit")
                let undone = run("undo")
                expect(undone.stdout).to(contain("kept todo 'Buy oat milk' priority: changed since"))
                expect(todos().first?.priority) == .low
                expect(run("undo").stdout).to(contain("Undid docket edit"))
                expect(todos().first?.text) == "Buy milk"
            }
            it("lists what it would undo, and says when there is nothing") {
                let nothing = run("undo").stderr
                expect(nothing).to(contain("there is nothing to undo"))
                // Never in a circle: --list would show nothing either.
                expect(nothing).toNot(contain("--list"))
                expect(run("undo", "--list").stdout) == "Nothing to undo.\n"
                let milk = add("Buy", "milk")
                run("done", milk)
                let listed = run("undo", "--list").stdout
                expect(listed).to(contain("1  "))
                expect(listed).to(contain("docket done \(milk)  todo 'Buy milk'"))
                expect(listed).to(contain("docket add Buy milk  todo 'Buy milk'"))
            }
            it("of a done that made a next instance takes both back") {
                let water = add("Water", "plants", "--every", "day")
                run("commit")
                run("done", water)
                run("commit")
                run("undo")
                expect(todos().filter { !$0.completed }.count) == 1
                expect(todos().count) == 1
                run("done", water)
                expect(todos().count) == 2
            }
            it(
                "of a change whose docket was killed before writing it changes nothing, and the undo before it still works"
            ) {
                let milk = add("Buy", "milk")
                run("priority", milk, "low")
                let killed = docket(
                    ["priority", milk, "high"], store: store, environment: ["DOCKET_FAULT": "after-undo-record"])
                expect(killed.status) != 0
                expect(todos().first?.priority) == .low
                expect(run("undo").status) == 0
                expect(todos().first?.priority) == .low
                expect(run("undo").stdout).to(contain("Undid docket priority \(milk) low"))
                expect(todos().first?.priority).to(beNil())
            }
            it("of a committed task removal brings the task back without its tombstone") {
                let project = docket(["project", "add", "Garden"], store: store).stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines)
                let task = docket(["task", "add", project, "Dig"], store: store).stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines)
                run("commit")
                let id = try Store.open(at: store).taskID(task).task
                run("task", "rm", task)
                run("commit")
                expect(
                    FileManager.default.fileExists(atPath: store.appendingPathComponent(StoreLayout.tombstone(id)).path)
                ) == true
                expect(run("undo").stdout).to(contain("reversed by a new edit"))
                expect(try Store.open(at: store).load().state.projects.first?.tasks.map(\.title)) == ["Dig"]
                expect(
                    FileManager.default.fileExists(atPath: store.appendingPathComponent(StoreLayout.tombstone(id)).path)
                ) == false
                expect(run("commit").status) == 0
            }
            it("says it cannot take back a change too large to keep, and goes on past it") {
                add("Buy", "milk")
                let opened = try Store.open(at: store)
                opened.action = "docket import"
                let many = (0..<8_000).map { TodoItem(text: "Imported todo \($0) with a text long enough to weigh") }
                try opened.edit { AppState(todos: $0.todos + many, projects: $0.projects, removed: $0.removed) }
                expect(run("undo", "--list").stdout).to(contain("docket import  8000 items, too many to undo"))
                let refused = run("undo")
                expect(refused.stdout).to(
                    contain(
                        "Cannot undo docket import: it changed 8000 items, too many to keep for undo; nothing changed"))
                expect(todos().count) == 8_001
                expect(run("undo").stdout).to(contain("Undid docket add Buy milk"))
                expect(todos().count) == 8_000
            }
            describe("journal") {
                var pages: URL { store.appendingPathComponent(".git/docket/undo") }
                func pageNames() -> [String] {
                    ((try? FileManager.default.contentsOfDirectory(atPath: pages.path)) ?? []).sorted()
                }
                func stamp(_ name: String) -> [String] {
                    let info =
                        (try? FileManager.default.attributesOfItem(atPath: pages.appendingPathComponent(name).path))
                        ?? [:]
                    return ["\(info[.systemFileNumber] ?? "-")", "\(info[.modificationDate] ?? "-")"]
                }

                it("keeps each change in a file of its own: a change neither reads nor rewrites the ones before it") {
                    let milk = add("Buy", "milk")
                    run("priority", milk, "low")
                    let kept = pageNames()
                    expect(kept.count) == 2
                    let stamps = kept.map(stamp)
                    run("priority", milk, "high")
                    expect(pageNames().count) == 3
                    expect(Array(pageNames().prefix(2))) == kept
                    expect(kept.map(stamp)) == stamps
                    expect(run("undo").stdout).to(contain("Undid docket priority \(milk) high"))
                    expect(pageNames()) == kept
                }
                it(
                    "numbers its files again when one was named past where numbers read, and the newest change stays the newest"
                ) {
                    let milk = add("Buy", "milk")
                    // A copy of the change under the largest name a page may have, as a hand or another tool might
                    // leave it.
                    try FileManager.default.copyItem(
                        at: pages.appendingPathComponent(pageNames()[0]),
                        to: pages.appendingPathComponent("999999999999999999.json"))
                    run("priority", milk, "low")
                    expect(pageNames()) == ["0000000001.json", "0000000002.json", "0000000003.json"]
                    expect(run("undo").stdout).to(contain("Undid docket priority \(milk) low"))
                }
                it("keeps the last 50 changes, the oldest going first") {
                    let opened = try Store.open(at: store)
                    for number in 1...52 {
                        opened.action = "docket add Todo \(number)"
                        try opened.edit {
                            AppState(
                                todos: $0.todos + [TodoItem(text: "Todo \(number)")], projects: $0.projects,
                                removed: $0.removed)
                        }
                    }
                    expect(pageNames().count) == Store.undoDepth
                    let listed = run("undo", "--list").stdout
                    expect(listed.split(separator: "\n").count) == Store.undoDepth
                    expect(listed).to(contain("docket add Todo 52"))
                    expect(listed).to(contain("docket add Todo 3 "))
                    expect(listed).notTo(contain("docket add Todo 2 "))
                }
                it("takes in a journal kept in one file by an older docket, and goes on with it") {
                    let milk = add("Buy", "milk")
                    run("priority", milk, "low")
                    // The two changes as an older docket kept them: one undo.json, oldest first.
                    let entries = try pageNames().map {
                        try String(contentsOf: pages.appendingPathComponent($0), encoding: .utf8)
                    }
                    try ("[" + entries.joined(separator: ",") + "]").write(
                        to: store.appendingPathComponent(".git/docket/undo.json"), atomically: true, encoding: .utf8)
                    try FileManager.default.removeItem(at: pages)
                    let listed = run("undo", "--list").stdout
                    expect(listed).to(contain("1  "))
                    expect(listed).to(contain("docket priority \(milk) low"))
                    expect(listed).to(contain("docket add Buy milk"))
                    expect(
                        FileManager.default.fileExists(
                            atPath: store.appendingPathComponent(".git/docket/undo.json").path)) == false
                    run("done", milk)
                    expect(run("undo", "-n", "2").stdout).to(contain("Undid docket priority \(milk) low"))
                    expect(todos().first?.priority).to(beNil())
                    expect(todos().first?.completed) == false
                }
                it(
                    "names a kept change that does not read or is a link, and removing it as told goes on to the one before"
                ) {
                    let milk = add("Buy", "milk")
                    run("priority", milk, "low")
                    run("priority", milk, "high")
                    let names = pageNames()
                    let outside = store.deletingLastPathComponent().appendingPathComponent(
                        "page-\(UUID().uuidString).json")
                    defer { try? FileManager.default.removeItem(at: outside) }
                    try FileManager.default.moveItem(at: pages.appendingPathComponent(names[2]), to: outside)
                    try FileManager.default.createSymbolicLink(
                        at: pages.appendingPathComponent(names[2]), withDestinationURL: outside)
                    let linked = run("undo")
                    expect(linked.status) == 1
                    expect(linked.stderr).to(contain("\(names[2]) cannot be read: is a symbolic link"))
                    expect(linked.stderr).to(contain("remove it, and undo goes on to the change before it"))
                    expect(todos().first?.priority) == .high
                    try FileManager.default.removeItem(at: pages.appendingPathComponent(names[2]))
                    try Data("not json".utf8).write(to: pages.appendingPathComponent(names[1]))
                    let broken = run("undo")
                    expect(broken.status) == 1
                    expect(broken.stderr).to(contain("\(names[1]) cannot be read"))
                    try FileManager.default.removeItem(at: pages.appendingPathComponent(names[1]))
                    expect(run("undo").stdout).to(contain("Undid docket add Buy milk"))
                    expect(todos()).to(beEmpty())
                }
            }
            it("keeps a journal that does not read from stopping changes, and says how to start afresh") {
                let milk = add("Buy", "milk")
                try Data("not json".utf8).write(to: store.appendingPathComponent(".git/docket/undo.json"))
                let refused = run("undo")
                expect(refused.status) == 1
                expect(refused.stderr).to(contain("undo.json cannot be read"))
                expect(refused.stderr).to(contain("remove it to start a new undo history"))
                expect(run("done", milk).status) == 0
                expect(run("undo").status) == 0
                expect(todos().first?.completed) == false
            }
        }
    }
}
