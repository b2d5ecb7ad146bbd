import Docket
import Foundation

/// A change to a todo or a task alike, as a command, `add` and `task add`'s options, or the editor form make it: the
/// same change in each kind's Change DSL.
enum EntryChange {
    case text(String)
    case due(DueDate)
    case wait(DueDate)
    case scheduled(DueDate)
    case tagging(add: [String], remove: [String])
    case priority(Priority?)
    case recurrence(Recurrence?)
    case depending(add: [UUID], remove: [UUID])
    case noting(Note.Change)

    /// The field it changes, as the editor form names it: "text", "due", "tags"…
    var field: String {
        switch self {
        case .text: "text"
        case .due: "due"
        case .wait: "wait"
        case .scheduled: "scheduled"
        case .tagging: "tags"
        case .priority: "priority"
        case .recurrence: "repeat"
        case .depending: "depends"
        case .noting: "notes"
        }
    }

    /// The fields `changes` change, once each in the editor form's order: "text, priority and tags".
    static func fields(_ changes: [EntryChange]) -> String {
        let order = ["text", "due", "wait", "scheduled", "tags", "priority", "repeat", "depends", "notes"]
        let names = Set(changes.map(\.field))
        let shown = order.filter(names.contains)
        guard shown.count > 1 else { return shown.first ?? "" }
        return shown.dropLast().joined(separator: ", ") + " and " + shown.last!
    }

    /// The change to a todo.
    var todo: TodoItem.Change {
        switch self {
        case let .text(text): .text(text)
        case let .due(due): .dueDate(to: due)
        case let .wait(date): .wait(date)
        case let .scheduled(date): .scheduled(date)
        case let .tagging(add, remove): .tagging(add: add, remove: remove)
        case let .priority(priority): .priority(priority)
        case let .recurrence(recurrence): .recurrence(recurrence)
        case let .depending(add, remove): .depending(add: add, remove: remove)
        case let .noting(change): .noting(change)
        }
    }

    /// The change to a task (its title for the text).
    var task: ProjectTask.Change {
        switch self {
        case let .text(text): .setting(.title(to: text))
        case let .due(due): .setting(.dueDate(to: due))
        case let .wait(date): .setting(.waitDate(to: date))
        case let .scheduled(date): .setting(.scheduledDate(to: date))
        case let .tagging(add, remove): .tagging(add: add, remove: remove)
        case let .priority(priority): .setting(.priority(to: priority))
        case let .recurrence(recurrence): .setting(.recurrence(to: recurrence))
        case let .depending(add, remove): .depending(add: add, remove: remove)
        case let .noting(change): .noting(change)
        }
    }
}
