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
    /// Open todos and unfinished tasks that wait until a later date, left out of the lists above; soonest first.
    public let waiting: [Entry]
    /// Which items block which.
    public let blocking: Blocking

    /// The agenda of these todos and projects at `now`.
    public init(todos: [TodoItem], projects: [Project], now: Date, soonDays: Int = 7, calendar: Calendar = .current) {
        let startOfToday = calendar.startOfDay(for: now)
        let tomorrow = calendar.date(byAdding: .day, value: 1, to: startOfToday)!
        let horizon = calendar.date(byAdding: .day, value: soonDays, to: tomorrow)!
        var overdue: [Entry] = []
        var today: [Entry] = []
        var soon: [Entry] = []
        var open: [Entry] = []
        var waiting: [Entry] = []
        for todo in todos where !todo.completed {
            let entry = Entry.todo(todo)
            if entry.isWaiting(at: now) {
                waiting.append(entry)
                continue
            }
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
                if let slip = task.runningSlip { running.append(Running(task: entry, since: slip.start)) }
                if entry.isWaiting(at: now) {
                    waiting.append(entry)
                    continue
                }
                switch task.dueDate.date {
                case let due? where due < startOfToday: overdue.append(entry)
                case let due? where due < tomorrow: today.append(entry)
                case let due? where due < horizon: soon.append(entry)
                default: break
                }
            }
        }
        self.overdue = Entry.inListOrder(overdue)
        self.today = Entry.inListOrder(today)
        self.soon = Entry.inListOrder(soon)
        self.running = running.sorted { $0.since < $1.since }
        self.open = Entry.inListOrder(open)
        self.waiting = waiting.sorted {
            ($0.waitDate ?? now, $0.id.uuidString) < ($1.waitDate ?? now, $1.id.uuidString)
        }
        self.blocking = Blocking(todos: todos, projects: projects)
    }

    private enum CodingKeys: String, CodingKey { case overdue, today, soon, running, open, waiting }

    /// Whether there is nothing to do.
    public var isEmpty: Bool { overdue.isEmpty && today.isEmpty && soon.isEmpty && running.isEmpty && open.isEmpty }
}

extension Store {
    /// The day's view of the store at `now`: todos from `loadTodos` (its cache), projects from their files.
    public func agenda(now: Date = DocketClock.now, soonDays: Int = 7, calendar: Calendar = .current) throws -> (
        agenda: Agenda, problems: [StoreProblem]
    ) {
        let (todos, todoProblems) = try loadTodos()
        let (projects, projectProblems) = try loadProjects()
        return (
            Agenda(todos: todos, projects: projects, now: now, soonDays: soonDays, calendar: calendar),
            todoProblems + projectProblems
        )
    }

    /// The todos (and with `tasksOf`, those projects' tasks instead) that `filter` shows, in list order, with
    /// which of the store's items block which.
    public func entries(
        _ filter: EntryFilter, tasksOf projects: [UUID]? = nil, now: Date = DocketClock.now,
        calendar: Calendar = .current
    ) throws -> (entries: [Entry], problems: [StoreProblem], blocking: Blocking) {
        let (todos, problems) = try loadTodos()
        let (all, projectProblems) = try loadProjects()
        let blocking = Blocking(todos: todos, projects: all)
        if let projects {
            let chosen = try projects.map { try self.project($0) }.flatMap { project in
                project.tasks.map { Entry.task($0, project: project) }
            }
            return (filter.apply(to: chosen, now: now, calendar: calendar), [], blocking)
        }
        // NB: a task file that does not read is named by the listings that show tasks, not by a list of todos.
        _ = projectProblems
        return (filter.apply(to: todos.map(Entry.todo), now: now, calendar: calendar), problems, blocking)
    }
}
