import ArgumentParser
import Docket
import Foundation

struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change a todo's text.",
        discussion: "Example: docket edit 3f2a \"Buy oat milk\"")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's id or a unique prefix.") var id: String
    @Argument(help: "The new text.") var text: String

    func validate() throws {
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw ValidationError("the text of a todo cannot be empty") }
    }

    func run() throws {
        let store = try self.store.open()
        try store.updateTodo(try store.todoID(id)) { $0.alter(.text(text)) }
        print("Edited: \(Output.safe(text))")
    }
}

struct Due: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "due",
        abstract: "Set or clear a todo's due date.",
        discussion: "Dates: \(DateInput.forms); 'none' clears the date.\n\nExample: docket due 3f2a friday")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's id or a unique prefix.") var id: String
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The due date, or none.", valueName: "date|none"))
    var words: [String] = []

    var date: Date? { get throws { try DueInput.parse(words.joined(separator: " ")).date } }

    func validate() throws {
        if words.isEmpty { throw ValidationError("give a due date, or none to clear it") }
        _ = try date
    }

    func run() throws {
        let store = try self.store.open()
        let date = try self.date
        let changed = try store.updateTodo(try store.todoID(id)) { $0.alter(.due(date)) }
        print("\(changed.after.shownText): \(date.map { DateInput.relative($0) } ?? "no due date")")
    }
}

struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove a todo (its removal is recorded, so a sync can weigh it against edits elsewhere).",
        discussion: "Example: docket rm 3f2a")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's id or a unique prefix.") var id: String

    func run() throws {
        let store = try self.store.open()
        print("Removed: \(try store.removeTodo(try store.todoID(id)).shownText)")
    }
}
