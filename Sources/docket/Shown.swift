import Docket
import Foundation

// What items say of themselves, as they are shown to a person: escaped by `Output.safe`.

extension TodoItem {
    /// The text, safe for a terminal.
    var shownText: String { Output.safe(text) }
}

/// Tags, priorities and notes as a person reads them.
enum Shown {
    /// "+errand +shop", safe for a terminal.
    static func tags(_ tags: [String]) -> String { tags.map { "+" + Output.safe($0) }.joined(separator: " ") }

    /// "!high", coloured by how much it matters.
    static func priority(_ priority: Priority?) -> String {
        switch priority {
        case .high: Output.red("!high")
        case .medium: Output.yellow("!medium")
        case .low: Output.dim("!low")
        case nil: ""
        }
    }
}

extension Project {
    /// The title, safe for a terminal.
    var shownTitle: String { Output.safe(title) }
}

extension ProjectTask {
    /// The title, safe for a terminal.
    var shownTitle: String { Output.safe(title) }
}

extension Entry {
    /// The todo's text or the task's title, safe for a terminal.
    var shownText: String { Output.safe(text) }

    /// "3f2a1b9c is a todo", "5d2f0e11 is a task of Garden": what an id named, for a message.
    var whatItIs: String {
        switch self {
        case let .todo(todo): "\(Output.short(todo.id)) is a todo"
        case let .task(task, project): "\(Output.short(task.id)) is a task of \(project.shownTitle)"
        }
    }
}

/// A command given an item of a kind it has no meaning for: says what the item is, and what the command takes.
func notFor(_ entry: Entry, _ what: String) -> ShownError {
    ShownError(message: "\(entry.whatItIs), and \(what)")
}

extension Entry {
    /// Whether it is a project's task.
    var isTask: Bool { if case .task = self { true } else { false } }
}
