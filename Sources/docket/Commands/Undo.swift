import ArgumentParser
import Docket
import Foundation

struct Undo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Take back the last change made through docket on this machine.",
        discussion: """
            A change not committed yet gets its files back as they were. A change \
            committed or synced is reversed by a new edit, which commits and syncs \
            like any other, so other machines take the undo too. Undoing a merge puts \
            back the values this machine had before it (items it brought in stay). \
            A field changed since the change is left as it is, and named.

            Examples:
              docket undo
              docket undo -n 3
              docket undo --list
            """)

    @OptionGroup var store: StoreOptions
    @Option(name: .customShort("n"), help: "How many changes to take back, newest first.") var count = 1
    @Flag(help: "Show what would be undone, newest first, instead.") var list = false

    func validate() throws {
        if count < 1 { throw ValidationError("-n must be 1 or more") }
    }

    func run() throws {
        let store = try self.store.open()
        if list {
            let entries = try store.undoable()
            if entries.isEmpty { return print("Nothing to undo.") }
            for (index, entry) in entries.enumerated() {
                print(
                    "\(Output.bold(String(index + 1)))  \(Output.dim(DateInput.show(entry.date)))  \(Output.safe(entry.action))  "
                        + (entry.tooLarge.map { "\($0) items, too many to undo" } ?? Output.safe(summary(entry.items))))
            }
            return
        }
        for outcome in try store.undo(count) {
            if let count = outcome.entry.tooLarge {
                print(
                    "Cannot undo \(Output.safe(outcome.entry.action)): it changed \(count) items, too many to keep for undo; nothing changed, and it is off the list"
                )
                continue
            }
            let how =
                outcome.way == .restoredFiles
                ? "its files are back as they were" : "reversed by a new edit; commit and sync to share it"
            print("Undid \(Output.safe(outcome.entry.action)) (\(Output.safe(summary(outcome.entry.items)))): \(how)")
            for skipped in outcome.skipped { print("  kept \(Output.safe(skipped))") }
        }
    }

    private func summary(_ items: [String]) -> String {
        items.count <= 2
            ? items.joined(separator: ", ") : items.prefix(2).joined(separator: ", ") + " and \(items.count - 2) more"
    }
}
