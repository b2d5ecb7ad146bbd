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
    /// The other open todos, and tasks in progress with no running slip: undated, or due later.
    public let open: [Entry]
    /// Open todos and unfinished tasks that wait until a later date, left out of the lists above; soonest first.
    public let waiting: [Entry]
    /// Which items block which.
    public let blocking: Blocking

    /// The agenda of these todos and projects at `now`: of the open ones that `filter` admits, each part in the
    /// filter's order.
    public init(
        todos: [TodoItem], projects: [Project], now: Date, soonDays: Int = 7,
        calendar: Calendar = DocketClock.calendar, filter: EntryFilter = EntryFilter()
    ) {
        let days = EntryFilter.Days(now: now, calendar: calendar)
        let blocking = Blocking(todos: todos, projects: projects)
        // Waiting items are admitted as the others are, and set apart below.
        var admitting = filter
        admitting.waiting = .shown
        let today = days.today
        let horizon = today.adding(days: soonDays + 1)
        var overdue: [Entry] = []
        var dueToday: [Entry] = []
        var soon: [Entry] = []
        var open: [Entry] = []
        var waiting: [Entry] = []
        var running: [Running] = []
        func place(_ entry: Entry, due: DueDate, openIfLater: Bool) {
            let day = due.day(in: calendar.timeZone)
            if entry.isWaiting(at: now, zone: calendar.timeZone) {
                waiting.append(entry)
            } else if due.isOverdue(at: now, calendar: calendar) {
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
            guard admitting.admits(entry, days: days, blocking: blocking) else { continue }
            place(entry, due: todo.due, openIfLater: true)
        }
        for project in projects {
            for task in project.tasks where task.state != .finished {
                let entry = Entry.task(task, project: project)
                guard admitting.admits(entry, days: days, blocking: blocking) else { continue }
                if let slip = task.runningSlip { running.append(Running(task: entry, since: slip.start)) }
                // NB: a task in progress is open work, with or without a due date; one whose slip runs is under
                // running already.
                place(entry, due: task.dueDate, openIfLater: task.state == .inProgress && task.runningSlip == nil)
            }
        }
        self.overdue = filter.order.sorted(overdue)
        self.today = filter.order.sorted(dueToday)
        self.soon = filter.order.sorted(soon)
        self.running = running.sorted { $0.since < $1.since }
        self.open = filter.order.sorted(open)
        let zone = calendar.timeZone
        self.waiting = waiting.sorted {
            ($0.waitDate.start(in: zone) ?? now, $0.id.uuidString) < (
                $1.waitDate.start(in: zone) ?? now, $1.id.uuidString
            )
        }
        self.blocking = blocking
    }

    private enum CodingKeys: String, CodingKey { case overdue, today, soon, running, open, waiting }

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
        // NB: the day's view shows open work only: done todos are not decoded (see `loadTodos(openOnly:)`).
        let (todos, todoProblems) = try loadTodos(openOnly: true)
        let (projects, projectProblems) = try loadProjects()
        return (
            Agenda(
                todos: todos, projects: projects, now: now, soonDays: soonDays, calendar: calendar, filter: filter),
            todoProblems + projectProblems
        )
    }

    /// The todos that `filter` shows (or, when it names projects, those projects' tasks instead), in its order, with
    /// which of the store's items block which.
    public func entries(
        _ filter: EntryFilter, now: Date = DocketClock.now, calendar: Calendar = DocketClock.calendar
    ) throws -> (entries: [Entry], problems: [StoreProblem], blocking: Blocking) {
        // NB: blocking and readiness depend on open items only, so a listing of open todos decodes no done one.
        let (todos, problems) = try loadTodos(openOnly: filter.status == .open)
        let (all, _) = try loadProjects()
        if let projects = filter.projects {
            for id in projects where !all.contains(where: { $0.id == id }) { _ = try project(id) }
        }
        let (entries, blocking) = filter.entries(todos: todos, projects: all, now: now, calendar: calendar)
        // NB: a task file that does not read is named by the listings that show tasks, not by a list of todos.
        return (entries, filter.projects == nil ? problems : [], blocking)
    }
}

extension EntryFilter {
    /// The todos this filter shows (or, when it names projects, those projects' tasks instead) among `todos` and
    /// `projects`, in its order, with which items block which: what `docket list` shows, and `StoreQueue.entries`.
    public func entries(
        todos: [TodoItem], projects: [Project], now: Date = DocketClock.now, calendar: Calendar = DocketClock.calendar
    ) -> (entries: [Entry], blocking: Blocking) {
        let blocking = Blocking(todos: todos, projects: projects)
        if let chosen = self.projects {
            let tasks = projects.filter { chosen.contains($0.id) }.sorted { $0.id.precedes($1.id) }.flatMap { project in
                project.tasks.map { Entry.task($0, project: project) }
            }
            return (apply(to: tasks, now: now, calendar: calendar, blocking: blocking), blocking)
        }
        return (apply(to: todos.map(Entry.todo), now: now, calendar: calendar, blocking: blocking), blocking)
    }
}
