import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// Waiting items and dependencies from the library at a fixed moment, and through the command line: what the day's
/// view and the lists leave out, what is blocked and blocking, and the dependencies a store refuses.
final class WaitsAndDependenciesSpec: QuickSpec {
    override class func spec() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        // Wednesday 2026-11-25, 15:00 UTC.
        let now = ISODate.date(from: "2026-11-25T15:00:00.000Z")!
        func at(_ text: String) -> Date { ISODate.date(from: text)! }
        /// A day ("2026-11-27") or a time.
        func planned(_ text: String) -> DueDate { CalendarDay(text).map(DueDate.day) ?? .date(at(text)) }
        func todo(_ text: String, wait: String? = nil, done: Bool = false, depends: [UUID] = []) -> TodoItem {
            TodoItem(
                id: UUID(), text: text, creationDate: at("2026-11-01T00:00:00.000Z"), completed: done, due: .unknown,
                alterDate: nil, waitDate: wait.map(planned) ?? .unknown, dependencies: depends)
        }

        describe("a wait") {
            let fence = todo("Paint fence", wait: "2026-11-27")
            let over = todo("Call Anna", wait: "2026-11-25T09:00:00.000Z")
            let doneWaiting = todo("Old", wait: "2026-12-01", done: true)
            let task = ProjectTask(
                id: UUID(), title: "Book hall", dueDate: .date(at("2026-11-25T12:00:00.000Z")), state: .unfinished,
                timeSlips: [], alterDate: nil, waitDate: planned("2026-11-26"))
            let party = Project(id: UUID(), title: "Party", tasks: [task], alterDate: nil)

            it("keeps an open todo or task out of the day's view until its date, and says which wait") {
                let agenda = Agenda(
                    todos: [fence, over, doneWaiting], projects: [party], now: now, calendar: calendar)
                expect((agenda.overdue + agenda.today + agenda.soon + agenda.open).map(\.text)) == ["Call Anna"]
                expect(agenda.waiting.map(\.text)) == ["Book hall", "Paint fence"]
            }
            it("lets it in from the moment its date comes: a day as it begins") {
                let later = Agenda(
                    todos: [fence], projects: [party], now: at("2026-11-27T00:00:00.000Z"), calendar: calendar)
                expect(later.overdue.map(\.text)) == ["Book hall"]
                expect(later.open.map(\.text)) == ["Paint fence"]
                expect(later.waiting) == []
            }
            it("is left out of a list unless asked: shown with the rest, or alone") {
                var filter = EntryFilter()
                let entries = [fence, over].map(Entry.todo)
                expect(filter.apply(to: entries, now: now, calendar: calendar).map(\.text)) == ["Call Anna"]
                filter.waiting = .shown
                expect(filter.apply(to: entries, now: now, calendar: calendar).count) == 2
                filter.waiting = .only
                expect(filter.apply(to: entries, now: now, calendar: calendar).map(\.text)) == ["Paint fence"]
            }
            it("means nothing once the item is done") {
                expect(Entry.todo(doneWaiting).isWaiting(at: now)) == false
            }
        }

        describe("dependencies") {
            let paint = todo("Buy paint")
            let brush = todo("Buy brush", done: true)
            let gone = UUID()
            let fence = todo("Paint fence", depends: [paint.id, brush.id, gone])
            let sand = ProjectTask(title: "Sand fence")
            let varnish = todo("Varnish fence", depends: [fence.id, sand.id])
            let project = Project(id: UUID(), title: "Garden", tasks: [sand], alterDate: nil)
            let blocking = Blocking(todos: [paint, brush, fence, varnish], projects: [project])

            it("block an item while an item it depends on is open: a todo or a project's task") {
                expect(blocking.blockers(of: .todo(fence))) == [paint.id]
                expect(Set(blocking.blockers(of: .todo(varnish)))) == [fence.id, sand.id]
                expect(blocking.isBlocked(.todo(paint))) == false
            }
            it("block nothing once done, or when the item is no longer in the store") {
                expect(blocking.blockers(of: .todo(fence))).toNot(contain(brush.id, gone))
                let finished = Blocking(
                    todos: [paint.alter(.completed(true)), fence, varnish], projects: [project])
                expect(finished.isBlocked(.todo(fence))) == false
            }
            it("leave an item ready (Taskwarrior's READY) when open, not waiting, not blocked, nor scheduled later") {
                let tomorrow = at("2026-11-26T09:00:00.000Z")
                expect(blocking.isReady(.todo(paint), at: now)) == true
                expect(blocking.isReady(.todo(fence), at: now)) == false
                expect(blocking.isReady(.todo(brush), at: now)) == false
                expect(blocking.isReady(.todo(paint.alter(.scheduled(.date(tomorrow)))), at: now)) == false
                expect(blocking.isReady(.todo(paint.alter(.scheduled(.date(tomorrow)))), at: tomorrow)) == true
                expect(blocking.isReady(.todo(paint.alter(.wait(.date(tomorrow)))), at: now)) == false
            }
            it("make the items others wait on blocking, while both are open") {
                expect(blocking.blocked(by: .todo(paint))) == [fence.id]
                expect(blocking.blocked(by: .task(sand, project: project))) == [varnish.id]
                expect(blocking.isBlocking(.todo(brush))) == false
                let doneFence = fence.alter(.completed(true))
                expect(Blocking(todos: [paint, doneFence], projects: []).isBlocking(.todo(paint))) == false
                expect(Blocking(todos: [paint, doneFence], projects: []).isBlocked(.todo(doneFence))) == false
            }
        }

        describe("a circle of dependencies two machines made, one part each") {
            func dated(_ item: TodoItem, _ text: String, depends: [UUID]) -> TodoItem {
                TodoItem(
                    id: item.id, text: item.text, creationDate: item.creationDate, completed: false, due: .unknown,
                    alterDate: at(text), dependencies: depends)
            }
            let milk = todo("Buy milk")
            let bread = todo("Buy bread")
            let base = AppState(todos: [milk, bread], projects: [], removed: [])
            // The laptop made milk wait for bread; later, the desk made bread wait for milk.
            let laptop = AppState(
                todos: [dated(milk, "2026-11-25T10:00:00.000Z", depends: [bread.id]), bread], projects: [],
                removed: [])
            let desk = AppState(
                todos: [milk, dated(bread, "2026-11-25T11:00:00.000Z", depends: [milk.id])], projects: [],
                removed: [])

            it("keeps both dependencies, whichever side merges, and names the newer one in the report") {
                let one = merge(base: base, ours: laptop, theirs: desk)
                let other = merge(base: base, ours: desk, theirs: laptop)
                expect(other.state) == one.state
                expect(one.state.todo(id: milk.id)?.dependencies) == [bread.id]
                expect(one.state.todo(id: bread.id)?.dependencies) == [milk.id]
                let set = CircleDecision(
                    item: "todo 'Buy bread'", itemID: bread.id, dependency: "todo 'Buy milk'", dependencyID: milk.id)
                expect(one.report.circles) == [set]
                expect(other.report.circles) == [set]
                expect(one.report.summary).to(
                    contain("1 dependency closing a circle blocks nothing: todo 'Buy bread' on todo 'Buy milk'"))
                let decoded = try? JSONDecoder().decode(MergeReport.self, from: JSONEncoder().encode(one.report))
                expect(decoded) == one.report
            }
            it("blocks with the older dependency only, so each can be started in turn") {
                let merged = merge(base: base, ours: laptop, theirs: desk).state
                let blocking = Blocking(todos: merged.todos, projects: merged.projects)
                expect(blocking.blockers(of: .todo(merged.todo(id: milk.id)!))) == [bread.id]
                expect(blocking.blockers(of: .todo(merged.todo(id: bread.id)!))) == []
                expect(blocking.ignoredInCircle(of: .todo(merged.todo(id: bread.id)!))) == [milk.id]
                expect(blocking.blocked(by: .todo(merged.todo(id: milk.id)!))) == []
            }
            it("ignores the newest item's dependency in a longer circle, through a task, whatever the order") {
                let a = dated(todo("A"), "2026-11-25T09:00:00.000Z", depends: [])
                let task = ProjectTask(
                    id: UUID(), title: "B", dueDate: .unknown, state: .unfinished, timeSlips: [],
                    alterDate: at("2026-11-25T12:00:00.000Z"), dependencies: [a.id])
                let c = dated(todo("C"), "2026-11-25T10:00:00.000Z", depends: [task.id])
                let aClosing = dated(a, "2026-11-25T09:00:00.000Z", depends: [c.id])
                let project = Project(id: UUID(), title: "P", tasks: [task], alterDate: nil)
                for todos in [[aClosing, c], [c, aClosing]] {
                    let blocking = Blocking(todos: todos, projects: [project])
                    expect(blocking.ignoredInCircles) == [CircleDependency(item: task.id, dependency: a.id)]
                }
            }
            it("ignores one dependency in a planted circle of 50,000 todos, however long") {
                let ids = (0..<50_000).map { _ in UUID() }
                let nodes = ids.indices.map { i in
                    DependencyCircles.Node(
                        id: ids[i], alterDate: at("2026-11-25T09:00:00.000Z").addingTimeInterval(Double(i)),
                        dependencies: [ids[(i + 1) % ids.count]])
                }
                expect(DependencyCircles.ignored(nodes)) == [
                    CircleDependency(item: ids[ids.count - 1], dependency: ids[0])
                ]
            }
        }

        describe("a store's dependencies") {
            var folder: URL!
            var store: Store!
            beforeEach {
                folder = temporaryStore("docket-dependencies")
                store = try! Store.open(at: folder)
            }
            afterEach { try? FileManager.default.removeItem(at: folder) }

            it("refuses a dependency on the item itself, on no item, or around a circle, changing nothing") {
                let a = TodoItem(text: "A")
                let b = TodoItem(text: "B").alter(.depending(add: [a.id], remove: []))
                let c = ProjectTask(title: "C").alter(by: .depending(add: [b.id], remove: []))
                let project = Project(title: "P").alter(by: .adding(.task(c)))
                try! store.addTodo(a)
                try! store.addTodo(b)
                try! store.addProject(project)
                expect { try store.changeDependencies(of: .todo(a.id), add: [a.id], remove: []) }.to(
                    throwError(StoreError.input(.dependsOnItself(id: String(a.id.uuidString.lowercased().prefix(8))))))
                let nowhere = UUID()
                expect { try store.changeDependencies(of: .todo(a.id), add: [nowhere], remove: []) }.to(
                    throwError(StoreError.input(.noItem(id: String(nowhere.uuidString.lowercased().prefix(8))))))
                let short = { (id: UUID) in String(id.uuidString.lowercased().prefix(8)) }
                expect { try store.changeDependencies(of: .todo(a.id), add: [c.id], remove: []) }.to(
                    throwError(StoreError.input(.dependencyCycle(path: [short(a.id), short(c.id), short(b.id)]))))
                expect(try store.todo(a.id).dependencies) == []
                expect(StoreError.input(.dependencyCycle(path: [short(a.id), short(c.id), short(b.id)])).description)
                    .to(
                        beginWith(
                            "\(short(a.id)) cannot depend on \(short(c.id)): \(short(c.id)) depends on \(short(b.id)), which depends on \(short(a.id)), so none of them could ever be started"
                        ))
            }
            it("takes a dependency on a task, and one that is later removed blocks nothing but stays") {
                let a = TodoItem(text: "A")
                let c = ProjectTask(title: "C")
                let project = Project(title: "P").alter(by: .adding(.task(c)))
                try! store.addTodo(a)
                try! store.addProject(project)
                let changed = try! store.changeDependencies(
                    of: .todo(a.id), add: [c.id], remove: [])
                expect(changed.after.dependencies) == [c.id]
                expect(try! store.blocking().isBlocked(.todo(try! store.todo(a.id)))) == true
                try! store.removeTask(c.id, in: project.id)
                expect(try! store.blocking().isBlocked(.todo(try! store.todo(a.id)))) == false
                expect(try! store.todo(a.id).dependencies) == [c.id]
            }
        }

        describe("the command line") {
            var store: URL!
            beforeEach { store = temporaryStore("docket-waits") }
            afterEach { try? FileManager.default.removeItem(at: store) }
            @discardableResult func run(_ arguments: String...) -> CommandResult { docket(arguments, store: store) }
            @discardableResult func add(_ words: String...) -> String {
                docket(["add"] + words, store: store).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }

            it("hides a waiting todo from the day's view and the list, names it with --waiting, and ends the wait") {
                let fence = add("Paint fence", "--wait", "+3d")
                add("Buy paint")
                add("Call Anna", "--wait", "-1d")
                let view = run().stdout
                expect(view).to(contain("Buy paint"))
                expect(view).to(contain("Call Anna"))
                expect(view).notTo(contain("Paint fence"))
                expect(view).to(contain("1 waiting until "))
                expect(run("list").stdout).notTo(contain("Paint fence"))
                expect(run("list", "--waiting").stdout).to(contain("Paint fence  waiting until "))
                expect(run("list", "--waiting").stdout).notTo(contain("Buy paint"))
                expect(run("list", "--all").stdout).to(contain("Paint fence"))
                expect(run("wait", fence, "none").stdout).to(contain("Wait ended: Paint fence"))
                expect(run().stdout).to(contain("Paint fence"))
            }
            it("waits for a day from its start, and for a time until then") {
                let fence = add("Paint fence", "--wait", "2030-01-05")
                expect(run("show", fence).stdout).to(contain("wait      2030-01-05 (hidden until then)"))
                expect(run(fence, "wait", "2030-01-05 09:30").stdout).to(
                    contain("Waiting: Paint fence  until 2030-01-05 09:30"))
            }
            it("reads --wait and --scheduled as --due: a day or a time, several words without quotes") {
                // A Saturday in Berlin, where "in 2 days" and "next week" are both Monday: the clock is fixed, so
                // the spec says the same on every day of the week.
                let berlin = TimeZone(identifier: "Europe/Berlin")!
                func inBerlin(_ arguments: String...) -> CommandResult {
                    docket(
                        arguments, store: store,
                        environment: ["TZ": "Europe/Berlin", "DOCKET_NOW": "2026-11-28T10:00:00+01:00"])
                }
                let fence = inBerlin(
                    "add", "Paint", "fence", "--wait", "next", "week", "--scheduled", "tomorrow", "9am"
                )
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                guard let todo = try! Store.open(at: store).load().state.todos.first else {
                    return fail("docket add --wait next week added nothing")
                }
                expect(todo.text) == "Paint fence"
                expect(todo.waitDate) == .day(CalendarDay(year: 2026, month: 11, day: 30)!)
                expect(todo.scheduledDate) == .date(ISODate.date(from: "2026-11-29T09:00:00+01:00")!)
                // A day is shown as a day, a time with its time; the day's first moment ends a day's wait.
                let shown = inBerlin("list", "--waiting").stdout
                expect(shown).to(contain("waiting until 2026-11-30  "))
                expect(shown).to(contain("scheduled 2026-11-29 09:00"))
                expect(shown).notTo(contain("12:00"))
                expect(inBerlin("show", fence).stdout).to(contain("wait      2026-11-30 (hidden until then)"))
                expect(inBerlin("wait", fence, "in", "2", "days").stdout).to(
                    contain("Unchanged: Paint fence  until 2026-11-30"))
                expect(inBerlin("wait", fence, "in", "3", "days").stdout).to(
                    contain("Waiting: Paint fence  until 2026-12-01"))
                expect(inBerlin("schedule", fence, "none").stdout).to(contain("Unscheduled: Paint fence"))
            }
            it("refuses a DOCKET_NOW that is not a time, naming what to set") {
                let result = docket(["list"], store: store, environment: ["DOCKET_NOW": "saturday"])
                expect(result.status) == 1
                expect(result.stderr).to(contain("DOCKET_NOW is 'saturday', not a time such as"))
                expect(docket(["list"], store: store, environment: ["DOCKET_NOW": ""]).status) == 0
            }
            it("gives a project's task a wait, a scheduled date and dependencies, from task add and by its id") {
                let paint = add("Buy paint")
                let garden = run("project", "add", "Garden").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                let shed = run(
                    "task", "add", garden, "Paint", "shed", "--wait", "2030-01-05", "--scheduled", "2030-01-06", "9am",
                    "--depends", paint
                ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                let task = { try! Store.open(at: store).load().state.projects[0].tasks[0] }
                expect(task().title) == "Paint shed"
                expect(task().waitDate) == .day(CalendarDay(year: 2030, month: 1, day: 5)!)
                expect(task().scheduledDate.hasTime) == true
                expect(task().dependencies.map { String($0.uuidString.lowercased().prefix(8)) }) == [paint]
                expect(run().stdout).notTo(contain("Paint shed"))
                expect(run("wait", shed, "none").stdout).to(contain("Wait ended: Paint shed"))
                expect(run("schedule", shed, "2030-01-07").stdout).to(contain("Scheduled: Paint shed  2030-01-07"))
                let fence = add("Paint fence", "--depends", shed)
                expect(run("depend", paint, "+\(fence)").stderr).to(
                    contain(
                        "\(paint) cannot depend on \(fence): \(fence) depends on \(shed), which depends on \(paint)"))
                expect(run("depend", shed, "-\(paint)").stdout).to(contain("Paint shed  depends on nothing"))
                expect(run("task", "add", garden, "Varnish", "--depends", "abcd1234").stderr).to(
                    contain("no todo or task has the id abcd1234"))
                expect(try! Store.open(at: store).load().state.projects[0].tasks.count) == 1
            }
            it("shows what is blocked and blocking, and refuses a dependency that cannot be") {
                let paint = add("Buy paint")
                let fence = add("Paint fence", "--depends", paint, "--scheduled", "2030-01-04")
                let list = run("list").stdout
                expect(list).to(contain("Buy paint  blocking \(fence)"))
                expect(list).to(contain("Paint fence  scheduled 2030-01-04  blocked by \(paint)"))
                let cycle = run("depend", paint, "+\(fence)")
                expect(cycle.status) == 1
                expect(cycle.stderr).to(contain("\(paint) cannot depend on \(fence): \(fence) depends on \(paint)"))
                expect(run("depend", fence, "+\(fence)").stderr).to(contain("\(fence) cannot depend on itself"))
                expect(run("add", "Varnish", "--depends", "abcd1234").stderr).to(
                    contain("no todo or task has the id abcd1234"))
                expect(run("depend", fence, "9c1e").status) == 64
                run("done", paint)
                expect(run("list").stdout).notTo(contain("blocked"))
                expect(run("show", fence).stdout).to(contain("depends   \(paint)  Buy paint (done)"))
                run("rm", paint)
                expect(run("show", fence).stdout).to(contain("\(paint)  (no longer in the store: blocks nothing)"))
                expect(run("depend", fence, "-\(paint)").stdout).to(contain("depends on nothing"))
                expect(run("list", "--json").stdout).notTo(contain("dependencies"))
            }
            it("carries the fields in JSON") {
                let paint = add("Buy paint")
                let fence = add("Paint fence", "--depends", paint, "--scheduled", "2030-01-04", "--wait", "2030-01-03")
                let json = run("show", fence, "--json").stdout
                expect(json).to(contain("\"scheduledDate\" : \"2030-01-04\""))
                expect(json).to(contain("\"waitDate\" : \"2030-01-03\""))
                expect(json).to(contain("\"dependencies\" : [\n    \"\(paint.uppercased())"))
            }
        }
    }
}
