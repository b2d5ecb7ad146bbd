import ArgumentParser
import Docket
import Foundation

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the todos: open ones by default.",
        discussion: """
            --json prints an array of todos, each as in its file: id, text, completed, \
            creationDate, dueDate, alterDate (dates ISO-8601 UTC, null when unset).

            Example: docket list --all
            """)

    @OptionGroup var store: StoreOptions
    @Flag(help: "Also list completed todos.") var all = false
    @Flag(help: "List only completed todos.") var done = false
    @Flag(help: "Print JSON for scripts.") var json = false

    func validate() throws {
        if all && done { throw ValidationError("--all and --done cannot be used together") }
    }

    func run() throws {
        let state = loadWarning(try store.open().load())
        let todos = state.todos.filter { all || (done ? $0.completed : !$0.completed) }
        if json { return try Output.json(todos) }
        if todos.isEmpty {
            print(done ? "No completed todos." : (all ? "No todos." : "No open todos."))
            return
        }
        let now = Date()
        for todo in todos { print(line(todo, now: now)) }
    }
}

/// One todo on one line: short id, check box, text, due date.
func line(_ todo: TodoItem, now: Date) -> String {
    var text = "\(Output.dim(Output.short(todo.id)))  \(todo.completed ? "[x]" : "[ ]")  \(todo.completed ? Output.dim(todo.text) : todo.text)"
    if let due = todo.dueDate {
        let relative = DateInput.relative(due, now: now)
        text += "  " + (relative.hasPrefix("overdue") && !todo.completed ? Output.red(relative) : Output.yellow(relative))
    }
    return text
}
