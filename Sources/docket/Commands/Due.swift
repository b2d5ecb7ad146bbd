import ArgumentParser
import Docket
import Foundation

struct Due: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "due",
        abstract: "Set or clear a todo's or task's due date.",
        discussion: """
            Dates: \(DateInput.forms); 'none' clears the date. Quotes are optional.

            Examples:
              docket due 3f2a friday
              docket due 3f2a tomorrow 9am
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's or task's id or a unique prefix.", completion: Completions.openItems) var id: String
    @OptionGroup var due: DateArgument

    func run() throws {
        let store = try self.store.open()
        let due = try due.date
        let changed = try store.changeEntry(
            try store.entryRef(id), [.due(due)])
        print("\(changed.after.shownText): \(DateInput.relative(due, done: changed.after.isDone))")
    }
}
