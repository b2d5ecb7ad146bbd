import DocketModel
import Foundation

/// Which items block which. An open item is blocked while an item it depends
/// on is open; a dependency on an item that is done, or no longer in the store
/// (removed, or never synced here), blocks nothing. An open item that open
/// items depend on is blocking them. A dependency that closes a circle among
/// open items (two machines each made a part of it) is ignored, the same one
/// on every machine (`DependencyCircles`): it blocks nothing, so every item of
/// the circle can be started in turn.
public struct Blocking: Sendable {
    /// The ids of the open todos and tasks that something depends on.
    private let open: Set<UUID>
    /// For each open item that open items depend on, those items, in the order they were given.
    private let dependents: [UUID: [UUID]]
    /// The dependencies that close a circle, ignored.
    public let ignoredInCircles: [CircleDependency]
    private let ignored: Set<CircleDependency>

    /// Nothing blocks anything.
    public init() {
        open = []
        dependents = [:]
        ignoredInCircles = []
        ignored = []
    }

    /// The blocking among these todos and projects' tasks.
    public init(todos: [TodoItem], projects: [Project]) {
        var waiting: [(UUID, [UUID])] = []
        for todo in todos where !todo.completed && !todo.dependencies.isEmpty {
            waiting.append((todo.id, todo.dependencies))
        }
        for project in projects {
            for task in project.tasks where task.state != .finished && !task.dependencies.isEmpty {
                waiting.append((task.id, task.dependencies))
            }
        }
        // NB: only the items something depends on are looked up, and only when there are any: the day's view of a
        // store of 100,000 todos pays nothing for dependencies it does not use.
        let wanted = Set(waiting.flatMap(\.1))
        var open = Set<UUID>()
        if !wanted.isEmpty {
            for todo in todos where !todo.completed && wanted.contains(todo.id) { open.insert(todo.id) }
            for project in projects {
                for task in project.tasks where task.state != .finished && wanted.contains(task.id) {
                    open.insert(task.id)
                }
            }
        }
        // NB: a circle needs an open item that depends on another that depends on something: only those are walked.
        let circles =
            open.isEmpty
            ? [] : DependencyCircles.ignored(DependencyCircles.openNodes(todos: todos, projects: projects))
        let ignored = Set(circles)
        var dependents: [UUID: [UUID]] = [:]
        for (id, dependencies) in waiting {
            for dependency in dependencies where dependency != id && open.contains(dependency) {
                if !ignored.isEmpty, ignored.contains(CircleDependency(item: id, dependency: dependency)) { continue }
                dependents[dependency, default: []].append(id)
            }
        }
        self.open = open
        self.dependents = dependents
        self.ignoredInCircles = circles
        self.ignored = ignored
    }

    /// The open items `entry` depends on; none when it is done. A dependency ignored in a circle (`ignoredInCircles`) is none of them.
    public func blockers(of entry: Entry) -> [UUID] {
        guard !entry.isDone else { return [] }
        return entry.dependencies.filter {
            $0 != entry.id && open.contains($0)
                && (ignored.isEmpty || !ignored.contains(CircleDependency(item: entry.id, dependency: $0)))
        }
    }

    /// The dependencies of `entry` ignored because they close a circle.
    public func ignoredInCircle(of entry: Entry) -> [UUID] {
        ignored.isEmpty ? [] : ignoredInCircles.filter { $0.item == entry.id }.map(\.dependency)
    }

    /// Whether `entry` is open and depends on an open item.
    public func isBlocked(_ entry: Entry) -> Bool { !blockers(of: entry).isEmpty }

    /// The open items that depend on `entry` while it is open.
    public func blocked(by entry: Entry) -> [UUID] { entry.isDone ? [] : dependents[entry.id] ?? [] }

    /// Whether open items depend on `entry`, which is open.
    public func isBlocking(_ entry: Entry) -> Bool { !blocked(by: entry).isEmpty }

    /// Whether `entry` can be started at `now` (Taskwarrior's READY): open, not waiting, not blocked, and not
    /// scheduled for later (a day from its start, local time).
    public func isReady(_ entry: Entry, at now: Date) -> Bool {
        !entry.isDone && !entry.isWaiting(at: now) && !isBlocked(entry)
            && (entry.scheduledDate.start().map { $0 <= now } ?? true)
    }
}

extension Entry {
    /// Until when it waits, hidden from the day's view and the lists of open items: a day (until it begins), a
    /// moment, or none.
    public var waitDate: DueDate {
        switch self {
        case let .todo(todo): todo.waitDate
        case let .task(task, _): task.waitDate
        }
    }

    /// When it is planned to be started: a day, a moment, or none.
    public var scheduledDate: DueDate {
        switch self {
        case let .todo(todo): todo.scheduledDate
        case let .task(task, _): task.scheduledDate
        }
    }

    /// The ids of the items it depends on.
    public var dependencies: [UUID] {
        switch self {
        case let .todo(todo): todo.dependencies
        case let .task(task, _): task.dependencies
        }
    }

    /// Whether it is open and waits until after `now`: hidden from the day's view and the lists of open items. A wait
    /// for a day ends as that day begins in `zone`.
    public func isWaiting(at now: Date, zone: TimeZone = DocketClock.timeZone) -> Bool {
        guard let start = waitDate.start(in: zone), !isDone else { return false }
        return now < start
    }
}

extension Store {
    /// Which of the store's items block which: todos from `loadTodos` (its cache), projects from theirs.
    public func blocking() throws -> Blocking {
        Blocking(todos: try loadTodos(openOnly: true).todos, projects: try loadProjects().projects)
    }
}
