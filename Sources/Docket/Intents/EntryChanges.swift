import DocketMerge
import DocketModel
import Foundation

/// A todo or a project's task, named by its id.
public enum EntryRef: Sendable, Equatable {
    /// A standalone todo.
    case todo(UUID)
    /// A task, with the project that holds it.
    case task(UUID, project: UUID)
}

extension Store {
    /// Changes one todo or task by the matching closure; returns the entry before and after.
    @discardableResult
    public func changeEntry(
        _ ref: EntryRef, todo: (TodoItem) throws -> TodoItem, task: (ProjectTask) throws -> ProjectTask
    ) throws -> Changed<Entry> {
        try changeEntries([ref], todo: todo, task: task)[0]
    }

    /// Changes one todo or task alike, by the changes the two kinds share; returns the entry before and after.
    @discardableResult
    public func changeEntry(_ ref: EntryRef, _ changes: [SharedChange]) throws -> Changed<Entry> {
        try changeEntries([ref]) { _ in changes }[0]
    }

    /// Changes todos and tasks alike, each by the shared changes `changes` gives for it as stored, in one edit; a
    /// repeating task a change finishes gets its next instance. Returns each entry before and after, in the order
    /// given.
    @discardableResult
    public func changeEntries(
        _ refs: [EntryRef], calendar: Calendar = DocketClock.calendar, _ changes: (Entry) throws -> [SharedChange]
    ) throws -> [Changed<Entry>] {
        try changeEntries(refs, calendar: calendar) { entry in entry.altered(by: try changes(entry)) }
    }

    /// Changes todos and tasks, each by the closure for its kind, in one edit; a repeating task a change finishes gets
    /// its next instance (`AppState.updatingTask`). Returns each entry before and after, in the order given.
    @discardableResult
    public func changeEntries(
        _ refs: [EntryRef], calendar: Calendar = DocketClock.calendar, todo: (TodoItem) throws -> TodoItem,
        task: (ProjectTask) throws -> ProjectTask
    ) throws -> [Changed<Entry>] {
        try changeEntries(refs, calendar: calendar) { entry in
            switch entry {
            case let .todo(was): .todo(try todo(was))
            case let .task(was, project): .task(try task(was), project: project)
            }
        }
    }

    /// Changes todos and tasks, each entry as `change` makes it from the one stored (of the same kind, in the same
    /// project), in one edit.
    private func changeEntries(
        _ refs: [EntryRef], calendar: Calendar, changing change: (Entry) throws -> Entry
    ) throws -> [Changed<Entry>] {
        var changed: [Changed<Entry>] = []
        let tasks = refs.filter { if case .task = $0 { true } else { false } }
        try edit(refs, nextOf: tasks) { state, ref in
            guard !changed.contains(where: { $0.before.id == ref.id }) else { return }
            let before = try Self.entry(ref, in: state)
            switch (before, try change(before)) {
            case let (.todo, .todo(after)):
                state = state.alter(by: .updating(.todo(after)))
            case let (.task(_, project), .task(after, _)):
                state = state.updatingTask(after, in: project.id, calendar: calendar)
            default:
                preconditionFailure("a change made a todo of a task, or a task of a todo")
            }
            changed.append(Changed(before: before, after: try Self.entry(ref, in: state)))
        }
        return changed
    }

    /// The todo or task a ref names, as stored now.
    public func entry(_ ref: EntryRef) throws -> Entry {
        switch ref {
        case let .todo(id):
            return .todo(try self.todo(id))
        case let .task(id, projectID):
            let project = try self.project(projectID)
            guard let task = project.task(id: id) else {
                throw StoreError.input(.notFound(kind: .task, id: id.uuidString))
            }
            return .task(task, project: project)
        }
    }

    /// Marks todos done and tasks finished, in one edit; a repeating one gets its next instance (the same on every
    /// machine). Returns each entry before and after, in the order given, and the instances made.
    @discardableResult
    public func completeEntries(_ refs: [EntryRef], calendar: Calendar = DocketClock.calendar) throws -> (
        changed: [Changed<Entry>], next: [Entry]
    ) {
        var changed: [Changed<Entry>] = []
        var next: [Entry] = []
        let todos = refs.compactMap { ref -> TodoItem? in
            guard case let .todo(id) = ref else { return nil }
            return try? self.todo(id)
        }
        let repeating = todos.compactMap(\.recurrence)
        // NB: Taskwarrior makes instances of its own, with ids of its own: where the store has been to Taskwarrior, an
        // instance of the same number already there is the next one (this reads every todo, so only then). A task's
        // project is read whole, so `updatingTask` looks there itself.
        var made: [UUID: Set<Int>] = [:]
        if !repeating.isEmpty,
            hasExported(to: "taskwarrior") || todos.contains(where: { !$0.kept["taskwarrior"].isEmpty })
        {
            let wanted = Set(repeating.map(\.series))
            for todo in try load().state.todos {
                if let recurrence = todo.recurrence, wanted.contains(recurrence.series) {
                    made[recurrence.series, default: []].insert(recurrence.occurrence)
                }
            }
        }
        try edit(refs, nextOf: refs) { state, ref in
            guard !changed.contains(where: { $0.before.id == ref.id }) else { return }
            let before = state
            let entry = try Self.entry(ref, in: state)
            switch entry {
            case let .todo(todo):
                if let recurrence = todo.recurrence,
                    made[recurrence.series]?.contains(recurrence.occurrence + 1) == true, !todo.completed
                {
                    state = state.alter(by: .updating(.todo(todo.alter(.completed(true)))))
                } else {
                    state = state.completingTodo(todo.id, calendar: calendar)
                }
            case let .task(task, project):
                state = state.updatingTask(
                    task.alter(by: .setting(.state(to: .finished))), in: project.id, calendar: calendar)
            }
            changed.append(Changed(before: entry, after: try Self.entry(ref, in: state)))
            switch entry {
            case let .todo(todo):
                if let made = todo.recurrence?.nextID, before.todo(id: made) == nil, let instance = state.todo(id: made)
                {
                    next.append(.todo(instance))
                }
            case let .task(task, project):
                if let made = task.recurrence?.nextID, project.task(id: made) == nil,
                    let holder = state.project(id: project.id), let instance = holder.task(id: made)
                {
                    next.append(.task(instance, project: holder))
                }
            }
        }
        return (changed, next)
    }

    /// Marks todos done; a repeating one gets its next instance (the same on
    /// every machine). Returns each todo before and after, and the instances made.
    @discardableResult
    public func completeTodos(_ ids: [UUID], calendar: Calendar = DocketClock.calendar) throws -> (
        changed: [Changed<TodoItem>], next: [TodoItem]
    ) {
        let (changed, next) = try completeEntries(ids.map(EntryRef.todo), calendar: calendar)
        return (
            changed.compactMap { change in
                guard case let .todo(before) = change.before, case let .todo(after) = change.after else { return nil }
                return Changed(before: before, after: after)
            },
            next.compactMap { if case let .todo(todo) = $0 { todo } else { nil } }
        )
    }

    /// Removes a todo or a task, recording its tombstone; returns it as it was.
    @discardableResult
    public func removeEntry(_ ref: EntryRef) throws -> Entry {
        switch ref {
        case let .todo(id):
            return .todo(try removeTodo(id))
        case let .task(id, projectID):
            let task = try removeTask(id, in: projectID)
            let project = (try? self.project(projectID)) ?? Project(id: projectID, title: "", tasks: [], alterDate: nil)
            return .task(task, project: project)
        }
    }

    /// One edit of the todos and projects `refs` name (and the tombstones of the next instances of those of `next`
    /// that repeat, which finishing them may bring back), applying `change` to each ref in order.
    private func edit(
        _ refs: [EntryRef], nextOf next: [EntryRef], _ change: (inout AppState, EntryRef) throws -> Void
    ) throws {
        var todos: [UUID] = []
        var projects: [UUID] = []
        for ref in refs {
            switch ref {
            case let .todo(id): todos.append(id)
            case let .task(_, project): projects.append(project)
            }
        }
        var tombstones: [UUID] = []
        for ref in next {
            switch ref {
            case let .todo(id):
                if let recurrence = (try? self.todo(id))?.recurrence {
                    todos.append(recurrence.nextID)
                    tombstones.append(recurrence.nextID)
                }
            case let .task(id, project):
                if let recurrence = (try? self.project(project))?.task(id: id)?.recurrence {
                    tombstones.append(recurrence.nextID)
                }
            }
        }
        try edit(todos: Array(Set(todos)), projects: Array(Set(projects)), tombstones: Array(Set(tombstones))) {
            state in
            var state = state
            for ref in refs { try change(&state, ref) }
            return state
        }
    }

    /// The entry a ref names in `state`; an error naming it when it is not there.
    static func entry(_ ref: EntryRef, in state: AppState) throws -> Entry {
        switch ref {
        case let .todo(id):
            guard let todo = state.todo(id: id) else {
                throw StoreError.input(.notFound(kind: .todo, id: id.uuidString))
            }
            return .todo(todo)
        case let .task(id, projectID):
            guard let project = state.project(id: projectID), let task = project.task(id: id) else {
                throw StoreError.input(.notFound(kind: .task, id: id.uuidString))
            }
            return .task(task, project: project)
        }
    }
}

extension EntryRef {
    /// The id of the todo or task.
    public var id: UUID {
        switch self {
        case let .todo(id), let .task(id, _): id
        }
    }
}

extension Entry {
    /// Its tags.
    public var tags: [String] {
        switch self {
        case let .todo(todo): todo.tags
        case let .task(task, _): task.tags
        }
    }

    /// Its priority.
    public var priority: Priority? {
        switch self {
        case let .todo(todo): todo.priority
        case let .task(task, _): task.priority
        }
    }

    /// Its notes, oldest first.
    public var notes: [Note] {
        switch self {
        case let .todo(todo): todo.notes
        case let .task(task, _): task.notes
        }
    }

    /// How it repeats, if it does.
    public var recurrence: Recurrence? {
        switch self {
        case let .todo(todo): todo.recurrence
        case let .task(task, _): task.recurrence
        }
    }

    /// When it was done, if it is.
    public var completedDate: Date? {
        switch self {
        case let .todo(todo): todo.completedDate
        case let .task(task, _): task.completedDate
        }
    }
}
