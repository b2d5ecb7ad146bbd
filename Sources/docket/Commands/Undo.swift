import ArgumentParser
import Docket
import Foundation

struct Undo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Take back your last change made through docket on this machine.",
        discussion: """
            It takes back your own last change, even when a sync or pull merged other machines' \
            edits after it: only the fields that change set (the tags it added or removed, the notes \
            it wrote), leaving the merged-in edits of others alone. A field changed since, here or by \
            another machine, is left as it is and named, with whose edit it holds. Where a later merge \
            had set another machine's edit of the same field aside for yours, the field takes that \
            edit back, as the merge would have without your change.

            A change not committed yet gets its files back as they were. A change committed or \
            synced is reversed by a new edit, which commits and syncs like any other, so other \
            machines take the undo too.

            --merge takes back the last merge instead (a pull or sync that merged other machines' \
            edits), naming whose edits it reverses: the values this machine had before it come back, \
            and the items it brought in stay.

            Examples:
              docket undo
              docket undo -n 3
              docket undo --merge
              docket undo --list
            """)

    @OptionGroup var store: StoreOptions
    @Option(name: .customShort("n"), help: "How many changes to take back, newest first.") var count = 1
    @Flag(help: "Take back the last merge of other machines' edits instead of your own change.") var merge = false
    @Flag(help: "Show what could be undone, newest first, instead.") var list = false

    func validate() throws {
        if count < 1 { throw ValidationError("-n must be 1 or more") }
        if list && merge { throw ValidationError("--list shows your changes and merges alike; give it alone") }
    }

    func run() throws {
        let store = try self.store.open()
        if list {
            let entries = try store.undoable()
            if entries.isEmpty { return print("Nothing to undo.") }
            for (index, entry) in entries.enumerated() {
                let action =
                    entry.isMerge
                    ? "\(entry.action), changes by \(entry.whose) (undo --merge)" : entry.action
                print(
                    "\(Output.bold(String(index + 1)))  \(Output.dim(DateInput.show(entry.date)))  \(Output.safe(action))  "
                        + (entry.tooLarge.map { "\($0) items, too many to undo" } ?? Output.safe(summary(entry.items))))
            }
            return
        }
        for outcome in try store.undo(count, merges: merge) {
            let entry = outcome.entry
            let what =
                entry.isMerge
                ? "\(entry.action), taking back the changes by \(entry.whose) it brought in" : entry.action
            if let count = entry.tooLarge {
                print(
                    "Cannot undo \(Output.safe(what)): it changed \(count) items, too many to keep for undo; nothing changed, and it is off the list"
                )
                continue
            }
            let how =
                switch outcome.way {
                case .restoredFiles: "its files are back as they were"
                case .unchanged:
                    entry.isMerge
                        ? "nothing changed: what it brought in stays, and nothing else was left to take back"
                        : "nothing changed: nothing was left to take back"
                default: "reversed by a new edit; commit and sync to share it"
                }
            print("Undid \(Output.safe(what)) (\(Output.safe(summary(entry.items)))): \(how)")
            for other in outcome.others { print("  \(Output.safe(other))") }
            for skipped in outcome.skipped { print("  kept \(Output.safe(skipped))") }
        }
    }

    private func summary(_ items: [String]) -> String {
        items.count <= 2
            ? items.joined(separator: ", ") : items.prefix(2).joined(separator: ", ") + " and \(items.count - 2) more"
    }
}
