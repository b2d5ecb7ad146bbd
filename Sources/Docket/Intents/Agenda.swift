import DocketModel
import Foundation

/// Something to do: a todo, or a project's task with its project.
public enum Entry: Sendable, Equatable, Encodable {
    case todo(TodoItem)
    case task(ProjectTask, project: Project)

    /// The item's id.
    public var id: UUID {
        switch self {
        case let .todo(todo): todo.id
        case let .task(task, _): task.id
        }
    }

    /// When it is due.
    public var dueDate: Date? {
        switch self {
        case let .todo(todo): todo.dueDate
        case let .task(task, _): task.dueDate.date
        }
    }

    /// Whether it is done (a finished task).
    public var isDone: Bool {
        switch self {
        case let .todo(todo): todo.completed
        case let .task(task, _): task.state == .finished
        }
    }

    /// Its text or title.
    public var text: String {
        switch self {
        case let .todo(todo): todo.text
        case let .task(task, _): task.title
        }
    }

    /// When it was made: a todo's creation date; a task has none, so its first slip or the distant past.
    var madeAt: Date {
        switch self {
        case let .todo(todo): todo.creationDate
        case let .task(task, _): task.timeSlips.first?.start ?? .distantPast
        }
    }

    public static func == (a: Entry, b: Entry) -> Bool {
        switch (a, b) {
        case let (.todo(x), .todo(y)): x == y
        case let (.task(x, p), .task(y, q)): x == y && p.id == q.id
        default: false
        }
    }

    private enum Keys: String, CodingKey { case kind, project }
    private struct ProjectRef: Encodable { let id: UUID; let title: String }

    /// The item as in its file, with `kind` ("todo" or "task") and, for a task, `project` ({id, title}).
    public func encode(to encoder: Encoder) throws {
        var keys = encoder.container(keyedBy: Keys.self)
        switch self {
        case let .todo(todo):
            try keys.encode("todo", forKey: .kind)
            try todo.encode(to: encoder)
        case let .task(task, project):
            try keys.encode("task", forKey: .kind)
            try keys.encode(ProjectRef(id: project.id, title: project.title), forKey: .project)
            try task.encode(to: encoder)
        }
    }
}

/// Which todos (or tasks) a listing shows. Due conditions are alternatives
/// (overdue or due today); every other condition must hold as well.
public struct EntryFilter: Sendable, Equatable {
    /// Open, done, or both.
    public enum Status: Sendable, Equatable { case open, done, all }

    public var status: Status = .open
    /// Due on an earlier day than today (and open).
    public var overdue = false
    /// Due today.
    public var dueToday = false
    /// Due from today to the end of this week (Sunday).
    public var dueThisWeek = false
    /// Due before this date.
    public var dueBefore: Date?
    /// Words that must all appear in the text, in any case.
    public var words: [String] = []
    /// Done on or after this date (for a todo: its last change, which is when it was done unless edited since).
    public var doneSince: Date?
    /// At most this many.
    public var limit: Int?

    public init() {}

    /// Whether any due condition is set.
    var hasDueCondition: Bool { overdue || dueToday || dueThisWeek || dueBefore != nil }

    /// Whether `entry` is shown at `now`.
    public func admits(_ entry: Entry, now: Date, calendar: Calendar = .current) -> Bool {
        switch status {
        case .open where entry.isDone, .done where !entry.isDone: return false
        default: break
        }
        if hasDueCondition {
            guard let due = entry.dueDate else { return false }
            let today = calendar.startOfDay(for: now)
            let tomorrow = calendar.date(byAdding: .day, value: 1, to: today)!
            // The week ends on Sunday night, whatever day the calendar starts its weeks on.
            let weekday = calendar.component(.weekday, from: today)  // 1 is Sunday
            let toMonday = (9 - weekday) % 7 == 0 ? 7 : (9 - weekday) % 7
            let endOfWeek = calendar.date(byAdding: .day, value: toMonday, to: today)!
            let matches = (overdue && !entry.isDone && due < today)
                || (dueToday && due >= today && due < tomorrow)
                || (dueThisWeek && due >= today && due < endOfWeek)
                || (dueBefore.map { due < $0 } ?? false)
            if !matches { return false }
        }
        if !words.isEmpty {
            let text = entry.text
            if !words.allSatisfy({ text.range(of: $0, options: [.caseInsensitive, .diacriticInsensitive]) != nil }) { return false }
        }
        if let doneSince {
            guard entry.isDone else { return false }
            let doneAt: Date? = switch entry {
            case let .todo(todo): todo.alterDate
            case let .task(task, _): task.alterDate
            }
            guard let doneAt, doneAt >= doneSince else { return false }
        }
        return true
    }

    /// The entries shown, in the order a person reads a list: by due date
    /// (so overdue first), then undated ones oldest first; cut at `limit`.
    public func apply(to entries: [Entry], now: Date, calendar: Calendar = .current) -> [Entry] {
        let shown = entries.filter { admits($0, now: now, calendar: calendar) }.sorted(by: Entry.listOrder)
        return limit.map { Array(shown.prefix($0)) } ?? shown
    }
}

extension Entry {
    /// Dated before undated, earlier due first; then oldest first; then by id, so the order is total.
    static func listOrder(_ a: Entry, _ b: Entry) -> Bool {
        switch (a.dueDate, b.dueDate) {
        case let (x?, y?) where x != y: return x < y
        case (.some, nil): return true
        case (nil, .some): return false
        default: break
        }
        if a.madeAt != b.madeAt { return a.madeAt < b.madeAt }
        return a.id.uuidString < b.id.uuidString
    }
}

/// The day's view: what needs doing, most pressing first.
public struct Agenda: Sendable, Encodable {
    /// A task with a running time slip.
    public struct Running: Sendable, Encodable {
        public let task: Entry
        /// When the slip started.
        public let since: Date

        private enum Keys: String, CodingKey { case task, since }

        public func encode(to encoder: Encoder) throws {
            var keys = encoder.container(keyedBy: Keys.self)
            try keys.encode(task, forKey: .task)
            try keys.encode(ISODate.string(from: since), forKey: .since)
        }
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

    /// The agenda of these todos and projects at `now`.
    public init(todos: [TodoItem], projects: [Project], now: Date, soonDays: Int = 7, calendar: Calendar = .current) {
        let startOfToday = calendar.startOfDay(for: now)
        let tomorrow = calendar.date(byAdding: .day, value: 1, to: startOfToday)!
        let horizon = calendar.date(byAdding: .day, value: soonDays, to: tomorrow)!
        var overdue: [Entry] = [], today: [Entry] = [], soon: [Entry] = [], open: [Entry] = []
        for todo in todos where !todo.completed {
            let entry = Entry.todo(todo)
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
                switch task.dueDate.date {
                case let due? where due < startOfToday: overdue.append(entry)
                case let due? where due < tomorrow: today.append(entry)
                case let due? where due < horizon: soon.append(entry)
                default: break
                }
            }
        }
        self.overdue = overdue.sorted(by: Entry.listOrder)
        self.today = today.sorted(by: Entry.listOrder)
        self.soon = soon.sorted(by: Entry.listOrder)
        self.running = running.sorted { $0.since < $1.since }
        self.open = open.sorted(by: Entry.listOrder)
    }

    /// Whether there is nothing to do.
    public var isEmpty: Bool { overdue.isEmpty && today.isEmpty && soon.isEmpty && running.isEmpty && open.isEmpty }
}

extension Store {
    /// The day's view of the store at `now`: todos from `loadTodos` (its cache), projects from their files.
    public func agenda(now: Date = DocketClock.now, soonDays: Int = 7, calendar: Calendar = .current) throws -> (agenda: Agenda, problems: [StoreProblem]) {
        let (todos, todoProblems) = try loadTodos()
        let (projects, projectProblems) = try loadProjects()
        return (Agenda(todos: todos, projects: projects, now: now, soonDays: soonDays, calendar: calendar), todoProblems + projectProblems)
    }

    /// The todos (and with `tasksOf`, those projects' tasks instead) that `filter` shows, in list order.
    public func entries(_ filter: EntryFilter, tasksOf projects: [UUID]? = nil, now: Date = DocketClock.now,
                        calendar: Calendar = .current) throws -> (entries: [Entry], problems: [StoreProblem]) {
        if let projects {
            let chosen = try projects.map { try self.project($0) }.flatMap { project in project.tasks.map { Entry.task($0, project: project) } }
            return (filter.apply(to: chosen, now: now, calendar: calendar), [])
        }
        let (todos, problems) = try loadTodos()
        return (filter.apply(to: todos.map(Entry.todo), now: now, calendar: calendar), problems)
    }
}
