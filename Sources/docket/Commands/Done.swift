import ArgumentParser
import Docket

struct Done: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "done",
        abstract: "Mark todos done.",
        discussion: "Example: docket done 3f2a 9b1c")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todos' ids or unique prefixes.") var ids: [String]

    func validate() throws { if ids.isEmpty { throw ValidationError("give at least one todo id") } }

    func run() throws {
        try setCompleted(true, ids: ids, store: try store.open())
    }
}

struct Reopen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reopen",
        abstract: "Mark done todos open again.",
        discussion: "Example: docket reopen 3f2a")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todos' ids or unique prefixes.") var ids: [String]

    func validate() throws { if ids.isEmpty { throw ValidationError("give at least one todo id") } }

    func run() throws {
        try setCompleted(false, ids: ids, store: try store.open())
    }
}

func setCompleted(_ completed: Bool, ids: [String], store: Store) throws {
    let resolved = try ids.map { try IDs.todo($0, in: store) }
    let state = try store.edit(todos: Array(Set(resolved))) { state in
        state.alter(by: state.todos.map { .updating(.todo($0.alter(.completed(completed)))) })
    }
    for todo in state.todos { print("\(completed ? "Done" : "Reopened"): \(todo.text)") }
}
