import DocketModel
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// A todo's and a task's wait date, scheduled date and dependencies, through their Change DSLs.
final class PlanningSpec: QuickSpec {
    override class func spec() {
        var clock: SeededWorld!
        beforeEach { clock = SeededWorld(seed: 3) }
        afterEach { clock.uninstall() }
        let (bread, eggs) = (
            UUID(uuidString: "11111111-1111-4111-8111-111111111111")!,
            UUID(uuidString: "22222222-2222-4222-8222-222222222222")!
        )
        var utc: Calendar {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            return calendar
        }
        func day(_ text: String) -> Date { ISODate.date(from: text)! }

        describe("a todo") {
            it("sets and clears its wait and scheduled dates, each an alteration, and leaves the rest alone") {
                let todo = TodoItem(text: "Paint the fence")
                clock.advance(5)
                let waiting = todo.alter(.wait(day("2026-11-28T00:00:00Z")), .scheduled(day("2026-11-29T09:00:00Z")))
                expect(waiting.waitDate) == day("2026-11-28T00:00:00Z")
                expect(waiting.scheduledDate) == day("2026-11-29T09:00:00Z")
                expect(waiting.alterDate) > clock.now
                expect(waiting.text) == todo.text
                expect(waiting.dueDate).to(beNil())
                let cleared = waiting.alter(.wait(nil), .scheduled(nil))
                expect(cleared.waitDate).to(beNil())
                expect(cleared.scheduledDate).to(beNil())
            }
            it("is unchanged, alterDate and all, when given the wait, schedule and dependencies it has") {
                let todo = TodoItem(text: "x").alter(
                    .wait(day("2026-11-28T00:00:00Z")), .depending(add: [bread], remove: []))
                clock.advance(5)
                expect(todo.alter(.wait(todo.waitDate), .scheduled(nil), .depending(add: [bread], remove: [eggs])))
                    == todo
            }
            it("adds and removes dependencies as a set, sorted, each once") {
                let todo = TodoItem(text: "x").alter(.depending(add: [eggs, bread, eggs], remove: []))
                expect(todo.dependencies) == [bread, eggs]
                expect(todo.alter(.depending(add: [], remove: [eggs])).dependencies) == [bread]
            }
            it("carries its wait and scheduled dates to its next instance, as far before its due date as they were") {
                let todo = TodoItem(text: "Water plants").alter(
                    .due(day("2026-11-28T12:00:00Z")), .wait(day("2026-11-26T00:00:00Z")),
                    .scheduled(day("2026-11-27T08:30:00Z")), .depending(add: [bread], remove: []),
                    .recurrence(Recurrence(every: .init(.week), series: UUID())))
                let next = todo.nextOccurrence(done: day("2026-11-28T10:00:00Z"), calendar: utc)!
                expect(next.dueDate) == day("2026-12-05T12:00:00Z")
                expect(next.waitDate) == day("2026-12-03T00:00:00Z")
                expect(next.scheduledDate) == day("2026-12-04T08:30:00Z")
                expect(next.dependencies) == [bread]
            }
        }

        describe("a task") {
            it("sets its wait and scheduled dates and dependencies through its Change DSL") {
                let task = ProjectTask(title: "Order the drinks").alter(
                    by: .setting(.waitDate(to: day("2026-11-24T00:00:00Z"))),
                    .setting(.scheduledDate(to: day("2026-11-25T12:00:00Z"))), .depending(add: [eggs], remove: []))
                expect(task.waitDate) == day("2026-11-24T00:00:00Z")
                expect(task.scheduledDate) == day("2026-11-25T12:00:00Z")
                expect(task.dependencies) == [eggs]
                expect(task.alter(by: .depending(add: [], remove: [eggs]), .setting(.waitDate(to: nil))).dependencies)
                    == []
            }
            it("carries its wait and scheduled dates to its next instance, as far before its due date as they were") {
                let task = ProjectTask(title: "Invoice").alter(
                    by: .setting(.dueDate(to: DueDate(day("2026-11-30T17:00:00Z")))),
                    .setting(.waitDate(to: day("2026-11-29T00:00:00Z"))),
                    .setting(.recurrence(to: Recurrence(every: .init(.month), series: UUID()))))
                let next = task.nextOccurrence(done: day("2026-11-30T10:00:00Z"), calendar: utc)!
                expect(next.dueDate.date) == day("2026-12-30T17:00:00Z")
                expect(next.waitDate) == day("2026-12-29T00:00:00Z")
                expect(next.scheduledDate).to(beNil())
            }
        }
    }
}
