import DocketModel
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// A change undone as a new edit (`AppState.reversing`): only what the change
/// did, by each field's merge rule, leaving what others did since alone.
final class ReversalSpec: QuickSpec {
    override class func spec() {
        var world: SeededWorld!
        var milk: TodoItem!
        beforeEach {
            world = SeededWorld(seed: 44)
            milk = TodoItem(text: "Buy milk").alter(.tagging(add: ["errand"], remove: []))
            world.advance(60)
        }
        afterEach {
            world.uninstall()
            world = nil
        }
        func state(_ todos: TodoItem...) -> AppState { AppState(todos: todos, projects: [], removed: []) }
        /// `current` with the change from `before` to `after` undone, after the merges `since`.
        func undo(_ before: TodoItem, _ after: TodoItem, in current: TodoItem, since merges: [LaterMerge] = [])
            -> (todo: TodoItem, reversal: Reversal)
        {
            world.advance(60)
            let reversal = state(current).reversing(before: state(before), after: state(after), since: merges)
            return (reversal.state.todos[0], reversal)
        }

        describe("undoing a change") {
            it("takes back only the tags it added or removed, keeping the tags added since") {
                let changed = milk.alter(.tagging(add: ["shop"], remove: ["errand"]))
                world.advance(60)
                let since = changed.alter(.tagging(add: ["home"], remove: []))
                let (undone, reversal) = undo(milk, changed, in: since)
                expect(undone.tags) == ["errand", "home"]
                expect(reversal.skipped) == []
            }
            it("takes back the notes it wrote or edited, by note, keeping a note written since") {
                let note = Note(text: "oat, not dairy")
                let noted = milk.alter(.noting(.add(note)))
                world.advance(60)
                let changed = noted.alter(.noting(.add(Note(text: "two litres"))), .noting(.edit(note.id, text: "oat")))
                world.advance(60)
                let since = changed.alter(.noting(.add(Note(text: "from the desk"))))
                let (undone, _) = undo(noted, changed, in: since)
                expect(undone.notes.map(\.text)) == ["oat, not dairy", "from the desk"]
            }
            it("puts the completion date back with the completion") {
                let done = milk.alter(.completed(true))
                let (undone, _) = undo(milk, done, in: done)
                expect(undone.completed) == false
                expect(undone.completedDate).to(beNil())
                expect(undone.alterDate!) > done.alterDate!
            }
            it("leaves a completion changed since, with its date, and names it") {
                let done = milk.alter(.completed(true))
                world.advance(60)
                let reopened = done.alter(.completed(false))
                world.advance(60)
                let doneAgain = reopened.alter(.completed(true))
                let (undone, reversal) = undo(milk, done, in: doneAgain)
                expect(undone.completed) == true
                expect(undone.completedDate) == doneAgain.completedDate
                expect(reversal.skipped) == ["todo 'Buy milk' completed: changed since"]
            }
        }

        describe("undoing a change to what an item waits on") {
            let (paint, brush, sand) = (
                UUID(uuidString: "11111111-1111-4111-8111-111111111111")!,
                UUID(uuidString: "22222222-2222-4222-8222-222222222222")!,
                UUID(uuidString: "33333333-3333-4333-8333-333333333333")!
            )
            it("takes back only the dependencies it added or removed, keeping one another machine added since") {
                let fence = milk.alter(.depending(add: [paint], remove: []))
                world.advance(60)
                let changed = fence.alter(.depending(add: [brush], remove: [paint]))
                world.advance(60)
                let since = changed.alter(.depending(add: [sand], remove: []))
                let merge = LaterMerge(
                    name: "merge origin/main", by: ["Desk <desk@example.org>"], before: state(changed),
                    after: state(since), theirs: AppState(), lost: [])
                let (undone, reversal) = undo(fence, changed, in: since, since: [merge])
                expect(undone.dependencies) == [paint, sand]
                expect(reversal.skipped) == []
            }
            it("takes back a task's dependencies the same way") {
                let task = ProjectTask(title: "Paint shed").alter(by: .depending(add: [paint], remove: []))
                let project = Project(title: "Garden").alter(by: .adding(.task(task)))
                world.advance(60)
                let changed = project.alter(by: .updating(.task(task.alter(by: .depending(add: [brush], remove: [])))))
                func state(_ project: Project) -> AppState { AppState(todos: [], projects: [project], removed: []) }
                world.advance(60)
                let undone = state(changed).reversing(before: state(project), after: state(changed))
                expect(undone.state.projects[0].tasks[0].dependencies) == [paint]
            }
            it("puts back the wait and scheduled dates it set, a day as a day and a time as a time") {
                let monday = DueDate.day(CalendarDay(year: 2030, month: 1, day: 7)!)
                let nine = DueDate.date(ISODate.date(from: "2030-01-08T09:00:00.000Z")!)
                let planned = milk.alter(.wait(monday), .scheduled(nine))
                world.advance(60)
                let changed = planned.alter(
                    .wait(.date(ISODate.date(from: "2030-01-07T00:00:00.000Z")!)), .scheduled(.unknown))
                let (undone, reversal) = undo(planned, changed, in: changed)
                expect(undone.waitDate) == monday
                expect(undone.scheduledDate) == nine
                expect(undone.alterDate!) > changed.alterDate!
                expect(reversal.skipped) == []
            }
            it("leaves a wait another machine changed since, naming whose edit it holds") {
                let changed = milk.alter(.wait(.day(CalendarDay(year: 2030, month: 1, day: 7)!)))
                world.advance(60)
                let since = changed.alter(.wait(.day(CalendarDay(year: 2030, month: 2, day: 1)!)))
                let merge = LaterMerge(
                    name: "merge origin/main", by: ["Desk <desk@example.org>"], before: state(changed),
                    after: state(since), theirs: AppState(), lost: [])
                let (undone, reversal) = undo(milk, changed, in: since, since: [merge])
                expect(undone.waitDate) == since.waitDate
                expect(reversal.skipped)
                    == ["todo 'Buy milk' wait date: changed since by Desk <desk@example.org> (merge origin/main)"]
            }
        }

        describe("undoing a change to a task's time") {
            it("runs a slip it stopped again where it was, leaving the slips in their order") {
                // The clock went back between two starts: the later slip in the file started earlier.
                var task = ProjectTask(title: "Mow").alter(by: .recording(.start))
                world.advance(30)
                task = task.alter(by: .recording(.stop))
                world.advance(-120)
                let before = task.alter(by: .recording(.start))
                world.advance(60)
                let after = before.alter(by: .recording(.stop))
                func state(_ task: ProjectTask) -> AppState {
                    AppState(
                        todos: [], projects: [Project(title: "Garden").alter(by: .adding(.task(task)))], removed: [])
                }
                let project = state(before).projects[0]
                func place(_ task: ProjectTask) -> AppState {
                    AppState(todos: [], projects: [project.alter(by: .updating(.task(task)))], removed: [])
                }
                world.advance(60)
                let reversal = place(after).reversing(before: place(before), after: place(after))
                let undone = reversal.state.projects[0].tasks[0]
                expect(undone.timeSlips.map(\.id)) == before.timeSlips.map(\.id)
                expect(undone.timeSlips) == before.timeSlips
                expect(undone.runningSlip?.id) == before.timeSlips[1].id
                expect(reversal.skipped) == []
            }
        }

        describe("undoing any change with nothing since") {
            it("gives back every item as it was, field by field, and names nothing") {
                forAll(300) { g in
                    let before = RandomEdits.state(10, &g, world: world)
                    let after = RandomEdits.edit(before, &g, world: world)
                    world.advance(1)
                    let reversal = after.reversing(before: before, after: after)
                    let undone = reversal.state
                    if !reversal.skipped.isEmpty { return "it named \(reversal.skipped)" }
                    func same<Item: FieldCoded>(_ a: Item?, _ b: Item?) -> Bool {
                        switch (a, b) {
                        case let (a?, b?): Item.contentFields.allSatisfy { $0.isSame(a, b) }
                        case (nil, nil): true
                        default: false
                        }
                    }
                    for id in Set((before.todos + after.todos).map(\.id))
                    where !same(before.todo(id: id), undone.todo(id: id)) {
                        return
                            "todo \(id): was \(String(describing: before.todo(id: id))), is \(String(describing: undone.todo(id: id)))"
                    }
                    for id in Set((before.projects + after.projects).map(\.id)) {
                        let (was, now) = (before.project(id: id), undone.project(id: id))
                        guard same(was, now) else {
                            return "project \(id): was \(String(describing: was)), is \(String(describing: now))"
                        }
                        for task in Set(((was?.tasks ?? []) + (now?.tasks ?? [])).map(\.id))
                        where !same(was?.task(id: task), now?.task(id: task)) {
                            let (a, b) = (was?.task(id: task), now?.task(id: task))
                            let fields = ProjectTask.contentFields.filter { a == nil || b == nil || !$0.isSame(a!, b!) }
                            return "task \(task) of project \(id) is not as it was: "
                                + fields.map {
                                    "\($0.key) was \(a.map($0.text) ?? "none"), is \(b.map($0.text) ?? "none")"
                                }
                                .joined(separator: "; ")
                        }
                    }
                    return nil
                }
            }
        }

        describe("undoing a change a later merge took in with another machine's edits") {
            var changed: TodoItem!
            beforeEach {
                changed = milk.alter(.priority(.high))
                world.advance(60)
            }
            it("leaves the field another machine changed since, naming whose edit it holds and the merge") {
                let theirs = changed.alter(.priority(.low))
                let merge = LaterMerge(
                    name: "merge origin/main", by: ["Desk <desk@example.org>"], before: state(changed),
                    after: state(theirs), theirs: AppState(), lost: [])
                let (undone, reversal) = undo(milk, changed, in: theirs, since: [merge])
                expect(undone.priority) == .low
                expect(reversal.skipped)
                    == ["todo 'Buy milk' priority: changed since by Desk <desk@example.org> (merge origin/main)"]
            }
            it("takes back its own field and leaves the fields the merge brought") {
                let merged = changed.alter(.completed(true), .text("Buy oat milk"))
                let merge = LaterMerge(
                    name: "merge origin/main", by: ["Desk <desk@example.org>"], before: state(changed),
                    after: state(merged), theirs: AppState(), lost: [])
                let (undone, reversal) = undo(milk, changed, in: merged, since: [merge])
                expect(undone.priority).to(beNil())
                expect(undone.completed) == true
                expect(undone.completedDate) == merged.completedDate
                expect(undone.text) == "Buy oat milk"
                expect(reversal.skipped) == []
            }
            it("gives the field the other machine's edit the merge had set aside for this change's, and says so") {
                let theirs = milk.alter(.priority(.medium))
                let merge = LaterMerge(
                    name: "merge origin/main", by: ["Desk <desk@example.org>"], before: state(changed),
                    after: state(changed), theirs: state(theirs), lost: [ItemFieldPath(milk.id, "priority")])
                let (undone, reversal) = undo(milk, changed, in: changed, since: [merge])
                expect(undone.priority) == .medium
                expect(reversal.others)
                    == [
                        "todo 'Buy milk' priority: set to \"medium\", the edit by Desk <desk@example.org> "
                            + "this change had won over in merge origin/main"
                    ]
            }
            it("brings an item it removed back as the other machine's edit its removal had won over") {
                let theirs = milk.alter(.text("Buy oat milk"))
                let removed = state(milk).alter(by: .removing(.todo(milk)))
                world.advance(60)
                let merge = LaterMerge(
                    name: "merge origin/main", by: ["Desk <desk@example.org>"], before: removed, after: removed,
                    theirs: state(theirs), lost: [ItemFieldPath(milk.id, .item)])
                world.advance(60)
                let reversal = removed.reversing(before: state(milk), after: removed, since: [merge])
                expect(reversal.state.todos.map(\.text)) == ["Buy oat milk"]
                expect(reversal.state.removed) == []
                expect(reversal.others.first).to(contain("back as the edit by Desk <desk@example.org> left it"))
            }
        }

        describe("a merge's names for whose edits it brought") {
            it("names one, two, three, or the first two and how many more") {
                expect(LaterMerge.names([])) == "another machine"
                expect(LaterMerge.names(["Desk"])) == "Desk"
                expect(LaterMerge.names(["Desk", "Anna"])) == "Desk and Anna"
                expect(LaterMerge.names(["Desk", "Anna", "Ben"])) == "Desk, Anna and Ben"
                expect(LaterMerge.names(["Desk", "Anna", "Ben", "Cleo"])) == "Desk, Anna and 2 others"
            }
        }
    }
}
