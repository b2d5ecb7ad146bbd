import ArgumentParser
import Docket

struct Done: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "done",
        abstract: "Mark todos done.",
        discussion: "Example: docket done 3f2a 9b1c")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todos' ids or unique prefixes.", completion: Completions.openTodos) var ids: [String]

    func validate() throws { if ids.isEmpty { throw ValidationError("give at least one todo id") } }

    func run() throws {
        let store = try store.open()
        let (changed, next) = try store.completeTodos(try ids.map(store.todoID))
        for todo in changed {
            print("\(todo.before == todo.after ? "Already done" : "Done"): \(todo.after.shownText)")
        }
        for todo in next {
            print(
                "Next: \(Output.short(todo.id))  \(todo.shownText)\(todo.due == .unknown ? "" : ", due \(DateInput.show(todo.due))")"
            )
        }
    }
}

struct Reopen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reopen",
        abstract: "Mark done todos open again.",
        discussion: "Example: docket reopen 3f2a")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todos' ids or unique prefixes.", completion: Completions.doneTodos) var ids: [String]

    func validate() throws { if ids.isEmpty { throw ValidationError("give at least one todo id") } }

    func run() throws {
        try setCompleted(false, ids: ids, store: try store.open())
    }
}

func setCompleted(_ completed: Bool, ids: [String], store: Store) throws {
    let changed = try store.updateTodos(try ids.map(store.todoID)) { $0.alter(.completed(completed)) }
    for todo in changed {
        print(
            "\(todo.before == todo.after ? (completed ? "Already done" : "Already open") : (completed ? "Done" : "Reopened")): \(todo.after.shownText)"
        )
    }
}
