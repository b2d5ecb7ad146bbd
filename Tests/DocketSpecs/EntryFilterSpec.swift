import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// The filter and order of a listing, from the library, at a fixed moment: what a Taskwarrior user narrows a list by
/// (tags to have and to lack, priorities, a project, a due range), how a saved filter joins what is typed, and
/// `--sort`'s keys.
final class EntryFilterSpec: QuickSpec {
    override class func spec() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        // Wednesday 2026-11-25, 15:00 UTC.
        let now = ISODate.date(from: "2026-11-25T15:00:00.000Z")!
        func at(_ text: String) -> Date { ISODate.date(from: text)! }
        func todo(
            _ text: String, due: String? = nil, tags: [String] = [], priority: Priority? = nil,
            made: String = "2026-11-01T00:00:00.000Z", changed: String? = nil, done: Bool = false
        ) -> Entry {
            .todo(
                TodoItem(
                    id: UUID(), text: text, creationDate: at(made), completed: done, dueDate: due.map(at),
                    alterDate: changed.map(at), tags: tags, priority: priority))
        }
        let party = Project(id: UUID(), title: "Party", tasks: [], alterDate: nil)
        let garden = Project(id: UUID(), title: "Garden", tasks: [], alterDate: nil)
        func task(_ title: String, of project: Project, tags: [String] = [], priority: Priority? = nil) -> Entry {
            .task(
                ProjectTask(
                    id: UUID(), title: title, dueDate: .unknown, state: .unfinished, timeSlips: [], alterDate: nil,
                    tags: tags, priority: priority),
                project: project)
        }

        let entries = [
            todo("Buy milk", due: "2026-11-25T12:00:00.000Z", tags: ["errand", "home"], priority: .medium),
            todo("Write report", due: "2026-11-27T12:00:00.000Z", tags: ["work"], priority: .high),
            todo("Fix bike", tags: ["home", "someday"], priority: .low),
            todo("Call Anna", due: "2026-11-30T09:00:00.000Z"),
            todo("Plan trip", tags: ["someday"]),
            task("Buy beer", of: party, tags: ["errand"], priority: .high),
            task("Dig bed", of: garden),
        ]
        func texts(_ change: (inout EntryFilter) -> Void) -> [String] {
            var filter = EntryFilter()
            change(&filter)
            return filter.apply(to: entries, now: now, calendar: calendar).map(\.text)
        }

        describe("EntryFilter") {
            it("keeps those with every tag asked for and none of the tags left out") {
                expect(texts { $0.tags = ["home"] }) == ["Buy milk", "Fix bike"]
                expect(texts { $0.excludedTags = ["someday"] }) == [
                    "Buy milk", "Write report", "Call Anna", "Buy beer", "Dig bed",
                ]
                expect(
                    texts {
                        $0.tags = ["home"]
                        $0.excludedTags = ["someday"]
                    }) == ["Buy milk"]
            }
            it("takes a tag no item has as a tag nothing has: none kept, or none left out") {
                expect(texts { $0.tags = ["nosuchtag"] }) == []
                expect(texts { $0.excludedTags = ["nosuchtag"] }).to(haveCount(entries.count))
            }
            it("keeps one of the priorities asked for, none being one of them") {
                expect(texts { $0.priorities = [.high] }) == ["Write report", "Buy beer"]
                expect(texts { $0.priorities = [.low, nil] }) == ["Call Anna", "Fix bike", "Dig bed", "Plan trip"]
                expect(texts { $0.priorities = [] }) == []
            }
            it("keeps only the tasks of the projects named, since a todo belongs to none") {
                expect(texts { $0.projects = [party.id] }) == ["Buy beer"]
                expect(texts { $0.projects = [party.id, garden.id] }) == ["Buy beer", "Dig bed"]
            }
            it("keeps a due range from its start, up to but not at its end, and no undated ones") {
                expect(
                    texts {
                        $0.dueFrom = at("2026-11-25T12:00:00.000Z")
                        $0.dueBefore = at("2026-11-30T09:00:00.000Z")
                    }) == ["Buy milk", "Write report"]
                expect(texts { $0.dueFrom = at("2026-11-26T00:00:00.000Z") }) == ["Write report", "Call Anna"]
            }
            it("needs every condition to hold at once") {
                expect(
                    texts {
                        $0.tags = ["errand"]
                        $0.priorities = [.high]
                        $0.words = ["buy"]
                    }) == ["Buy beer"]
            }

            describe("and") {
                it("admits exactly what both filters admit, whatever each holds") {
                    let words = ["buy", "milk", "café", "anna"]
                    let tags = ["errand", "home", "work"]
                    let projects = [UUID(), UUID()]
                    func randomDate(_ g: inout SeededGenerator) -> Date {
                        now.addingTimeInterval(Double(Int.random(in: -10...10, using: &g)) * 43_200)
                    }
                    func some<T>(_ values: [T], _ g: inout SeededGenerator) -> [T] {
                        values.filter { _ in Int.random(in: 0..<3, using: &g) == 0 }
                    }
                    func maybe<T>(_ g: inout SeededGenerator, _ make: (inout SeededGenerator) -> T) -> T? {
                        Bool.random(using: &g) ? make(&g) : nil
                    }
                    // Each condition is set now and then, so that most pairs of filters admit something.
                    func rarely(_ g: inout SeededGenerator) -> Bool { Int.random(in: 0..<4, using: &g) == 0 }
                    func filter(_ g: inout SeededGenerator) -> EntryFilter {
                        var filter = EntryFilter()
                        filter.status = [.open, .done, .all, .all].randomElement(using: &g)!
                        filter.overdue = rarely(&g)
                        filter.dueToday = rarely(&g)
                        filter.dueThisWeek = rarely(&g)
                        if rarely(&g) { filter.dueBefore = randomDate(&g) }
                        if rarely(&g) { filter.dueFrom = randomDate(&g) }
                        if rarely(&g) { filter.doneSince = randomDate(&g) }
                        if rarely(&g) { filter.words = some(words, &g) }
                        if rarely(&g) { filter.tags = some(tags, &g) }
                        if rarely(&g) { filter.excludedTags = some(tags, &g) }
                        if rarely(&g) { filter.priorities = Set(some([Priority.high, .medium, .low, nil], &g)) }
                        if rarely(&g) { filter.projects = Set(some(projects, &g)) }
                        filter.waiting = [.hidden, .shown, .shown, .only].randomElement(using: &g)!
                        if rarely(&g) { filter.readiness = [.blocked, .ready].randomElement(using: &g)! }
                        return filter
                    }
                    // Now and then an entry waits, is scheduled, or depends on one made before it.
                    func planned(_ entry: Entry, after earlier: [Entry], _ g: inout SeededGenerator) -> Entry {
                        let wait = rarely(&g) ? DueDate(randomDate(&g)) : DueDate.unknown
                        let scheduled = rarely(&g) ? DueDate(randomDate(&g)) : DueDate.unknown
                        let depends = rarely(&g) ? some(earlier.map(\.id), &g) : []
                        switch entry {
                        case let .todo(todo):
                            return .todo(
                                todo.alter(.wait(wait), .scheduled(scheduled), .depending(add: depends, remove: [])))
                        case let .task(task, project):
                            return .task(
                                task.alter(
                                    by: .setting(.waitDate(to: wait)), .setting(.scheduledDate(to: scheduled)),
                                    .depending(add: depends, remove: [])), project: project)
                        }
                    }
                    func entry(_ g: inout SeededGenerator) -> Entry {
                        let text = some(words, &g).joined(separator: " ")
                        let due = maybe(&g, randomDate)
                        let done = Bool.random(using: &g)
                        let tagged = some(tags, &g)
                        let priority = [Priority.high, .medium, .low, nil].randomElement(using: &g)!
                        let completed = done ? maybe(&g, randomDate) : nil
                        if Bool.random(using: &g) {
                            return .todo(
                                TodoItem(
                                    id: UUID(), text: text, creationDate: now, completed: done, dueDate: due,
                                    alterDate: randomDate(&g), tags: tagged, priority: priority,
                                    completedDate: completed))
                        }
                        let project = Project(
                            id: projects.randomElement(using: &g)!, title: "P", tasks: [], alterDate: nil)
                        return .task(
                            ProjectTask(
                                id: UUID(), title: text, dueDate: DueDate(due), state: done ? .finished : .unfinished,
                                timeSlips: [], alterDate: randomDate(&g), tags: tagged, priority: priority,
                                completedDate: completed),
                            project: project)
                    }
                    forAll(300) { g in
                        let (a, b) = (filter(&g), filter(&g))
                        let both = a.and(b)
                        var entries: [Entry] = []
                        for _ in 0..<50 { entries.append(planned(entry(&g), after: entries, &g)) }
                        let todos = entries.compactMap { if case let .todo(todo) = $0 { todo } else { nil } }
                        let tasks = entries.compactMap { if case let .task(task, _) = $0 { task } else { nil } }
                        let blocking = Blocking(
                            todos: todos, projects: [Project(id: UUID(), title: "All", tasks: tasks, alterDate: nil)])
                        for e in entries {
                            func admitted(_ filter: EntryFilter) -> Bool {
                                filter.admits(e, now: now, calendar: calendar, blocking: blocking)
                            }
                            let expected = admitted(a) && admitted(b)
                            if admitted(both) != expected { return "\(a) and \(b) gives \(!expected) for \(e)" }
                        }
                        return nil
                    }
                }
                it("keeps the order typed, else the saved one's, and the smaller limit") {
                    var typed = EntryFilter()
                    typed.limit = 5
                    var saved = EntryFilter()
                    saved.order = EntryOrder([.init(.text)])
                    saved.limit = 3
                    expect(typed.and(saved).order) == saved.order
                    expect(typed.and(saved).limit) == 3
                    typed.order = EntryOrder([.init(.due, descending: true)])
                    expect(typed.and(saved).order) == typed.order
                }
            }
        }

        describe("EntryOrder") {
            func sorted(_ text: String) -> [String] {
                let terms = text.split(separator: ",").map { EntryOrder.Term(text: String($0))! }
                return EntryOrder(terms).sorted(entries).map(\.text)
            }
            it(
                "keeps list order by default: by due date, then priority, then oldest first (a task without a date first)"
            ) {
                expect(EntryOrder.list.sorted(entries).map(\.text)) == [
                    "Buy milk", "Write report", "Call Anna", "Buy beer", "Fix bike", "Dig bed", "Plan trip",
                ]
            }
            it("sorts by a key in the order a person reads it first, and reversed with -") {
                expect(sorted("priority")) == ["Write report", "Buy beer", "Buy milk", "Fix bike"] + [
                    "Call Anna", "Dig bed", "Plan trip",
                ]
                expect(Array(sorted("-priority").prefix(4))) == ["Fix bike", "Buy milk", "Write report", "Buy beer"]
                expect(sorted("text")) == [
                    "Buy beer", "Buy milk", "Call Anna", "Dig bed", "Fix bike", "Plan trip", "Write report",
                ]
                expect(Array(sorted("-due").prefix(3))) == ["Call Anna", "Write report", "Buy milk"]
            }
            it("puts what lacks the key last either way, in list order") {
                expect(Array(sorted("due").suffix(4))) == ["Buy beer", "Fix bike", "Dig bed", "Plan trip"]
                expect(Array(sorted("-due").suffix(4))) == ["Buy beer", "Fix bike", "Dig bed", "Plan trip"]
            }
            it("breaks ties by the next key, then list order, whatever order the entries come in") {
                let ordered = EntryOrder([.init(.priority), .init(.text, descending: true)])
                let once = ordered.sorted(entries).map(\.text)
                expect(Array(once.prefix(2))) == ["Write report", "Buy beer"]
                var g = SeededGenerator(seed: 7)
                for _ in 0..<20 { expect(ordered.sorted(entries.shuffled(using: &g)).map(\.text)) == once }
            }
            it("sorts by when items were made and last changed, a task made before creation dates last") {
                let old = todo("Old", made: "2026-01-01T00:00:00.000Z", changed: "2026-11-20T00:00:00.000Z")
                let new = todo("New", made: "2026-11-01T00:00:00.000Z")
                let beer = task("Beer", of: party)
                expect(EntryOrder([.init(.created)]).sorted([beer, new, old]).map(\.text)) == ["Old", "New", "Beer"]
                expect(EntryOrder([.init(.modified, descending: true)]).sorted([beer, old, new]).map(\.text)) == [
                    "Old", "New", "Beer",
                ]
            }
            it("reads a key with + or - before it, and no other word") {
                expect(EntryOrder.Term(text: "+due")) == EntryOrder.Term(.due)
                expect(EntryOrder.Term(text: "-Priority")) == EntryOrder.Term(.priority, descending: true)
                expect(EntryOrder.Term(text: "urgency")).to(beNil())
                expect(EntryOrder([.init(.priority, descending: true), .init(.due)]).description) == "-priority,due"
            }
        }
    }
}
