import ArgumentParser
import Docket
import Foundation

struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract:
            "Remove a todo or task (its removal is recorded, so a sync can weigh it against edits elsewhere).",
        discussion: "Example: docket rm 3f2a")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's or task's id or a unique prefix.", completion: Completions.allItems) var id: String

    func run() throws {
        let store = try self.store.open()
        print("Removed: \(try store.removeEntry(try store.entryRef(id)).shownText)")
    }
}
