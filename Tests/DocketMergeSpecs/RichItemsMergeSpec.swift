import DocketMerge
import DocketModel
import DocketSpecSupport
import Foundation
import Nimble
import Quick

final class RichItemsMergeSpec: QuickSpec {
    override class func spec() {
        var world: SeededWorld!
        var milk: TodoItem!
        var base: AppState!
        beforeEach {
            world = SeededWorld(seed: 14)
            milk = TodoItem(text: "Buy milk").alter(.tagging(add: ["errand", "work"], remove: []))
            base = AppState().alter(by: .adding(.todo(milk)))
        }
        afterEach { world.uninstall() }
        func later(_ seconds: Int64 = 60) { world.time += seconds * 1000 }
        func merged(_ ours: TodoItem, _ theirs: TodoItem) -> MergeResult {
            merge(
                base: base, ours: base.alter(by: .updating(.todo(ours))),
                theirs: base.alter(by: .updating(.todo(theirs))))
        }

        describe("tags") {
            it("keeps a tag added on each machine, and drops one removed on either") {
                later()
                let ours = milk.alter(.tagging(add: ["home"], remove: ["work"]))
                later()
                let theirs = milk.alter(.tagging(add: ["shop"], remove: []))
                let result = merged(ours, theirs)
                expect(result.state.todos.first?.tags) == ["errand", "home", "shop"]
                expect(
                    merge(
                        base: base, ours: base.alter(by: .updating(.todo(theirs))),
                        theirs: base.alter(by: .updating(.todo(ours)))
                    ).state)
                    == result.state
            }
            it("reports what each side did, and that nothing was lost") {
                later()
                let ours = milk.alter(.tagging(add: ["home"], remove: ["work"]))
                later()
                let theirs = milk.alter(.tagging(add: ["shop"], remove: []))
                let decision = merged(ours, theirs).report.items.first?.fields.first { $0.field == "tags" }
                expect(decision?.rule) == .combined
                expect(decision?.combined) == FieldDecision.Combined(ours: "+home -work", theirs: "+shop")
                expect(decision?.lost).to(beNil())
                expect(merged(ours, theirs).report.items.first?.lines.first { $0.contains("tags") })
                    == "todo 'Buy milk' tags: kept \"[errand, home, shop]\" (both changed it: ours +home -work, theirs +shop)"
            }
            it("keeps both sides' tags of an item both made, with no common ancestor") {
                let a = milk.alter(.tagging(add: ["home"], remove: ["errand"]))
                let b = milk.alter(.tagging(add: ["shop"], remove: []))
                let result = merge(
                    base: nil, ours: AppState().alter(by: .adding(.todo(a))),
                    theirs: AppState().alter(by: .adding(.todo(b))))
                expect(result.state.todos.first?.tags) == ["errand", "home", "shop", "work"]
            }
            it("are written sorted, each once") {
                expect(milk.alter(.tagging(add: ["b", "a", "b"], remove: [])).tags) == ["a", "b", "errand", "work"]
            }
        }

        describe("dependencies") {
            let (bread, eggs, flour) = (
                UUID(uuidString: "11111111-1111-4111-8111-111111111111")!,
                UUID(uuidString: "22222222-2222-4222-8222-222222222222")!,
                UUID(uuidString: "33333333-3333-4333-8333-333333333333")!
            )
            it("keeps a dependency added on each machine, and drops one removed on either") {
                base = base.alter(by: .updating(.todo(milk.alter(.depending(add: [bread], remove: [])))))
                milk = base.todos[0]
                later()
                let ours = milk.alter(.depending(add: [eggs], remove: [bread]))
                later()
                let theirs = milk.alter(.depending(add: [flour], remove: []))
                let result = merged(ours, theirs)
                expect(result.state.todos.first?.dependencies) == [eggs, flour]
                expect(merged(theirs, ours).state) == result.state
                let decision = result.report.items.first?.fields.first { $0.field == "dependencies" }
                expect(decision?.rule) == .combined
                expect(decision?.lost).to(beNil())
            }
            it("keeps both sides' dependencies of a task, with no common ancestor") {
                let task = ProjectTask(title: "Bake")
                let a = Project(title: "Party").alter(
                    by: .adding(.task(task.alter(by: .depending(add: [eggs], remove: [])))))
                let b = a.alter(by: .updating(.task(task.alter(by: .depending(add: [flour], remove: [])))))
                let result = merge(
                    base: nil, ours: AppState().alter(by: .adding(.project(a))),
                    theirs: AppState().alter(by: .adding(.project(b))))
                expect(result.state.projects.first?.tasks.first?.dependencies) == [eggs, flour]
            }
        }

        describe("wait and scheduled dates") {
            it("take the later edit, a day or a time, as a due date does, and record the one that lost") {
                // A day without a time on one side, a time on the other: each kept as it is.
                let (monday, friday): (DueDate, DueDate) = (
                    .day(CalendarDay(year: 2026, month: 11, day: 30)!),
                    .date(Date(timeIntervalSince1970: 1_795_900_000))
                )
                later()
                let ours = milk.alter(.wait(monday), .scheduled(friday))
                later()
                let theirs = milk.alter(.wait(friday))
                let result = merged(ours, theirs)
                expect(result.state.todos.first?.waitDate) == friday
                expect(result.state.todos.first?.scheduledDate) == friday
                expect(result.report.items.first?.fields.first { $0.field == "waitDate" })
                    == FieldDecision(
                        field: "waitDate", from: .theirs, rule: .laterEdit, kept: friday.fieldText,
                        lost: monday.fieldText)
            }
        }

        describe("priority") {
            it("takes the later edit and records the one that lost") {
                later()
                let ours = milk.alter(.priority(.low))
                later()
                let theirs = milk.alter(.priority(.high))
                let result = merged(ours, theirs)
                expect(result.state.todos.first?.priority) == .high
                expect(result.report.items.first?.fields) == [
                    FieldDecision(field: "priority", from: .theirs, rule: .laterEdit, kept: "high", lost: "low")
                ]
            }
        }

        describe("notes") {
            it("keeps notes added on two machines, in date order") {
                later()
                let ours = milk.alter(.noting(.add(Note(text: "called, left a message"))))
                later()
                let theirs = milk.alter(.noting(.add(Note(text: "shop closed on Sunday"))))
                let notes = merged(ours, theirs).state.todos.first?.notes.map(\.text)
                expect(notes) == ["called, left a message", "shop closed on Sunday"]
            }
            it("takes the later edit of one note and records the text that lost") {
                let note = Note(text: "call Anna")
                base = AppState().alter(by: .adding(.todo(milk.alter(.noting(.add(note))))))
                let withNote = base.todos[0]
                later()
                let ours = withNote.alter(.noting(.edit(note.id, text: "call Anna at 5")))
                later()
                let theirs = withNote.alter(.noting(.edit(note.id, text: "call Anna tomorrow")))
                let result = merged(ours, theirs)
                expect(result.state.todos.first?.notes.map(\.text)) == ["call Anna tomorrow"]
                expect(result.report.items.first?.fields) == [
                    FieldDecision(
                        field: .note(note.id), from: .theirs, rule: .laterEdit,
                        kept: "call Anna tomorrow", lost: "call Anna at 5")
                ]
            }
            it("removes a note removed on one side and untouched on the other") {
                let note = Note(text: "call Anna")
                base = AppState().alter(by: .adding(.todo(milk.alter(.noting(.add(note))))))
                let withNote = base.todos[0]
                later()
                let ours = withNote.alter(.noting(.remove(note.id)))
                later()
                let theirs = withNote.alter(.text("Buy oat milk"))
                expect(merged(ours, theirs).state.todos.first?.notes) == []
            }
            it("weighs a removal against a later edit of the note, recording the loser") {
                let note = Note(text: "call Anna")
                base = AppState().alter(by: .adding(.todo(milk.alter(.noting(.add(note))))))
                let withNote = base.todos[0]
                later()
                let ours = withNote.alter(.noting(.remove(note.id)))
                later()
                let theirs = withNote.alter(.noting(.edit(note.id, text: "call Anna at 5")))
                let result = merged(ours, theirs)
                expect(result.state.todos.first?.notes.map(\.text)) == ["call Anna at 5"]
                expect(result.report.items.first?.fields.first?.lost) == "none"
            }
        }

        describe("the completion date") {
            it("is set when a todo is done and cleared when it is reopened") {
                later()
                let done = milk.alter(.completed(true))
                expect(done.completedDate) == done.alterDate
                expect(done.alter(.completed(false)).completedDate).to(beNil())
            }
            it("is set when a task is finished and cleared when it is not") {
                let task = ProjectTask(title: "Draft")
                later()
                let finished = task.alter(by: .setting(.state(to: .finished)))
                expect(finished.completedDate) == finished.alterDate
                expect(finished.alter(by: .setting(.state(to: .inProgress))).completedDate).to(beNil())
            }
            it(
                "goes with the completion: reopened on one side and done again on the other never leaves a date on an open todo"
            ) {
                let done = milk.alter(.completed(true))
                base = AppState().alter(by: .adding(.todo(done)))
                later()
                let reopened = done.alter(.completed(false))
                later()
                let again = done.alter(.completed(false)).alter(.completed(true))
                for result in [
                    merged(reopened, again),
                    merge(
                        base: base, ours: base.alter(by: .updating(.todo(again))),
                        theirs: base.alter(by: .updating(.todo(reopened)))),
                ] {
                    let todo = result.state.todos[0]
                    expect(todo.completed) == false
                    expect(todo.completedDate).to(beNil())
                }
            }
        }

        describe("a task's creation date") {
            func holding(_ task: ProjectTask) -> AppState {
                AppState().alter(
                    by: .adding(
                        .project(
                            Project(
                                id: UUID(uuidString: "00000000-0000-0000-0000-0000000000aa")!, title: "Party",
                                tasks: [task], alterDate: nil))))
            }
            it("is when the task was made, and no edit changes it") {
                let task = ProjectTask(title: "Book venue")
                let made = task.creationDate
                expect(made).notTo(beNil())
                later()
                let edited = task.alter(by: .setting(.title(to: "Book the hall")), .setting(.state(to: .finished)))
                expect(edited.creationDate) == made
            }
            it("survives a merge with a side that has none, either way round, whatever else both changed") {
                let dated = ProjectTask(title: "Book venue")
                let undated = ProjectTask(
                    id: dated.id, title: dated.title, dueDate: dated.dueDate, state: dated.state, timeSlips: [],
                    alterDate: nil)
                later()
                let ours = dated.alter(by: .setting(.title(to: "Book the hall")))
                later()
                let theirs = undated.alter(by: .setting(.priority(to: .high)))
                for (a, b) in [(ours, theirs), (theirs, ours)] {
                    let task = merge(base: holding(undated), ours: holding(a), theirs: holding(b)).state.projects.first?
                        .tasks.first
                    expect(task?.creationDate) == dated.creationDate
                    expect(task?.title) == "Book the hall"
                    expect(task?.priority) == .high
                }
            }
        }

        describe("recurrence") {
            var water: TodoItem!
            var start: AppState!
            beforeEach {
                let due = Date(docketMillisecondsForSpecs: world.time + 86_400_000)
                water = TodoItem(text: "Water plants").alter(.due(due))
                water = water.alter(.recurrence(Recurrence(every: .init(.week), series: water.id)))
                start = AppState().alter(by: .adding(.todo(water)))
            }
            it("makes the next instance, due a week after this one, when one is done") {
                let state = start.completingTodo(water.id)
                expect(state.todos.count) == 2
                let next = state.todos.first { !$0.completed }
                expect(next?.dueDate) == water.dueDate!.addingTimeInterval(7 * 86_400)
                expect(next?.recurrence?.occurrence) == 2
                expect(next?.id) == water.recurrence!.nextID
            }
            it("makes one next instance when two machines complete the same instance") {
                later()
                let ours = start.completingTodo(water.id)
                later(3600)
                let theirs = start.completingTodo(water.id)
                let result = merge(base: start, ours: ours, theirs: theirs)
                expect(result.state.todos.filter { !$0.completed }.count) == 1
                expect(result.state.todos.count) == 2
            }
            it("makes one next instance when each machine completes it and reopens, then completes it again") {
                let once = start.completingTodo(water.id)
                let twice = once.alter(by: .updating(.todo(once.todo(id: water.id)!.alter(.completed(false)))))
                    .completingTodo(water.id)
                expect(twice.todos.count) == 2
            }
            it("makes a removed next instance again, dated after its removal, when the one before is done again") {
                let made = start.completingTodo(water.id)
                let next = made.todos.first { !$0.completed }!
                later()
                let removed = made.alter(by: .removing(.todo(next)))
                later()
                let reopened = removed.alter(by: .updating(.todo(removed.todo(id: water.id)!.alter(.completed(false)))))
                let again = reopened.completingTodo(water.id)
                expect(again.todo(id: next.id)?.alterDate) > removed.tombstone(id: next.id)!.removedDate
                expect(again.tombstone(id: next.id)).to(beNil())
            }
            it("counts from the day it was done when asked to, at its due date's time of day") {
                let fromDone = water.alter(
                    .recurrence(Recurrence(every: .init(.day, count: 3), from: .completion, series: water.id)))
                let state = AppState().alter(by: .adding(.todo(fromDone))).completingTodo(water.id)
                let done = state.todo(id: water.id)!
                let next = state.todo(id: water.recurrence!.nextID)!
                let zone = DocketClock.timeZone
                expect(next.due.hasTime) == true
                expect(next.due.day(in: zone)) == CalendarDay(done.completedDate!, in: zone).adding(days: 3)
                expect(next.dueDate!.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400))
                    == water.dueDate!.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400)
            }
            it("skips the weekend for weekdays") {
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = TimeZone(identifier: "UTC")!
                let friday = ISODate.date(from: "2026-11-20T12:00:00Z")!
                let monday = Recurrence.Interval(.weekday).after(friday, calendar: calendar)
                expect(ISODate.string(from: monday)) == "2026-11-23T12:00:00.000Z"
                expect(Recurrence.Interval(text: "2 weeks")) == Recurrence.Interval(.week, count: 2)
                expect(Recurrence.Interval(text: "every 3 days")) == Recurrence.Interval(.day, count: 3)
                expect(Recurrence.Interval(text: "fortnight")).to(beNil())
            }
            describe("of a project's task") {
                var mow: ProjectTask!
                var garden: Project!
                var begun: AppState!
                beforeEach {
                    mow = ProjectTask(title: "Mow the lawn")
                    mow = mow.alter(
                        by: .setting(.dueDate(to: .date(Date(docketMillisecondsForSpecs: world.time + 86_400_000)))),
                        .setting(.recurrence(to: Recurrence(every: .init(.week), series: mow.id))))
                    garden = Project(title: "Garden").alter(by: .adding(.task(mow)))
                    begun = AppState().alter(by: .adding(.project(garden)))
                }
                func finishing(_ state: AppState) -> AppState {
                    let task = state.project(id: garden.id)!.task(id: mow.id)!
                    return state.updatingTask(task.alter(by: .setting(.state(to: .finished))), in: garden.id)
                }
                it("makes the next instance in the project, due a week on, with the id every machine makes") {
                    let tasks = finishing(begun).project(id: garden.id)!.tasks
                    expect(tasks.count) == 2
                    expect(tasks[1].id) == mow.recurrence!.nextID
                    expect(tasks[1].dueDate.date) == mow.dueDate.date!.addingTimeInterval(7 * 86_400)
                    expect(tasks[1].recurrence?.occurrence) == 2
                    expect(tasks[1].state) == .unfinished
                }
                it("makes one next instance when two machines finish the same instance") {
                    later()
                    let ours = finishing(begun)
                    later(3600)
                    let theirs = finishing(begun)
                    let one = merge(base: begun, ours: ours, theirs: theirs)
                    let other = merge(base: begun, ours: theirs, theirs: ours)
                    expect(one.state) == other.state
                    let tasks = one.state.project(id: garden.id)!.tasks
                    expect(tasks.map(\.id)) == [mow.id, mow.recurrence!.nextID]
                    expect(tasks.filter { $0.state != .finished }.count) == 1
                }
                it("makes none when the instance is finished again, or the project holds one of that number") {
                    let once = finishing(begun)
                    let reopened = once.updatingTask(
                        once.project(id: garden.id)!.task(id: mow.id)!.alter(by: .setting(.state(to: .unfinished))),
                        in: garden.id)
                    expect(finishing(reopened).project(id: garden.id)!.tasks.count) == 2
                    // Taskwarrior's own instance of number 2, with an id of its own.
                    let theirs = ProjectTask(title: "Mow the lawn").alter(
                        by: .setting(.recurrence(to: Recurrence(every: .init(.week), series: mow.id, occurrence: 2))))
                    let holding = begun.alter(
                        by: .updating(.project(begun.project(id: garden.id)!.alter(by: .adding(.task(theirs))))))
                    expect(finishing(holding).project(id: garden.id)!.tasks.map(\.id)) == [mow.id, theirs.id]
                }
                it("makes a removed next instance again, dated after its removal, when the one before is done again") {
                    let made = finishing(begun)
                    let next = made.project(id: garden.id)!.task(id: mow.recurrence!.nextID)!
                    later()
                    let removed = made.alter(
                        by: .updating(.project(made.project(id: garden.id)!.alter(by: .removing(.task(next))))))
                    later()
                    let reopened = removed.updatingTask(
                        removed.project(id: garden.id)!.task(id: mow.id)!.alter(by: .setting(.state(to: .unfinished))),
                        in: garden.id)
                    let again = finishing(reopened)
                    expect(again.project(id: garden.id)!.task(id: next.id)?.alterDate)
                        > removed.tombstone(id: next.id)!.removedDate
                    expect(again.tombstone(id: next.id)).to(beNil())
                }
            }
            it("derives the next id by name, as RFC 4122 version 5 does") {
                // The RFC's DNS namespace and "www.example.com" give this id in Python's uuid.uuid5.
                let dns = UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8")!
                expect(NameBasedID.make(namespace: dns, name: "www.example.com").uuidString.lowercased())
                    == "2ed6657d-e927-568b-95e1-2665a8aea6a2"
            }
        }
    }
}
