import ArgumentParser
import Docket
import DocketSystem
import Foundation

struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change a todo's text, or, with no text, edit its text and due date in $VISUAL or $EDITOR.",
        discussion: "Example: docket edit 3f2a Buy oat milk")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's id or a unique prefix.", completion: Completions.openTodos) var id: String
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp("The new text (quotes optional); none to open an editor.", valueName: "text"))
    var words: [String] = []

    var text: String? { get throws { words.isEmpty ? nil : try TextWords.join(words, what: "the text of a todo") } }

    func validate() throws { _ = try text }

    func run() throws {
        let store = try self.store.open()
        let todoID = try store.todoID(id)
        guard let text = try text else { return try editInEditor(todoID, store: store) }
        try store.updateTodo(todoID) { $0.alter(.text(text)) }
        print("Edited: \(Output.safe(text))")
    }
}

struct Due: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "due",
        abstract: "Set or clear a todo's due date.",
        discussion: """
            Dates: \(DateInput.forms); 'none' clears the date. Quotes are optional.

            Examples:
              docket due 3f2a friday
              docket due 3f2a tomorrow 9am
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's id or a unique prefix.", completion: Completions.openTodos) var id: String
    @OptionGroup var due: DueWords

    func run() throws {
        let store = try self.store.open()
        let due = try due.due
        let changed = try store.updateTodo(try store.todoID(id)) { $0.alter(.dueDate(to: due)) }
        print("\(changed.after.shownText): \(DateInput.relative(due, done: changed.after.completed))")
    }
}

struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove a todo (its removal is recorded, so a sync can weigh it against edits elsewhere).",
        discussion: "Example: docket rm 3f2a")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's id or a unique prefix.", completion: Completions.openTodos) var id: String

    func run() throws {
        let store = try self.store.open()
        print("Removed: \(try store.removeTodo(try store.todoID(id)).shownText)")
    }
}

/// A todo as a plain form for an editor: its text and due date, one per line.
struct TodoForm: Equatable {
    var text: String
    var due: String

    init(text: String, due: String) {
        self.text = text
        self.due = due
    }

    init(_ todo: TodoItem) {
        self.init(text: todo.text, due: DateInput.show(todo.due))
    }

    /// The form as written to the file.
    var file: String {
        """
        # Edit the todo, save, and close the editor; lines starting with # are ignored.
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

/// Opens the todo in `$VISUAL`, else `$EDITOR`, else vi, and applies what changed.
/// An edit that does not read (or an editor that fails) changes nothing and
/// is kept: the next `docket edit` of the todo goes on from it.
func editInEditor(_ id: UUID, store: Store) throws {
    let todo = try store.todo(id)
    let environment = ProcessInfo.processInfo.environment
    let chosen = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty }
    // vi on a pipe would wait for keys nobody types: without a chosen editor, only a terminal gets one.
    guard chosen != nil || isatty(STDIN_FILENO) == 1 else {
        throw ValidationError(
            "give the new text (docket edit \(Output.short(id)) <text>), or set $EDITOR to edit it in an editor")
    }
    let editor = chosen ?? "vi"
    let before = TodoForm(todo)
    let name = "edit-\(Output.short(id)).txt"
    let file = try store.localFile(name)
    if try store.localText(name) != nil {
        Output.notice("Going on from your last edit of this todo, which was not applied.")
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
    var changes: [TodoItem.Change] = []
    do {
        after = try TodoForm.parse(try store.localText(name) ?? "")
        if after.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("the text of a todo cannot be empty")
        }
        if after.text != before.text { changes.append(.text(after.text)) }
        if after.due != before.due {
            let due = try DueInput.parse(after.due).due
            // The form shows minutes: a due time read back within the same minute is the one it had.
            if !sameMinute(due, todo.due) { changes.append(.dueDate(to: due)) }
        }
    } catch let error as ValidationError {
        throw ShownError(
            message: "\(error.message); nothing was changed; 'docket edit \(Output.short(id))' goes on from your edit")
    }
    // The kept form goes only once the change is written: a docket killed in
    // between finds the form again, and applying it twice changes nothing.
    if changes.isEmpty {
        store.removeLocalFile(name)
        return print("Nothing changed: \(todo.shownText)")
    }
    let changed = try store.updateTodo(id) { $0.alter(changes) }
    store.removeLocalFile(name)
    let due = changed.after.due
    print(
        "Edited: \(changed.after.shownText)"
            + (due == .unknown ? "" : "  " + DateInput.relative(due, done: changed.after.completed)))
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
