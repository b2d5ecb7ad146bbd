import ArgumentParser
import Docket
import Foundation

struct Fork: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fork",
        abstract: "Make a new todo from an existing one, changing some of it on the way; prints the new short id.",
        discussion: "Example: docket fork 3f2a --text \"Buy milk for Anna\" --due +2d --open")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's id or a unique prefix.", completion: Completions.openTodos) var id: String
    @Option(help: "The new todo's text.") var text: String?
    @Option(
        parsing: .unconditional, help: ArgumentHelp("The new todo's due date, or none.", valueName: "date|none"),
        transform: DueInput.parse)
    var due: DueInput?
    @Flag(help: "Mark the new todo done.") var done = false
    @Flag(help: "Mark the new todo open.") var open = false

    func validate() throws {
        if done && open { throw ValidationError("--done and --open cannot be used together") }
        if let text, text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("the text of a todo cannot be empty")
        }
    }

    func run() throws {
        let store = try self.store.open()
        var changes: [TodoItem.Change] = []
        if let text { changes.append(.text(text)) }
        if let due { changes.append(.dueDate(to: due.due)) }
        if done { changes.append(.completed(true)) }
        if open { changes.append(.completed(false)) }
        let ref = try store.entryRef(id)
        guard case let .todo(todoID) = ref else {
            throw notFor(try store.entry(ref), "'docket fork' copies todos only; 'docket task add' adds a task")
        }
        print(Output.short(try store.forkTodo(todoID, changes).id))
    }
}
