import ArgumentParser
import Docket
import DocketSystem
import Foundation

struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract:
            "Change a todo's text or a task's title, or, with no text, edit all it holds in $VISUAL or $EDITOR.",
        discussion: """
            With no text, a form opens on the todo or task: text, due, wait, scheduled, tags, priority, repeat and \
            depends lines, then its notes, one per '- ' line. The lines you change are applied when the editor \
            exits. A form that does not read changes nothing; the next 'docket edit' of the item opens it again.

            Examples:
              docket edit 3f2a Buy oat milk
              docket edit 3f2a
            """)

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
        try store.changeEntry(ref, [.text(text)])
        print("Edited: \(Output.safe(text))")
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
    // The form as it was first shown, kept beside it: a form taken up again applies only the lines the person
    // changed, not the values the item had then (a change made since would be undone).
    let shownName = "edit-\(Output.short(id)).shown.txt"
    let file = try store.localFile(name)
    var shown = before.file
    if try store.localText(name) != nil {
        Output.notice("Going on from your last edit of this \(entry.isTask ? "task" : "todo"), which was not applied.")
        // NB: a form kept by a docket before this one has no shown copy: the item as it is now stands in.
        if let kept = try store.localText(shownName) {
            shown = kept
            if kept != before.file {
                Output.notice("It has changed since; only the lines you change are applied.")
            }
        }
    } else {
        try store.writeLocalText(before.file, to: shownName)
        try store.writeLocalText(before.file, to: name)
    }
    let status = try Spawn.attached(["/bin/sh", "-c", editor + " \"$1\"", "sh", file.path])
    guard status == 0 else {
        throw ShownError(
            message:
                "the editor (\(Output.safe(editor))) exited with status \(status); nothing was changed; 'docket edit \(Output.short(id))' goes on from your edit"
        )
    }
    let changes: [SharedChange]
    do {
        let after = try TodoForm.parse(try store.localText(name) ?? "")
        changes = try after.changes(to: entry, shown: try TodoForm.parse(shown), store: store)
    } catch let error as ValidationError {
        throw ShownError(
            message: "\(error.message); nothing was changed; 'docket edit \(Output.short(id))' goes on from your edit")
    } catch let error as StoreError {
        throw ShownError(
            message:
                "\(Output.safeLines(error.description)); nothing was changed; 'docket edit \(Output.short(id))' goes on from your edit"
        )
    }
    // The kept form goes only once the change is written: a docket killed in
    // between finds the form again, and applying it twice changes nothing.
    if changes.isEmpty {
        store.removeLocalFile(name)
        store.removeLocalFile(shownName)
        return print("Nothing changed: \(entry.shownText)")
    }
    let changed = try store.changeEntry(
        ref, changes)
    store.removeLocalFile(name)
    store.removeLocalFile(shownName)
    if changed.before == changed.after { return print("Nothing changed: \(entry.shownText)") }
    let dueNow = changed.after.due
    // NB: every field the form changed is named, not only the text and the due date shown beside it.
    print(
        "Edited: \(changed.after.shownText)"
            + (dueNow == .unknown ? "" : "  " + DateInput.relative(dueNow, done: changed.after.isDone))
            + "  " + Output.dim("(changed \(SharedChange.fields(changes)))"))
}
