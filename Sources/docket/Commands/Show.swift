import ArgumentParser
import Docket
import Foundation

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one todo.",
        discussion: "--json prints the todo as in its file.\n\nExample: docket show 3f2a")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's id or a unique prefix of it.", completion: Completions.openTodos) var id: String
    @Flag(help: "Print JSON for scripts.") var json = false

    func run() throws {
        let store = try self.store.open()
        let todo = try store.todo(try store.todoID(id))
        if json { return try Output.json(todo) }
        print("""
            \(todo.shownText)
              id        \(todo.id.uuidString.lowercased())
              state     \(todo.completed ? "done" : "open")
              due       \(todo.dueDate.map { "\(DateInput.show($0)) (\(DateInput.relative($0)))" } ?? "none")
              created   \(DateInput.show(todo.creationDate))
              changed   \(todo.alterDate.map(DateInput.show) ?? "never")
            """)
    }
}
