import ArgumentParser
import Docket
import Foundation

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one todo or task, with its tags, priority, notes, how it repeats and what it waits on.",
        discussion: """
            --json prints the item as in its file, with kind (todo or task) and, for a task, \
            project (the project's id) and projectTitle.

            Example: docket show 3f2a
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's or task's id or a unique prefix of it.", completion: Completions.allItems) var id:
        String
    @Flag(help: "Print JSON for scripts.") var json = false

    func run() throws {
        let store = try self.store.open()
        let entry = try store.entry(try store.entryRef(id))
        switch entry {
        case let .todo(todo):
            if json { return try Output.json(entry) }
            var rows = [
                ("id", todo.id.uuidString.lowercased()),
                (
                    "state",
                    todo.completed ? "done" + (todo.completedDate.map { " \(DateInput.show($0))" } ?? "") : "open"
                ),
                ("due", due(todo.due, done: todo.completed)),
            ]
            rows += details(entry)
            rows += planning(entry, store: store)
            if let recurrence = todo.recurrence {
                rows.append(("repeats", repeats(recurrence, due: todo.due, open: !todo.completed, when: "done")))
            }
            rows += kept(todo.kept)
            rows += [
                ("created", DateInput.show(todo.creationDate)),
                ("changed", todo.alterDate.map(DateInput.show) ?? "never"),
            ]
            print(todo.shownText)
            printRows(rows)
        case let .task(task, project):
            if json { return try Output.json(entry) }
            var rows = [
                ("id", task.id.uuidString.lowercased()),
                ("project", "\(project.shownTitle) (\(Output.short(project.id)))"),
                ("state", task.state.typed + (task.completedDate.map { " \(DateInput.show($0))" } ?? "")),
                ("due", due(task.dueDate, done: task.state == .finished)),
            ]
            rows += details(entry)
            rows += planning(entry, store: store)
            if let recurrence = task.recurrence {
                rows.append(
                    ("repeats", repeats(recurrence, due: task.dueDate, open: task.state != .finished, when: "finished"))
                )
            }
            rows += kept(task.kept)
            rows += [
                (
                    "time",
                    "\(task.timeSlips.count) \(task.timeSlips.count == 1 ? "slip" : "slips")\(task.runningSlip == nil ? "" : ", one running")"
                ),
                ("created", task.creationDate.map(DateInput.show) ?? "unknown"),
                ("changed", task.alterDate.map(DateInput.show) ?? "never"),
            ]
            print(task.shownTitle)
            printRows(rows)
        }
        let notes = entry.notes
        if !notes.isEmpty {
            print("  notes")
            for (index, note) in notes.enumerated() {
                let lead = "    \(index + 1). "
                let date = DateInput.show(note.date)
                // A note's later lines go under its first, not at the left edge.
                let indent = "\n" + String(repeating: " ", count: lead.count + date.count + 2)
                let text = Output.safeLines(note.text).split(separator: "\n", omittingEmptySubsequences: false)
                    .joined(separator: indent)
                print("\(lead)\(Output.dim(date))  \(text)")
            }
        }
    }

    /// "2026-12-24 (due in 3 days)", "2026-12-24 18:30 (due thu 18:30)"; a done item's date alone.
    private func due(_ due: DueDate, done: Bool) -> String {
        due == .unknown || done ? DateInput.show(due) : "\(DateInput.show(due)) (\(DateInput.relative(due)))"
    }

    /// "every week from the due date, instance 2; when done, the next is due 2026-12-08".
    private func repeats(_ recurrence: Recurrence, due: DueDate, open: Bool, when: String) -> String {
        var text = "\(recurrence.description(due: due)), instance \(recurrence.occurrence)"
        if open, let next = recurrence.nextDue(due: due, done: DocketClock.now) {
            let about = recurrence.from == .due && due != .unknown ? "" : "about "
            text += "; when \(when), the next is due \(about)\(DateInput.show(next))"
        }
        return text
    }

    private func details(_ entry: Entry) -> [(String, String)] {
        [
            ("priority", entry.priority?.rawValue ?? "none"),
            ("tags", entry.tags.isEmpty ? "none" : Shown.tags(entry.tags)),
        ]
    }

    /// Its wait and scheduled dates, and each item it depends on, with whether it blocks.
    private func planning(_ entry: Entry, store: Store) -> [(String, String)] {
        var rows: [(String, String)] = []
        let now = DocketClock.now
        if entry.waitDate != .unknown {
            rows.append(
                ("wait", DateInput.show(entry.waitDate) + (entry.isWaiting(at: now) ? " (hidden until then)" : "")))
        }
        if entry.scheduledDate != .unknown { rows.append(("scheduled", DateInput.show(entry.scheduledDate))) }
        for (index, id) in entry.dependencies.enumerated() {
            let shown: String
            if let other = try? store.entry(store.entryRef(id.uuidString)) {
                shown =
                    "\(Output.safe(other.text)) (\(other.isDone ? "done" : entry.isDone ? "open" : "open: blocks it"))"
            } else {
                shown = "(no longer in the store: blocks nothing)"
            }
            rows.append((index == 0 ? "depends" : "", "\(Output.short(id))  \(shown)"))
        }
        if let claim = entry.claim { rows.append(("claimed", ClaimText.show(claim, on: entry, now: now))) }
        // NB: which items depend on this one is not shown: finding them reads every todo (seconds at 100,000), where
        // show reads one file; lists and the day's view mark an item blocking.
        return rows
    }

    /// Another tool's keys the item keeps for an export back to it: "taskwarrior: estimate, wait".
    private func kept(_ kept: KeptKeys) -> [(String, String)] {
        kept.tools.sorted { $0.key < $1.key }.map { tool, keys in
            ("kept", "\(tool): " + keys.keys.sorted().joined(separator: ", ") + " (for 'docket export \(tool)')")
        }
    }

    private func printRows(_ rows: [(String, String)]) {
        for (label, value) in rows { print("  " + label.padding(toLength: 10, withPad: " ", startingAt: 0) + value) }
    }
}
