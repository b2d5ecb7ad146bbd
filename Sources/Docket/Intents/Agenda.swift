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

    /// Open todos and unfinished tasks due on an earlier day.
    public let overdue: [Entry]
    /// Due today, at any hour (a day without a time is due at noon; it is not overdue in the afternoon).
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
        todos: [TodoItem], projects: [Project], now: Date, soonDays: Int = 7, calendar: Calendar = .current,
        filter: EntryFilter = EntryFilter()
    ) {
        let days = EntryFilter.Days(now: now, calendar: calendar)
        let startOfToday = calendar.startOfDay(for: now)
        let tomorrow = calendar.date(byAdding: .day, value: 1, to: startOfToday)!
        let horizon = calendar.date(byAdding: .day, value: soonDays, to: tomorrow)!
        var overdue: [Entry] = []
        var today: [Entry] = []
        var soon: [Entry] = []
        var open: [Entry] = []
        for todo in todos where !todo.completed {
            let entry = Entry.todo(todo)
            guard filter.admits(entry, days: days) else { continue }
            switch todo.dueDate {
            case let due? where due < startOfToday: overdue.append(entry)
            case let due? where due < tomorrow: today.append(entry)
            case let due? where due < horizon: soon.append(entry)
            default: open.append(entry)
            }
        }
        var running: [Running] = []
        for project in projects {
            for task in project.tasks where task.state != .finished {
                let entry = Entry.task(task, project: project)
                guard filter.admits(entry, days: days) else { continue }
                if let slip = task.runningSlip { running.append(Running(task: entry, since: slip.start)) }
                switch task.dueDate.date {
                case let due? where due < startOfToday: overdue.append(entry)
                case let due? where due < tomorrow: today.append(entry)
                case let due? where due < horizon: soon.append(entry)
                default: break
                }
            }
        }
        self.overdue = filter.order.sorted(overdue)
        self.today = filter.order.sorted(today)
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
        now: Date = DocketClock.now, soonDays: Int = 7, calendar: Calendar = .current,
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
    public func entries(_ filter: EntryFilter, now: Date = DocketClock.now, calendar: Calendar = .current) throws -> (
        entries: [Entry], problems: [StoreProblem]
    ) {
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
