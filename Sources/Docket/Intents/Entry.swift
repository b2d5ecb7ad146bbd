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

    /// When it is due: not at all, on a day, or at a time.
    public var due: DueDate {
        switch self {
        case let .todo(todo): todo.due
        case let .task(task, _): task.dueDate
        }
    }

    /// When it is due: the moment `due` stands for (a day's noon, local time).
    public var dueDate: Date? { due.date }

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

    /// The entry after `changes`, applied to its todo or task alike.
    public func altered(by changes: [SharedChange]) -> Entry {
        switch self {
        case let .todo(todo): .todo(todo.altered(by: changes))
        case let .task(task, project): .task(task.altered(by: changes), project: project)
        }
    }

    public static func == (a: Entry, b: Entry) -> Bool {
        switch (a, b) {
        case let (.todo(x), .todo(y)): x == y
        case let (.task(x, p), .task(y, q)): x == y && p.id == q.id
        default: false
        }
    }

    private enum Keys: String, CodingKey { case kind, project, projectTitle }

    /// The item as in its file, with `kind` ("todo" or "task") and, for a task, `project` (the project's id, as the
    /// task's own `id` is written) and `projectTitle`.
    public func encode(to encoder: Encoder) throws {
        var keys = encoder.container(keyedBy: Keys.self)
        switch self {
        case let .todo(todo):
            try keys.encode("todo", forKey: .kind)
            try todo.encode(to: encoder)
        case let .task(task, project):
            try keys.encode("task", forKey: .kind)
            try keys.encode(project.id.uuidString, forKey: .project)
            try keys.encode(project.title, forKey: .projectTitle)
            try task.encode(to: encoder)
        }
    }
}
