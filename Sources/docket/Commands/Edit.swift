import ArgumentParser
import Docket
import DocketSystem
import Foundation

struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract:
            "Change a todo's text or a task's title, or, with no text, edit it and its due date in $VISUAL or $EDITOR.",
        discussion: "Example: docket edit 3f2a Buy oat milk")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's or task's id or a unique prefix.", completion: Completions.openItems) var id: String
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp("The new text (quotes optional); none to open an editor.", valueName: "text"))
    var words: [String] = []

    var text: String? { get throws { words.isEmpty ? nil : try TextWords.join(words, what: "the text") } }

    func validate() throws { _ = try text }

    func run() throws {
        let store = try self.store.open()
        let ref = try store.entryRef(id)
        guard let text = try text else { return try editInEditor(ref, store: store) }
        try store.changeEntry(ref, todo: { $0.alter(.text(text)) }, task: { $0.alter(by: .setting(.title(to: text))) })
        print("Edited: \(Output.safe(text))")
    }
}

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
    @OptionGroup var due: DueWords

    func run() throws {
        let store = try self.store.open()
        let due = try due.due
        let changed = try store.changeEntry(
            try store.entryRef(id), todo: { $0.alter(.dueDate(to: due)) },
            task: { $0.alter(by: .setting(.dueDate(to: due))) })
        print("\(changed.after.shownText): \(DateInput.relative(due, done: changed.after.isDone))")
    }
}

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

/// A todo or task as a plain form for an editor: its text (a task's title) and due date, one per line.
struct TodoForm: Equatable {
    var text: String
    var due: String

    init(text: String, due: String) {
        self.text = text
        self.due = due
    }

    init(_ entry: Entry) {
        self.init(text: entry.text, due: DateInput.show(entry.due))
    }

    /// The form as written to the file.
    var file: String {
        """
        # Edit it, save, and close the editor; lines starting with # are ignored.
        # due: \(DateInput.forms); or none.
        text: \(text)
        due: \(due)

        """
    }

    /// A form read back; lines after `text:` that name no field continue the text.
    static func parse(_ file: String) throws -> TodoForm {
        var text: [String]?
        var due: String?
        var inText = false
        for line in file.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("#") { continue }
            if line.hasPrefix("text:") {
                text = [String(line.dropFirst(5)).trimmingCharacters(in: .whitespaces)]
                inText = true
            } else if line.hasPrefix("due:") {
                due = String(line.dropFirst(4)).trimmingCharacters(in: .whitespaces)
                inText = false
            } else if inText, !line.trimmingCharacters(in: .whitespaces).isEmpty {
                text?.append(line)
            } else if !line.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError(
                    "the line '\(Output.safe(line))' names no field; the form has 'text:' and 'due:' lines")
            }
        }
        guard let text else { throw ValidationError("the form has no 'text:' line") }
        return TodoForm(text: text.joined(separator: "\n"), due: due ?? "none")
    }
}

/// Whether two due dates are the same, times to the minute.
func sameMinute(_ a: DueDate, _ b: DueDate) -> Bool {
    switch (a, b) {
    case let (.date(x), .date(y)): Int(x.timeIntervalSince1970 / 60) == Int(y.timeIntervalSince1970 / 60)
    default: a == b
    }
}

/// Opens the todo or task in `$VISUAL`, else `$EDITOR`, else vi, and applies what changed.
/// An edit that does not read (or an editor that fails) changes nothing and
/// is kept: the next `docket edit` of the item goes on from it.
func editInEditor(_ ref: EntryRef, store: Store) throws {
    let entry = try store.entry(ref)
    let id = entry.id
    let environment = ProcessInfo.processInfo.environment
    let chosen = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty }
    // vi on a pipe would wait for keys nobody types: without a chosen editor, only a terminal gets one.
    guard chosen != nil || isatty(STDIN_FILENO) == 1 else {
        throw ValidationError(
            "give the new text (docket edit \(Output.short(id)) <text>), or set $EDITOR to edit it in an editor")
    }
    let editor = chosen ?? "vi"
    let before = TodoForm(entry)
    let name = "edit-\(Output.short(id)).txt"
    let file = try store.localFile(name)
    if try store.localText(name) != nil {
        Output.notice("Going on from your last edit of this \(entry.isTask ? "task" : "todo"), which was not applied.")
    } else {
        try store.writeLocalText(before.file, to: name)
    }
    let status = try Spawn.attached(["/bin/sh", "-c", editor + " \"$1\"", "sh", file.path])
    guard status == 0 else {
        throw ShownError(
            message:
                "the editor (\(Output.safe(editor))) exited with status \(status); nothing was changed; 'docket edit \(Output.short(id))' goes on from your edit"
        )
    }
    let after: TodoForm
    var text: String?
    var due: DueDate?
    do {
        after = try TodoForm.parse(try store.localText(name) ?? "")
        if after.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("the text cannot be empty")
        }
        if after.text != before.text { text = after.text }
        if after.due != before.due {
            let read = try DueInput.parse(after.due).due
            // The form shows minutes: a due time read back within the same minute is the one it had.
            if !sameMinute(read, entry.due) { due = read }
        }
    } catch let error as ValidationError {
        throw ShownError(
            message: "\(error.message); nothing was changed; 'docket edit \(Output.short(id))' goes on from your edit")
    }
    // The kept form goes only once the change is written: a docket killed in
    // between finds the form again, and applying it twice changes nothing.
    if text == nil && due == nil {
        store.removeLocalFile(name)
        return print("Nothing changed: \(entry.shownText)")
    }
    let changed = try store.changeEntry(
        ref,
        todo: { $0.alter([text.map { .text($0) }, due.map { .dueDate(to: $0) }].compactMap { $0 }) },
        task: {
            $0.alter(
                by: [text.map { .setting(.title(to: $0)) }, due.map { .setting(.dueDate(to: $0)) }].compactMap { $0 })
        })
    store.removeLocalFile(name)
    let dueNow = changed.after.due
    print(
        "Edited: \(changed.after.shownText)"
            + (dueNow == .unknown ? "" : "  " + DateInput.relative(dueNow, done: changed.after.isDone)))
}

/// A due date typed as words after an id, quotes optional (`docket due 3f2a next week`), or none.
struct DueWords: ParsableArguments {
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The due date, or none.", valueName: "date|none"))
    var words: [String] = []

    /// The due date the words name; `.unknown` for none.
    var due: DueDate { get throws { try DueInput.parse(words.joined(separator: " ")).due } }

    func validate() throws {
        if words.isEmpty { throw ValidationError("give a due date, or none to clear it") }
        _ = try due
    }
}
