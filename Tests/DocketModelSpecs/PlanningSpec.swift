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
        func at(_ text: String) -> DueDate { .date(ISODate.date(from: text)!) }
        func day(_ text: String) -> DueDate { .day(CalendarDay(text)!) }

        describe("a todo") {
            it("sets and clears its wait and scheduled dates, each an alteration, and leaves the rest alone") {
                let todo = TodoItem(text: "Paint the fence")
                clock.advance(5)
                let waiting = todo.alter(.wait(day("2026-11-28")), .scheduled(at("2026-11-29T09:00:00Z")))
                expect(waiting.waitDate) == day("2026-11-28")
                expect(waiting.scheduledDate) == at("2026-11-29T09:00:00Z")
                expect(waiting.alterDate) > clock.now
                expect(waiting.text) == todo.text
                expect(waiting.dueDate).to(beNil())
                let cleared = waiting.alter(.wait(.unknown), .scheduled(.unknown))
                expect(cleared.waitDate) == .unknown
                expect(cleared.scheduledDate) == .unknown
            }
            it("is unchanged, alterDate and all, when given the wait, schedule and dependencies it has") {
                let todo = TodoItem(text: "x").alter(.wait(day("2026-11-28")), .depending(add: [bread], remove: []))
                clock.advance(5)
                expect(
                    todo.alter(.wait(todo.waitDate), .scheduled(.unknown), .depending(add: [bread], remove: [eggs]))
                ) == todo
            }
            it("keeps a wait for a day apart from one at that day's first moment") {
                let day = TodoItem(text: "x").alter(.wait(day("2026-11-28")))
                clock.advance(5)
                let moment = day.alter(.wait(at("2026-11-28T00:00:00Z")))
                expect(moment) != day
                expect(moment.waitDate.hasTime) == true
            }
            it("adds and removes dependencies as a set, sorted, each once") {
                let todo = TodoItem(text: "x").alter(.depending(add: [eggs, bread, eggs], remove: []))
                expect(todo.dependencies) == [bread, eggs]
                expect(todo.alter(.depending(add: [], remove: [eggs])).dependencies) == [bread]
            }
            it("carries its wait and scheduled dates to its next instance, as far before its due date as they were") {
                let todo = TodoItem(text: "Water plants").alter(
                    .dueDate(to: day("2026-11-28")), .wait(day("2026-11-26")),
                    .scheduled(at("2026-11-27T08:30:00Z")), .depending(add: [bread], remove: []),
                    .recurrence(Recurrence(every: .init(.week), series: UUID())))
                let next = todo.nextOccurrence(done: ISODate.date(from: "2026-11-28T10:00:00Z")!, calendar: utc)!
                expect(next.due) == day("2026-12-05")
                expect(next.waitDate) == day("2026-12-03")
                expect(next.scheduledDate) == at("2026-12-04T08:30:00Z")
                expect(next.dependencies) == [bread]
            }
            it("keeps a time at its time of day across a daylight-saving change, and a day a day") {
                var berlin = Calendar(identifier: .gregorian)
                berlin.timeZone = TimeZone(identifier: "Europe/Berlin")!
                // 09:00 in Berlin, summer time (UTC+2), the day before a due date a week before winter time begins.
                let todo = TodoItem(text: "Bins out").alter(
                    .dueDate(to: day("2026-10-21")), .wait(day("2026-10-20")),
                    .scheduled(at("2026-10-20T07:00:00Z")),
                    .recurrence(Recurrence(every: .init(.week), series: UUID())))
                let next = todo.nextOccurrence(done: ISODate.date(from: "2026-10-21T10:00:00Z")!, calendar: berlin)!
                expect(next.due) == day("2026-10-28")
                expect(next.waitDate) == day("2026-10-27")
                // 09:00 in Berlin, winter time (UTC+1).
                expect(next.scheduledDate) == at("2026-10-27T08:00:00Z")
            }
            it("counts from the day it was done when it has no due date") {
                let todo = TodoItem(text: "Call Anna").alter(
                    .wait(day("2026-11-30")), .recurrence(Recurrence(every: .init(.week), series: UUID())))
                let next = todo.nextOccurrence(done: ISODate.date(from: "2026-11-28T10:00:00Z")!, calendar: utc)!
                expect(next.due) == day("2026-12-05")
                expect(next.waitDate) == day("2026-12-07")
            }
        }

        describe("a task") {
            it("sets its wait and scheduled dates and dependencies through its Change DSL") {
                let task = ProjectTask(title: "Order the drinks").alter(
                    by: .setting(.waitDate(to: day("2026-11-24"))),
                    .setting(.scheduledDate(to: at("2026-11-25T12:00:00Z"))), .depending(add: [eggs], remove: []))
                expect(task.waitDate) == day("2026-11-24")
                expect(task.scheduledDate) == at("2026-11-25T12:00:00Z")
                expect(task.dependencies) == [eggs]
                let cleared = task.alter(by: .depending(add: [], remove: [eggs]), .setting(.waitDate(to: .unknown)))
                expect(cleared.dependencies) == []
                expect(cleared.waitDate) == .unknown
            }
            it("carries its wait and scheduled dates to its next instance, as far before its due date as they were") {
                let task = ProjectTask(title: "Invoice").alter(
                    by: .setting(.dueDate(to: at("2026-11-30T17:00:00Z"))),
                    .setting(.waitDate(to: day("2026-11-29"))),
                    .setting(.recurrence(to: Recurrence(every: .init(.month), series: UUID()))))
                let next = task.nextOccurrence(done: ISODate.date(from: "2026-11-30T10:00:00Z")!, calendar: utc)!
                expect(next.dueDate) == at("2026-12-30T17:00:00Z")
                expect(next.waitDate) == day("2026-12-29")
                expect(next.scheduledDate) == .unknown
            }
        }
    }
}
