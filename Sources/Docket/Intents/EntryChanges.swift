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
    /// The todo or task a typed id names: the whole id or a unique prefix of 4 or more characters.
    public func entryRef(_ typed: String) throws -> EntryRef {
        let todo = Result { try todoID(typed) }
        let task = Result { try taskID(typed) }
        switch (todo, task) {
        case let (.success(todo), .success(task)):
            throw StoreError.input(.todoOrTask(prefix: typed, todo: Self.shortID(todo), task: Self.shortID(task.task)))
        case let (.success(todo), _):
            return .todo(todo)
        case let (_, .success(task)):
            return .task(task.task, project: task.project)
        case let (.failure(error), .failure(other)):
            if case StoreError.input(.ambiguous) = other { throw other }
            throw error
        }
    }

    private static func shortID(_ id: UUID) -> String { String(id.uuidString.lowercased().prefix(8)) }

    /// Changes one todo or task by the matching closure; returns the entry before and after.
    @discardableResult
    public func changeEntry(
        _ ref: EntryRef, todo: (TodoItem) throws -> TodoItem, task: (ProjectTask) throws -> ProjectTask
    ) throws -> Changed<Entry> {
        switch ref {
        case let .todo(id):
            let changed = try updateTodo(id, todo)
            return Changed(before: .todo(changed.before), after: .todo(changed.after))
        case let .task(id, projectID):
            var owner: Project?
            let changed = try updateTask(id, in: projectID, task)
            owner = try? self.project(projectID)
            let project = owner ?? Project(id: projectID, title: "", tasks: [], alterDate: nil)
            return Changed(
                before: .task(changed.before, project: project), after: .task(changed.after, project: project))
        }
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

    /// Marks todos done; a repeating one gets its next instance (the same on
    /// every machine). Returns each todo before and after, and the instances made.
    @discardableResult
    public func completeTodos(_ ids: [UUID], calendar: Calendar = DocketClock.calendar) throws -> (
        changed: [Changed<TodoItem>], next: [TodoItem]
    ) {
        var changed: [Changed<TodoItem>] = []
        var next: [TodoItem] = []
        let todos = ids.compactMap { try? self.todo($0) }
        let repeating = todos.compactMap(\.recurrence)
        let series = Set(ids).union(repeating.map(\.nextID))
        // NB: Taskwarrior makes instances of its own, with ids of its own: where the store has been to Taskwarrior, an
        // instance of the same number already there is the next one (this reads every todo, so only then).
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
        try edit(todos: Array(series), tombstones: Array(series)) { state in
            try ids.reduce(into: state) { state, id in
                guard let todo = state.todo(id: id) else {
                    throw StoreError.input(.notFound(kind: .todo, id: id.uuidString))
                }
                guard !changed.contains(where: { $0.before.id == id }) else { return }
                let before = state
                if let recurrence = todo.recurrence,
                    made[recurrence.series]?.contains(recurrence.occurrence + 1) == true, !todo.completed
                {
                    state = state.alter(by: .updating(.todo(todo.alter(.completed(true)))))
                    changed.append(Changed(before: todo, after: state.todo(id: id)!))
                    return
                }
                state = state.completingTodo(id, calendar: calendar)
                changed.append(Changed(before: todo, after: state.todo(id: id)!))
                if let made = todo.recurrence?.nextID, before.todo(id: made) == nil, let instance = state.todo(id: made)
                {
                    next.append(instance)
                }
            }
        }
        return (changed, next)
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

    /// When it was done, if it is.
    public var completedDate: Date? {
        switch self {
        case let .todo(todo): todo.completedDate
        case let .task(task, _): task.completedDate
        }
    }
}
