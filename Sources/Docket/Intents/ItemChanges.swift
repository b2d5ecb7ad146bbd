import DocketModel
import Foundation

/// An item before and after a change.
public struct Changed<Item: Sendable>: Sendable {
    /// The item as it was.
    public let before: Item
    /// The item as it is now.
    public let after: Item
}

extension Store {
    // MARK: Todos

    /// Adds a todo.
    public func addTodo(_ todo: TodoItem) throws {
        try edit { $0.alter(by: .adding(.todo(todo))) }
    }

    /// Applies `change` to each of these todos and writes what changed; returns each todo before and after, in the
    /// order given.
    @discardableResult
    public func updateTodos(_ ids: [UUID], _ change: (TodoItem) throws -> TodoItem) throws -> [Changed<TodoItem>] {
        var changed: [Changed<TodoItem>] = []
        try edit(todos: Array(Set(ids))) { state in
            try ids.reduce(into: state) { state, id in
                guard let todo = state.todo(id: id) else {
                    throw StoreError.input(.notFound(kind: .todo, id: id.uuidString))
                }
                guard !changed.contains(where: { $0.before.id == id }) else { return }
                let after = try change(todo)
                changed.append(Changed(before: todo, after: after))
                state = state.alter(by: .updating(.todo(after)))
            }
        }
        return changed
    }

    /// Applies `change` to one todo and writes it if it changed.
    @discardableResult
    public func updateTodo(_ id: UUID, _ change: (TodoItem) throws -> TodoItem) throws -> Changed<TodoItem> {
        try updateTodos([id], change)[0]
    }

    /// Adds a new todo made from an existing one (`TodoItem.Change.fork`); returns the new todo.
    @discardableResult
    public func forkTodo(_ id: UUID, _ changes: [TodoItem.Change]) throws -> TodoItem {
        var fork: TodoItem?
        try edit(todos: [id]) { state in
            guard let todo = state.todo(id: id) else {
                throw StoreError.input(.notFound(kind: .todo, id: id.uuidString))
            }
            fork = todo.alter(.fork(changes))
            return state.alter(by: .adding(.todo(fork!)))
        }
        return fork!
    }

    /// Removes a todo, recording its tombstone; returns it as it was.
    @discardableResult
    public func removeTodo(_ id: UUID) throws -> TodoItem {
        var removed: TodoItem?
        try edit(todos: [id]) { state in
            guard let todo = state.todo(id: id) else {
                throw StoreError.input(.notFound(kind: .todo, id: id.uuidString))
            }
            removed = todo
            return state.alter(by: .removing(.todo(todo)))
        }
        return removed!
    }

    // MARK: Projects and tasks

    /// Adds a project.
    public func addProject(_ project: Project) throws {
        try edit { $0.alter(by: .adding(.project(project))) }
    }

    /// Applies `change` to one project and writes what changed.
    @discardableResult
    public func updateProject(_ id: UUID, _ change: (Project) throws -> Project) throws -> Changed<Project> {
        var changed: Changed<Project>?
        try edit(projects: [id]) { state in
            guard let project = state.project(id: id) else {
                throw StoreError.input(.notFound(kind: .project, id: id.uuidString))
            }
            let after = try change(project)
            changed = Changed(before: project, after: after)
            return state.alter(by: .updating(.project(after)))
        }
        return changed!
    }

    /// Removes a project with its tasks, recording its tombstone; returns it as it was.
    @discardableResult
    public func removeProject(_ id: UUID) throws -> Project {
        var removed: Project?
        try edit(projects: [id]) { state in
            guard let project = state.project(id: id) else {
                throw StoreError.input(.notFound(kind: .project, id: id.uuidString))
            }
            removed = project
            return state.alter(by: .removing(.project(project)))
        }
        return removed!
    }

    /// Adds a task at the end of a project.
    public func addTask(_ task: ProjectTask, to project: UUID) throws {
        try updateProject(project) { $0.alter(by: .adding(.task(task))) }
    }

    /// Applies `change` to one task of a project and writes what changed; a repeating task the change finishes gets
    /// its next instance, as a repeating todo done does (`AppState.updatingTask`).
    @discardableResult
    public func updateTask(_ id: UUID, in project: UUID, _ change: (ProjectTask) throws -> ProjectTask) throws
        -> Changed<ProjectTask>
    {
        let changed = try changeEntries([.task(id, project: project)], todo: { $0 }, task: change)[0]
        guard case let .task(before, _) = changed.before, case let .task(after, _) = changed.after else {
            preconditionFailure("a task's ref names a task")
        }
        return Changed(before: before, after: after)
    }

    /// Removes a task from its project, recording its tombstone; returns it as it was.
    @discardableResult
    public func removeTask(_ id: UUID, in project: UUID) throws -> ProjectTask {
        var removed: ProjectTask?
        try updateProject(project) { project in
            guard let task = project.task(id: id) else {
                throw StoreError.input(.notFound(kind: .task, id: id.uuidString))
            }
            removed = task
            return project.alter(by: .removing(.task(task)))
        }
        return removed!
    }
}
