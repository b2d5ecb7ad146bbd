import DocketModel
import Foundation

/// The day's view: what needs doing, most pressing first.
public struct Agenda: Sendable, Encodable {
    /// A task with a running time slip.
    public struct Running: Sendable, Encodable {
        /// The task, with its project.
        public let task: Entry
        /// When the slip started.
        @MillisecondDate public var since: Date
    }

    /// Open todos and unfinished tasks whose due date has passed: a day that has ended, or a time gone by.
    public let overdue: [Entry]
    /// Due later today (a day without a time is due all day: it is not overdue before the day ends).
    public let today: [Entry]
    /// Due in the next `soonDays` days after today.
    public let soon: [Entry]
    /// Tasks whose time is being recorded.
    public let running: [Running]
    /// The other open todos: undated, or due later.
    public let open: [Entry]

    /// The agenda of these todos and projects at `now`: of the open ones that `filter` admits, each part in the
    /// filter's order.
    public init(
        todos: [TodoItem], projects: [Project], now: Date, soonDays: Int = 7,
        calendar: Calendar = DocketClock.calendar, filter: EntryFilter = EntryFilter()
    ) {
        let days = EntryFilter.Days(now: now, calendar: calendar)
        let today = days.today
        let horizon = today.adding(days: soonDays + 1)
        var overdue: [Entry] = []
        var dueToday: [Entry] = []
        var soon: [Entry] = []
        var open: [Entry] = []
        var running: [Running] = []
        func place(_ entry: Entry, due: DueDate, openIfLater: Bool) {
            let day = due.day(in: calendar.timeZone)
            if due.isOverdue(at: now, calendar: calendar) {
                overdue.append(entry)
            } else if day == today {
                dueToday.append(entry)
            } else if let day, day < horizon {
                soon.append(entry)
            } else if openIfLater {
                open.append(entry)
            }
        }
        for todo in todos where !todo.completed {
            let entry = Entry.todo(todo)
            guard filter.admits(entry, days: days) else { continue }
            place(entry, due: todo.due, openIfLater: true)
        }
        for project in projects {
            for task in project.tasks where task.state != .finished {
                let entry = Entry.task(task, project: project)
                guard filter.admits(entry, days: days) else { continue }
                if let slip = task.runningSlip { running.append(Running(task: entry, since: slip.start)) }
                place(entry, due: task.dueDate, openIfLater: false)
            }
        }
        self.overdue = filter.order.sorted(overdue)
        self.today = filter.order.sorted(dueToday)
        self.soon = filter.order.sorted(soon)
        self.running = running.sorted { $0.since < $1.since }
        self.open = filter.order.sorted(open)
    }

    /// Whether there is nothing to do.
    public var isEmpty: Bool { overdue.isEmpty && today.isEmpty && soon.isEmpty && running.isEmpty && open.isEmpty }
}

extension Store {
    /// The day's view of the store at `now`, of what `filter` admits: todos from `loadTodos` (its cache), projects
    /// from their files.
    public func agenda(
        now: Date = DocketClock.now, soonDays: Int = 7, calendar: Calendar = DocketClock.calendar,
        filter: EntryFilter = EntryFilter()
    ) throws -> (agenda: Agenda, problems: [StoreProblem]) {
        let (todos, todoProblems) = try loadTodos()
        let (projects, projectProblems) = try loadProjects()
        return (
            Agenda(
                todos: todos, projects: projects, now: now, soonDays: soonDays, calendar: calendar, filter: filter),
            todoProblems + projectProblems
        )
    }

    /// The todos that `filter` shows (or, when it names projects, those projects' tasks instead), in its order.
    public func entries(
        _ filter: EntryFilter, now: Date = DocketClock.now, calendar: Calendar = DocketClock.calendar
    ) throws -> (entries: [Entry], problems: [StoreProblem]) {
        if let projects = filter.projects {
            let chosen = try projects.sorted { $0.precedes($1) }.map { try self.project($0) }.flatMap { project in
                project.tasks.map { Entry.task($0, project: project) }
            }
            return (filter.apply(to: chosen, now: now, calendar: calendar), [])
        }
        let (todos, problems) = try loadTodos()
        return (filter.apply(to: todos.map(Entry.todo), now: now, calendar: calendar), problems)
    }
}
