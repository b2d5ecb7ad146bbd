import Docket
import Foundation
import Nimble
import Quick

/// The day's view and the list filters, from the library, at a fixed moment.
final class AgendaSpec: QuickSpec {
    override class func spec() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        // Wednesday 2026-11-25, 15:00 UTC.
        let now = ISODate.date(from: "2026-11-25T15:00:00.000Z")!
        func at(_ text: String) -> Date { ISODate.date(from: text)! }
        /// A day without a time for YYYY-MM-DD, else a time.
        func due(_ text: String?) -> DueDate {
            guard let text else { return .unknown }
            return CalendarDay(text).map(DueDate.day) ?? .date(at(text))
        }
        func todo(
            _ text: String, due when: String? = nil, done: Bool = false, made: String = "2026-11-01T00:00:00.000Z",
            changed: String? = nil
        ) -> TodoItem {
            TodoItem(
                id: UUID(), text: text, creationDate: at(made), completed: done, due: due(when),
                alterDate: changed.map(at))
        }
        beforeEach { DocketClock.use(timeZone: calendar.timeZone) }
        afterEach { DocketClock.reset() }

        describe("Agenda") {
            let rent = todo("Pay rent", due: "2026-11-23")
            let milk = todo("Buy milk", due: "2026-11-25")
            let morning = todo("Call the bank", due: "2026-11-25T09:00:00.000Z")
            let evening = todo("Call Anna", due: "2026-11-25T19:00:00.000Z")
            let flights = todo("Book flights", due: "2026-11-28")
            let later = todo("Renew passport", due: "2027-01-10")
            let someday = todo("Learn Swift")
            let finished = todo("Old", due: "2026-11-20", done: true)
            let beer = ProjectTask(
                id: UUID(), title: "Buy Beer", dueDate: due("2026-11-24"), state: .inProgress,
                timeSlips: [TimeSlip(id: UUID(), start: at("2026-11-25T14:00:00.000Z"), stop: nil)], alterDate: nil)
            let done = ProjectTask(
                id: UUID(), title: "Book hall", dueDate: .date(at("2026-11-20T12:00:00.000Z")), state: .finished,
                timeSlips: [], alterDate: nil)
            let party = Project(id: UUID(), title: "Party", tasks: [beer, done], alterDate: nil)
            let agenda = Agenda(
                todos: [someday, later, flights, evening, morning, milk, rent, finished], projects: [party], now: now,
                calendar: calendar)

            it(
                "puts what is overdue first (a day that has ended, a time gone by), open todos and unfinished tasks alike, earliest first"
            ) {
                expect(agenda.overdue.map(\.text)) == ["Pay rent", "Buy Beer", "Call the bank"]
            }
            it(
                "keeps a date without a time under today all day, so it is not overdue in the afternoon, and a time still ahead"
            ) {
                expect(agenda.today.map(\.text)) == ["Buy milk", "Call Anna"]
            }
            it("shows the next days as soon, and the rest of the open todos dated first, then undated") {
                expect(agenda.soon.map(\.text)) == ["Book flights"]
                expect(agenda.open.map(\.text)) == ["Renew passport", "Learn Swift"]
            }
            it("lists running slips with their tasks, and leaves out done todos and finished tasks") {
                expect(agenda.running.map(\.task.text)) == ["Buy Beer"]
                expect(agenda.running.first?.since) == at("2026-11-25T14:00:00.000Z")
                let all = agenda.overdue + agenda.today + agenda.soon + agenda.open
                expect(all.map(\.text)).toNot(contain("Old", "Book hall"))
            }
            it("shows only what a filter admits, in every part, running slips too") {
                var filter = EntryFilter()
                filter.words = ["buy"]
                let todos = [someday, later, flights, evening, milk, rent, finished]
                let bought = Agenda(todos: todos, projects: [party], now: now, calendar: calendar, filter: filter)
                expect(bought.overdue.map(\.text)) == ["Buy Beer"]
                expect(bought.today.map(\.text)) == ["Buy milk"]
                expect(bought.soon.map(\.text) + bought.open.map(\.text)) == []
                expect(bought.running.map(\.task.text)) == ["Buy Beer"]
                filter.projects = []
                expect(Agenda(todos: todos, projects: [party], now: now, calendar: calendar, filter: filter).isEmpty)
                    == true
            }
            it("shows a task in progress without a due date among the open ones, unless its slip runs") {
                let tidy = ProjectTask(
                    id: UUID(), title: "Tidy the hall", dueDate: .unknown, state: .inProgress, timeSlips: [],
                    alterDate: nil)
                let music = ProjectTask(
                    id: UUID(), title: "Pick music", dueDate: .unknown, state: .inProgress,
                    timeSlips: [TimeSlip(id: UUID(), start: at("2026-11-25T14:30:00.000Z"), stop: nil)], alterDate: nil)
                let idle = ProjectTask(
                    id: UUID(), title: "Send invites", dueDate: .unknown, state: .unfinished, timeSlips: [],
                    alterDate: nil)
                let project = Project(id: UUID(), title: "Party", tasks: [tidy, music, idle], alterDate: nil)
                let view = Agenda(todos: [someday], projects: [project], now: now, calendar: calendar)
                expect(Set(view.open.map(\.text))) == ["Tidy the hall", "Learn Swift"]
                expect(view.running.map(\.task.text)) == ["Pick music"]
            }
            it("is empty with nothing open") {
                expect(Agenda(todos: [finished], projects: [], now: now, calendar: calendar).isEmpty) == true
            }
        }

        describe("EntryFilter") {
            let entries = [
                todo("Buy milk", due: "2026-11-25"),
                todo("Pay rent", due: "2026-11-20"),
                todo("Buy bread", due: "2026-11-29"),
                todo("Buy stamps", due: "2026-12-10"),
                todo("Call Anna", made: "2026-10-01T00:00:00.000Z"),
                todo("Write letter", made: "2026-11-10T00:00:00.000Z"),
                todo(
                    "Mailed parcel", done: true, made: "2026-10-06T00:00:00.000Z", changed: "2026-11-24T09:00:00.000Z"),
                todo("Mailed card", done: true, made: "2026-10-05T00:00:00.000Z", changed: "2026-11-10T09:00:00.000Z"),
            ].map(Entry.todo)
            func texts(_ change: (inout EntryFilter) -> Void) -> [String] {
                var filter = EntryFilter()
                change(&filter)
                return filter.apply(to: entries, now: now, calendar: calendar).map(\.text)
            }

            it("lists open ones by due date (overdue first), then undated ones oldest first") {
                expect(texts { _ in }) == [
                    "Pay rent", "Buy milk", "Buy bread", "Buy stamps", "Call Anna", "Write letter",
                ]
            }
            it("takes due conditions as alternatives") {
                expect(texts { $0.overdue = true }) == ["Pay rent"]
                expect(texts { $0.dueToday = true }) == ["Buy milk"]
                expect(texts { $0.dueThisWeek = true }) == ["Buy milk", "Buy bread"]
                expect(
                    texts {
                        $0.overdue = true
                        $0.dueToday = true
                    }) == ["Pay rent", "Buy milk"]
                expect(texts { $0.dueBefore = at("2026-11-26T00:00:00.000Z") }) == ["Pay rent", "Buy milk"]
            }
            it("takes a time gone by today as overdue, and a day without a time only once it has ended") {
                let bank = Entry.todo(todo("Call the bank", due: "2026-11-25T09:00:00.000Z"))
                let anna = Entry.todo(todo("Call Anna", due: "2026-11-25T19:00:00.000Z"))
                var filter = EntryFilter()
                filter.overdue = true
                expect(filter.apply(to: entries + [anna, bank], now: now, calendar: calendar).map(\.text))
                    == ["Pay rent", "Call the bank"]
                filter.overdue = false
                filter.dueToday = true
                expect(filter.apply(to: entries + [anna, bank], now: now, calendar: calendar).map(\.text))
                    == ["Call the bank", "Buy milk", "Call Anna"]
            }
            it("needs every word in the text, in any case, and every other condition too") {
                expect(texts { $0.words = ["BUY"] }) == ["Buy milk", "Buy bread", "Buy stamps"]
                expect(
                    texts {
                        $0.words = ["buy"]
                        $0.dueThisWeek = true
                    }) == ["Buy milk", "Buy bread"]
                expect(texts { $0.words = ["buy", "BREAD"] }) == ["Buy bread"]
                expect(
                    texts {
                        $0.words = ["buy"]
                        $0.limit = 2
                    }) == ["Buy milk", "Buy bread"]
            }
            it("finds what was done since a date, and done or all ones by status") {
                expect(
                    texts {
                        $0.status = .done
                        $0.doneSince = at("2026-11-20T00:00:00.000Z")
                    }) == ["Mailed parcel"]
                expect(texts { $0.status = .done }) == ["Mailed card", "Mailed parcel"]
                expect(
                    texts {
                        $0.status = .all
                        $0.words = ["mailed"]
                    }
                ).to(haveCount(2))
            }
        }
    }
}
