import DocketModel
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// Two items to depend on, and dates as the specs below write them: a moment (`at`) or a day.
private let (bread, eggs) = (
    UUID(uuidString: "11111111-1111-4111-8111-111111111111")!,
    UUID(uuidString: "22222222-2222-4222-8222-222222222222")!
)
private func at(_ text: String) -> DueDate { .date(ISODate.date(from: text)!) }
private func day(_ text: String) -> DueDate { .day(CalendarDay(text)!) }

/// A todo's and a task's wait date, scheduled date and dependencies, through their Change DSLs.
final class PlanningSpec: QuickSpec {
    override class func spec() {
        var clock: SeededWorld!
        beforeEach { clock = SeededWorld(seed: 3) }
        afterEach { clock.uninstall() }
        var utc: Calendar {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            return calendar
        }

        describe("a todo") {
            itBehavesLike(PlanningBehavior.self) { .init { TodoItem(text: $0) } }
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
            itBehavesLike(PlanningBehavior.self) { .init { ProjectTask(title: $0) } }
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

        describe("a todo and a task alike") {
            /// A shared change of every kind, with values drawn from `g`.
            func sharedChange(_ g: inout SeededGenerator, notes: [UUID]) -> SharedChange {
                let ids = [bread, eggs, RandomValues.uuid(&g)]
                switch Int.random(in: 0..<10, using: &g) {
                case 0: return .text(RandomValues.text(&g))
                case 1: return .due(RandomValues.due(&g))
                case 2: return .wait(RandomValues.due(&g))
                case 3: return .scheduled(RandomValues.due(&g))
                case 4: return .tagging(add: [RandomValues.text(&g)], remove: [])
                case 5: return .priority(Priority.allCases.randomElement(using: &g))
                case 6: return .recurrence(Bool.random(using: &g) ? RandomValues.recurrence(&g) : nil)
                case 7:
                    return .depending(
                        add: [ids.randomElement(using: &g)!], remove: Bool.random(using: &g) ? [bread] : [])
                case 8:
                    if let note = notes.randomElement(using: &g), Bool.random(using: &g) {
                        return .noting(
                            Bool.random(using: &g) ? .edit(note, text: RandomValues.text(&g)) : .remove(note))
                    }
                    return .noting(.add(Note(text: RandomValues.text(&g))))
                default: return .claim(Bool.random(using: &g) ? RandomValues.claim(&g) : nil)
                }
            }
            /// What a todo and a task share, as one line to compare.
            func shared(_ item: some PlannedItem) -> String {
                [
                    item.plannedText, "\(item.plannedDue)", "\(item.waitDate)", "\(item.scheduledDate)",
                    "\(item.dependencies)", "\(item.priority as Any)", "\(item.tags)",
                    "\(item.notes.map { [$0.id.uuidString, $0.text] })", "\(item.recurrence as Any)",
                    "\(item.claim as Any)",
                ].joined(separator: " | ")
            }
            it("take every shared change the same way, field for field, and each alters both or neither") {
                forAll(200) { g in
                    var todo = TodoItem(text: "Plan")
                    var task = ProjectTask(title: "Plan")
                    for step in 0..<Int.random(in: 1...12, using: &g) {
                        let change = sharedChange(&g, notes: todo.notes.map(\.id))
                        let (oldTodo, oldTask) = (todo, task)
                        clock.advance(1)
                        todo = todo.altered(by: [change])
                        task = task.altered(by: [change])
                        guard shared(todo) == shared(task) else {
                            return "step \(step), \(change): todo \(shared(todo)), task \(shared(task))"
                        }
                        guard (todo.alterDate != oldTodo.alterDate) == (task.alterDate != oldTask.alterDate) else {
                            return "step \(step), \(change) altered only one of them"
                        }
                    }
                    return nil
                }
            }
        }
    }
}

/// What a todo and a task do alike with their wait and scheduled dates and dependencies, changed through
/// `SharedChange`: `PlanningSpec` runs these examples once with each kind.
final class PlanningBehavior: Behavior<PlanningBehavior.Kind> {
    /// A kind of item: how a new one with a text is made.
    struct Kind {
        let make: (String) -> any PlannedItem
    }

    override class func spec(_ kind: @escaping () -> Kind) {
        var clock: SeededWorld!
        beforeEach { clock = SeededWorld(seed: 3) }
        afterEach { clock.uninstall() }
        func same<Item: PlannedItem>(_ a: Item, _ b: any PlannedItem) -> Bool { (b as? Item) == a }

        describe("planning") {
            it("sets and clears its wait and scheduled dates, each an alteration, and leaves the rest alone") {
                let item = kind().make("Paint the fence")
                clock.advance(5)
                let waiting = item.altered(by: [.wait(day("2026-11-28")), .scheduled(at("2026-11-29T09:00:00Z"))])
                expect(waiting.waitDate) == day("2026-11-28")
                expect(waiting.scheduledDate) == at("2026-11-29T09:00:00Z")
                expect(waiting.alterDate) > clock.now
                expect(waiting.plannedText) == item.plannedText
                expect(waiting.plannedDue) == .unknown
                let cleared = waiting.altered(by: [.wait(.unknown), .scheduled(.unknown)])
                expect(cleared.waitDate) == .unknown
                expect(cleared.scheduledDate) == .unknown
            }
            it("is unchanged, alterDate and all, when given the wait, schedule and dependencies it has") {
                let item = kind().make("x").altered(by: [
                    .wait(day("2026-11-28")), .depending(add: [bread], remove: []),
                ])
                clock.advance(5)
                let again = item.altered(by: [
                    .wait(item.waitDate), .scheduled(.unknown), .depending(add: [bread], remove: [eggs]),
                ])
                expect(same(again, item)) == true
            }
            it("keeps a wait for a day apart from one at that day's first moment") {
                let onDay = kind().make("x").altered(by: [.wait(day("2026-11-28"))])
                clock.advance(5)
                let moment = onDay.altered(by: [.wait(at("2026-11-28T00:00:00Z"))])
                expect(same(moment, onDay)) == false
                expect(moment.waitDate.hasTime) == true
            }
            it("adds and removes dependencies as a set, sorted, each once") {
                let item = kind().make("x").altered(by: [.depending(add: [eggs, bread, eggs], remove: [])])
                expect(item.dependencies) == [bread, eggs]
                expect(item.altered(by: [.depending(add: [], remove: [eggs])]).dependencies) == [bread]
            }
        }
    }
}
