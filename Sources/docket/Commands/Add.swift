import ArgumentParser
import Docket
import Foundation

struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a todo and print its short id.",
        discussion: "Example: docket add \"Buy milk\" --due tomorrow")

    @OptionGroup var store: StoreOptions
    @Argument(help: "What is to be done.") var text: String
    @Option(parsing: .unconditional, help: ArgumentHelp("When it is due: \(DateInput.forms); none for no date.", valueName: "date"),
            transform: DueInput.parse)
    var due: DueInput?

    func validate() throws {
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw ValidationError("the text of a todo cannot be empty") }
    }

    func run() throws {
        var todo = TodoItem(text: text)
        if let date = due?.date { todo = todo.alter(.due(date)) }
        try store.open().addTodo(todo)
        print(Output.short(todo.id))
    }
}
