import ArgumentParser
import Docket
import Foundation

struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a todo and print its short id.",
        discussion: "Quotes are optional: docket add Buy milk --due tomorrow\n\nExample: docket add \"Buy milk\" --due tomorrow")

    @OptionGroup var store: StoreOptions
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("What is to be done.", valueName: "text")) var words: [String] = []
    @Option(parsing: .unconditional, help: ArgumentHelp("When it is due: \(DateInput.forms); none for no date.", valueName: "date"),
            transform: DueInput.parse)
    var due: DueInput?

    var text: String { get throws { try TextWords.join(words, what: "the text of a todo", options: ["--due"]) } }

    func validate() throws { _ = try text }

    func run() throws {
        var todo = TodoItem(text: try text)
        if let date = due?.date { todo = todo.alter(.due(date)) }
        try store.open().addTodo(todo)
        print(Output.short(todo.id))
    }
}
