import DocketModel
import Foundation

/// Something to do: a todo, or a project's task with its project.
public enum Entry: Sendable, Equatable, Encodable {
    case todo(TodoItem)
    // NB: indirect, so an entry is the size of a todo: listings hold 100,000 of them.
    indirect case task(ProjectTask, project: Project)

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

    /// Which ones by status; open ones unless asked.
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
    /// Done on or after this date (by its completion date; for items done before there were
    /// completion dates, by its last change).
    public var doneSince: Date?
    /// Tags it must all have.
    public var tags: [String] = []
    /// At most this many.
    public var limit: Int?

    /// Open ones, all of them, in list order: set the conditions wanted.
    public init() {}

    /// Whether any due condition is set.
    var hasDueCondition: Bool { overdue || dueToday || dueThisWeek || dueBefore != nil }

    /// Today's bounds, worked out once per listing: calendar arithmetic is
    /// slow, and a listing of 100,000 todos would repeat it for each.
    struct Days {
        let today: Date, tomorrow: Date, endOfWeek: Date

        init(now: Date, calendar: Calendar) {
            today = calendar.startOfDay(for: now)
            tomorrow = calendar.date(byAdding: .day, value: 1, to: today)!
            // The week ends on Sunday night, whatever day the calendar starts its weeks on.
            let weekday = calendar.component(.weekday, from: today)  // 1 is Sunday
            let toMonday = (9 - weekday) % 7 == 0 ? 7 : (9 - weekday) % 7
            endOfWeek = calendar.date(byAdding: .day, value: toMonday, to: today)!
        }
    }

    /// Whether `entry` is shown at `now`.
    public func admits(_ entry: Entry, now: Date, calendar: Calendar = .current) -> Bool {
        admits(entry, days: hasDueCondition ? Days(now: now, calendar: calendar) : nil)
    }

    func admits(_ entry: Entry, days: Days?) -> Bool {
        switch status {
        case .open where entry.isDone, .done where !entry.isDone: return false
        default: break
        }
        if let days {
            guard let due = entry.dueDate else { return false }
            let matches = (overdue && !entry.isDone && due < days.today)
                || (dueToday && due >= days.today && due < days.tomorrow)
                || (dueThisWeek && due >= days.today && due < days.endOfWeek)
                || (dueBefore.map { due < $0 } ?? false)
            if !matches { return false }
        }
        if !words.isEmpty {
            let text = entry.text
            if !words.allSatisfy({ text.range(of: $0, options: [.caseInsensitive, .diacriticInsensitive]) != nil }) { return false }
        }
        if !tags.isEmpty {
            let has = entry.tags
            if !tags.allSatisfy(has.contains) { return false }
        }
        if let doneSince {
            guard entry.isDone else { return false }
            // NB: items done before store format 2 have no completion date; their last change stands in.
            let doneAt: Date? = switch entry {
            case let .todo(todo): todo.completedDate ?? todo.alterDate
            case let .task(task, _): task.completedDate ?? task.alterDate
            }
            guard let doneAt, doneAt >= doneSince else { return false }
        }
        return true
    }

    /// The entries shown, in the order a person reads a list: by due date
    /// (so overdue first), then undated ones oldest first; cut at `limit`.
    public func apply(to entries: [Entry], now: Date, calendar: Calendar = .current) -> [Entry] {
        let days = hasDueCondition ? Days(now: now, calendar: calendar) : nil
        let shown = Entry.inListOrder(entries.filter { admits($0, days: days) })
        return limit.map { Array(shown.prefix($0)) } ?? shown
    }
}

extension Entry {
    /// What list order compares, taken out of the entry once.
    private struct OrderKey {
        let due: Double, priority: Int, made: Double, id: UUID

        init(_ entry: Entry) {
            due = entry.dueDate?.timeIntervalSinceReferenceDate ?? .infinity
            priority = Priority.rank(entry.priority)
            made = entry.madeAt.timeIntervalSinceReferenceDate
            id = entry.id
        }

        func precedes(_ other: OrderKey) -> Bool {
            if due != other.due { return due < other.due }
            if priority != other.priority { return priority < other.priority }
            if made != other.made { return made < other.made }
            return id.precedes(other.id)
        }
    }

    /// `entries` in list order: dated before undated, earlier due first; at
    /// equal due, higher priority first; then oldest first; then by id, so the order is total. NB: the keys are taken out once and their
    /// indices sorted; comparing entries themselves copies each item out of
    /// the enum twice per comparison, a third of listing 100,000 todos.
    static func inListOrder(_ entries: [Entry]) -> [Entry] {
        let keys = entries.map(OrderKey.init)
        return keys.indices.sorted { keys[$0].precedes(keys[$1]) }.map { entries[$0] }
    }
}

/// The day's view: what needs doing, most pressing first.
public struct Agenda: Sendable, Encodable {
    /// A task with a running time slip.
    public struct Running: Sendable, Encodable {
        /// The task, with its project.
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
        self.overdue = Entry.inListOrder(overdue)
        self.today = Entry.inListOrder(today)
        self.soon = Entry.inListOrder(soon)
        self.running = running.sorted { $0.since < $1.since }
        self.open = Entry.inListOrder(open)
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
