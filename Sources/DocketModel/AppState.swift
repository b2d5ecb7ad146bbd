import Foundation

/// Everything a person keeps: standalone todos, projects with their tasks, and
/// the tombstones of what was removed.
public struct AppState: Codable, Hashable, Sendable {
    /// The standalone todos, ordered by creationDate, then id.
    public let todos: [TodoItem]
    /// The projects, in the order they were added (re-adding moves one to the end).
    public let projects: [Project]
    /// What was removed, ordered by id.
    public let removed: [Tombstone]

    /// The Change DSL of the state.
    public enum Change: Hashable, Sendable {
        /// Adds an item; one with the same id is replaced (a project moves to the end).
        case adding(Add)
        /// What can be added.
        public enum Add: Hashable, Sendable {
            /// A project.
            case project(Project)
            /// A standalone todo.
            case todo(TodoItem)
        }
        /// Removes an item by its id and records its tombstone.
        case removing(Remove)
        /// What can be removed.
        public enum Remove: Hashable, Sendable {
            /// A project, with its tasks.
            case project(Project)
            /// A standalone todo.
            case todo(TodoItem)
        }
        /// Replaces an item in place, by its id; an item not in the state changes nothing.
        case updating(Update)
        /// What can be updated.
        public enum Update: Hashable, Sendable {
            /// A project; tasks it no longer has get tombstones.
            case project(Project)
            /// A standalone todo.
            case todo(TodoItem)
        }
    }

    /// An empty state.
    public init() {
        self.init(todos: [], projects: [], removed: [])
    }

    /// A state of these values; todos and tombstones are put in their order.
    public init(todos: [TodoItem], projects: [Project], removed: [Tombstone]) {
        self.todos = AppState.sortedTodos(todos)
        self.projects = projects
        self.removed = removed.sorted { $0.id.precedes($1.id) }
    }

    /// Todos in `todoOrder`, sorting keys instead of whole values.
    /// NB: sorting 100,000 todos directly spends most of its time copying
    /// them and recomputing milliseconds; this sorts small keys, then gathers.
    static func sortedTodos(_ todos: [TodoItem]) -> [TodoItem] {
        let keys = todos.map { $0.creationDate.docketMilliseconds }
        let order = todos.indices.sorted { a, b in
            keys[a] != keys[b] ? keys[a] < keys[b] : todos[a].id.precedes(todos[b].id)
        }
        return order.map { todos[$0] }
    }

    private init(sortedTodos todos: [TodoItem], projects: [Project], sortedRemoved removed: [Tombstone]) {
        self.todos = todos
        self.projects = projects
        self.removed = removed
    }

    /// The order of todos: by creationDate, then id.
    public static func todoOrder(_ a: TodoItem, _ b: TodoItem) -> Bool {
        let (ca, cb) = (a.creationDate.docketMilliseconds, b.creationDate.docketMilliseconds)
        return ca != cb ? ca < cb : a.id.precedes(b.id)
    }

    /// The todo with this id, if there is one.
    public func todo(id: UUID) -> TodoItem? { todos.first { $0.id == id } }

    /// The project with this id, if there is one.
    public func project(id: UUID) -> Project? { projects.first { $0.id == id } }

    /// The tombstone of this id, if it was removed.
    public func tombstone(id: UUID) -> Tombstone? { removed.first { $0.id == id } }

    /// The state after the changes, applied in order.
    public func alter(by changes: Change...) -> Self { alter(by: changes) }

    /// The state after the changes, applied in order.
    public func alter(by changes: [Change]) -> Self { changes.reduce(self) { $0.applying($1) } }

    private func applying(_ change: Change) -> Self {
        switch change {
        case let .adding(.todo(todo)):
            return Self(sortedTodos: inserting(todo), projects: projects, sortedRemoved: clearing(todo.id))
        case let .updating(.todo(todo)):
            guard let index = todos.firstIndex(where: { $0.id == todo.id }), todos[index] != todo else { return self }
            var todos = todos
            todos.remove(at: index)
            return Self(sortedTodos: Self.inserting(todo, into: todos), projects: projects, sortedRemoved: removed)
        case let .removing(.todo(todo)):
            guard let current = self.todo(id: todo.id) else { return self }
            let tombstone = Tombstone(
                id: todo.id, kind: .todo, removedDate: DocketClock.alterDate(after: current.alterDate))
            return Self(
                sortedTodos: todos.filter { $0.id != todo.id }, projects: projects,
                sortedRemoved: recording([tombstone]))
        case let .adding(.project(project)):
            guard projects.last != project else { return self }
            let previous = self.project(id: project.id)
            return Self(
                sortedTodos: todos, projects: projects.filter { $0.id != project.id } + [project],
                sortedRemoved: recordingTasks(removedFrom: previous, by: project))
        case let .updating(.project(project)):
            guard let index = projects.firstIndex(where: { $0.id == project.id }), projects[index] != project else {
                return self
            }
            var projects = projects
            let previous = projects[index]
            projects[index] = project
            return Self(
                sortedTodos: todos, projects: projects,
                sortedRemoved: recordingTasks(removedFrom: previous, by: project))
        case let .removing(.project(project)):
            guard let current = self.project(id: project.id) else { return self }
            let tombstone = Tombstone(
                id: project.id, kind: .project, removedDate: DocketClock.alterDate(after: current.latestAlterDate))
            return Self(
                sortedTodos: todos, projects: projects.filter { $0.id != project.id },
                sortedRemoved: recording([tombstone]))
        }
    }

    private func inserting(_ todo: TodoItem) -> [TodoItem] {
        Self.inserting(todo, into: todos.filter { $0.id != todo.id })
    }

    private static func inserting(_ todo: TodoItem, into todos: [TodoItem]) -> [TodoItem] {
        var low = 0
        var high = todos.count
        while low < high {
            let mid = (low + high) / 2
            if todoOrder(todos[mid], todo) { low = mid + 1 } else { high = mid }
        }
        var todos = todos
        todos.insert(todo, at: low)
        return todos
    }

    /// Tombstones without the one of `id`: an item added again is no longer removed.
    private func clearing(_ ids: UUID...) -> [Tombstone] {
        let ids = Set(ids)
        guard removed.contains(where: { ids.contains($0.id) }) else { return removed }
        return removed.filter { !ids.contains($0.id) }
    }

    private func recording(_ tombstones: [Tombstone]) -> [Tombstone] {
        let ids = Set(tombstones.map(\.id))
        return (removed.filter { !ids.contains($0.id) } + tombstones).sorted { $0.id.precedes($1.id) }
    }

    /// Records tombstones for the tasks `previous` had and `project` has not, and
    /// clears those of tasks `project` has again (and of the project itself).
    private func recordingTasks(removedFrom previous: Project?, by project: Project) -> [Tombstone] {
        let kept = Set(project.tasks.map(\.id))
        let gone = (previous?.tasks ?? []).filter { !kept.contains($0.id) }.map {
            Tombstone(
                id: $0.id, kind: .task, projectID: project.id,
                removedDate: DocketClock.alterDate(
                    after: max($0.alterDate ?? .distantPast, project.alterDate ?? .distantPast)))
        }
        let cleared = removed.filter { !kept.contains($0.id) && $0.id != project.id }
        if gone.isEmpty && cleared.count == removed.count { return removed }
        let ids = Set(gone.map(\.id))
        return (cleared.filter { !ids.contains($0.id) } + gone).sorted { $0.id.precedes($1.id) }
    }

    private enum CodingKeys: String, CodingKey { case todos, projects, removed }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            todos: try c.decodeIfPresent([TodoItem].self, forKey: .todos) ?? [],
            projects: try c.decodeIfPresent([Project].self, forKey: .projects) ?? [],
            removed: try c.decodeIfPresent([Tombstone].self, forKey: .removed) ?? [])
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(todos, forKey: .todos)
        try c.encode(projects, forKey: .projects)
        try c.encode(removed, forKey: .removed)
    }
}

extension AppState {
    /// The state with this todo done and, if it repeats, its next instance
    /// added — unless that instance is here already, so completing the same
    /// instance twice, here or on another machine, makes one. A next instance
    /// that was removed (say by an undo) comes back dated after its removal.
    public func completingTodo(_ id: UUID, calendar: Calendar = DocketClock.calendar) -> AppState {
        guard let todo = todo(id: id), !todo.completed else { return self }
        let done = todo.alter(.completed(true))
        var state = alter(by: .updating(.todo(done)))
        if var next = done.nextOccurrence(done: done.completedDate ?? DocketClock.now, calendar: calendar),
            state.todo(id: next.id) == nil
        {
            if let removed = state.tombstone(id: next.id) {
                next = next.replacing(alterDate: .some(DocketClock.alterDate(after: removed.removedDate)))
            }
            state = state.alter(by: .adding(.todo(next)))
        }
        return state
    }

    /// The state with `task` in place of the task of its id in the project `projectID` (none there: no change). A
    /// repeating task this finishes gets its next instance at the end of the project, as a repeating todo done does —
    /// unless the project holds that instance already, by its id or by its number in the series (as Taskwarrior
    /// numbers an instance it made), so finishing the same instance twice, here or on another machine, makes one. A
    /// next instance that was removed (say by an undo) comes back dated after its removal.
    public func updatingTask(_ task: ProjectTask, in projectID: UUID, calendar: Calendar = DocketClock.calendar)
        -> AppState
    {
        guard let project = project(id: projectID), let before = project.task(id: task.id) else { return self }
        var updated = project.alter(by: .updating(.task(task)))
        if before.state != .finished, task.state == .finished, let recurrence = task.recurrence,
            var next = task.nextOccurrence(done: task.completedDate ?? DocketClock.now, calendar: calendar),
            updated.task(id: next.id) == nil,
            !updated.tasks.contains(where: {
                $0.recurrence?.series == recurrence.series && $0.recurrence?.occurrence == recurrence.occurrence + 1
            })
        {
            if let removed = tombstone(id: next.id) {
                next = next.replacing(alterDate: .some(DocketClock.alterDate(after: removed.removedDate)))
            }
            updated = updated.alter(by: .adding(.task(next)))
        }
        return alter(by: .updating(.project(updated)))
    }
}
