import DocketModel
import DocketSpecSupport
import Foundation
import Nimble
import Quick

final class DueDateSpec: QuickSpec {
    override class func spec() {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let newYork = TimeZone(identifier: "America/New_York")!
        func at(_ text: String) -> Date { ISODate.date(from: text)! }
        func day(_ y: Int, _ m: Int, _ d: Int) -> CalendarDay { CalendarDay(year: y, month: m, day: d)! }
        var world: SeededWorld!
        beforeEach { world = SeededWorld(seed: 3, timeZone: berlin) }
        afterEach { world.uninstall() }

        describe("a due date without a time") {
            let due = DueDate.day(day(2026, 11, 24))
            it("is overdue only once its day has ended in the local time zone") {
                expect(due.isOverdue(at: at("2026-11-24T23:59:00+01:00"))) == false
                expect(due.isOverdue(at: at("2026-11-25T00:00:00+01:00"))) == true
                // 23:30 in UTC is already the next day in Berlin.
                expect(due.isOverdue(at: at("2026-11-24T23:30:00Z"))) == true
            }
            it("differs from a time on that day, noon included") {
                expect(due) != .date(due.date!)
                expect(due.date) == at("2026-11-24T12:00:00+01:00")
                expect(due.hasTime) == false
            }
        }

        describe("a due date with a time") {
            it("is overdue once its time has passed") {
                let due = DueDate.date(at("2026-11-24T09:00:00+01:00"))
                expect(due.isOverdue(at: at("2026-11-24T08:59:00+01:00"))) == false
                expect(due.isOverdue(at: at("2026-11-24T09:01:00+01:00"))) == true
            }
        }

        describe("the next due date of a repeating item") {
            let weekly = Recurrence(every: .init(.week), series: UUID())
            it("stays a day without a time, counted from the due date") {
                expect(weekly.nextDue(due: .day(day(2026, 11, 24)), done: at("2026-11-30T10:00:00Z")))
                    == .day(day(2026, 12, 1))
            }
            it("stays a day without a time counted from completion: the day it was done here, one interval on") {
                let fromDone = Recurrence(every: .init(.day, count: 3), from: .completion, series: UUID())
                // 00:30 on the 28th in Berlin is still the 27th in UTC: the local day counts.
                expect(fromDone.nextDue(due: .day(day(2026, 11, 24)), done: at("2026-11-28T00:30:00+01:00")))
                    == .day(day(2026, 12, 1))
            }
            it("is a day one interval after the day it was done for an item with no due date") {
                expect(weekly.nextDue(due: .unknown, done: at("2026-11-24T18:43:00+01:00")))
                    == .day(day(2026, 12, 1))
            }
            it("keeps a time's time of day across the end of daylight saving in Europe/Berlin") {
                // Sunday 25 October 2026: 09:00 is 07:00 UTC before, 08:00 UTC after.
                expect(weekly.nextDue(due: .date(at("2026-10-20T09:00:00+02:00")), done: at("2026-10-20T10:00:00Z")))
                    == .date(at("2026-10-27T09:00:00+01:00"))
            }
            it("keeps a time's time of day across both daylight-saving changes in America/New_York") {
                world.uninstall()
                world = SeededWorld(seed: 3, timeZone: newYork)
                let daily = Recurrence(every: .init(.day), series: UUID())
                // Sunday 1 November 2026 (EDT to EST) and Sunday 8 March 2026 (EST to EDT).
                expect(daily.nextDue(due: .date(at("2026-10-31T08:30:00-04:00")), done: at("2026-10-31T13:00:00Z")))
                    == .date(at("2026-11-01T08:30:00-05:00"))
                expect(daily.nextDue(due: .date(at("2026-03-07T08:30:00-05:00")), done: at("2026-03-07T14:00:00Z")))
                    == .date(at("2026-03-08T08:30:00-04:00"))
            }
            it("keeps a time's time of day counted from completion, on the day after the one it was done") {
                let fromDone = Recurrence(every: .init(.day), from: .completion, series: UUID())
                expect(
                    fromDone.nextDue(due: .date(at("2026-11-20T07:00:00+01:00")), done: at("2026-11-27T18:00:00+01:00"))
                )
                    == .date(at("2026-11-28T07:00:00+01:00"))
            }
            it("counts a month from January 31 as the last day of February") {
                let monthly = Recurrence(every: .init(.month), series: UUID())
                expect(monthly.nextDue(due: .day(day(2026, 1, 31)), done: at("2026-01-31T10:00:00Z")))
                    == .day(day(2026, 2, 28))
                expect(monthly.nextDue(due: .day(day(2028, 1, 31)), done: at("2028-01-31T10:00:00Z")))
                    == .day(day(2028, 2, 29))
            }
            it("ends the series past the year 9999") {
                expect(weekly.nextDue(due: .day(day(9999, 12, 30)), done: at("2026-01-31T10:00:00Z"))).to(beNil())
            }
            it("makes a todo's next instance without a time from one without a time") {
                let todo = TodoItem(text: "Water plants").alter(.dueDate(to: .day(day(2026, 11, 24))))
                let repeating = todo.alter(
                    .recurrence(Recurrence(every: .init(.week), from: .completion, series: todo.id)))
                expect(repeating.nextOccurrence(done: at("2026-11-25T20:00:00+01:00"))?.due) == .day(day(2026, 12, 2))
            }
        }

        describe("what a repeat counts from, in words") {
            let weekly = Recurrence(every: .init(.week), series: UUID())
            it("names the due date when there is one") {
                expect(weekly.description(due: .day(day(2026, 11, 24)))) == "every week from the due date"
            }
            it("never names a due date an item does not have") {
                expect(weekly.description(due: .unknown)) == "every week from the day it is done (it has no due date)"
                let fromDone = Recurrence(every: .init(.day, count: 2), from: .completion, series: UUID())
                expect(fromDone.description(due: .unknown)) == "every 2 days from the day it is done"
            }
        }

        describe("a calendar day") {
            it("reads and writes YYYY-MM-DD, and refuses a day no calendar has") {
                expect(CalendarDay("2026-11-24")?.description) == "2026-11-24"
                expect(CalendarDay("2026-02-30")).to(beNil())
                expect(CalendarDay("0000-01-01")).to(beNil())
                expect(CalendarDay("2026-1-24")).to(beNil())
            }
            it("knows its weekday, Sunday being 0") {
                expect(day(2026, 11, 22).weekday) == 0
                expect(day(2026, 11, 27).weekday) == 5
                expect(day(1969, 12, 31).weekday) == 3
            }
            it("falls on the local day of a moment") {
                expect(CalendarDay(at("2026-11-24T23:30:00Z"), in: berlin)) == day(2026, 11, 25)
                expect(CalendarDay(at("2026-11-24T23:30:00Z"), in: newYork)) == day(2026, 11, 24)
            }
        }
    }
}
