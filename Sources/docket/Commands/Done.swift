import ArgumentParser
import Docket

struct Done: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "done",
        abstract: "Mark todos done and tasks finished.",
        discussion: """
            Takes any id the day's view or a list shows, todo or task. \
            A finished task's running time slip stops; a repeating one makes its next instance.

            Example: docket done 3f2a 9b1c
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todos' or tasks' ids or unique prefixes.", completion: Completions.openItems) var ids: [String]

    func validate() throws { if ids.isEmpty { throw ValidationError("give at least one todo or task id") } }

    func run() throws {
        let store = try store.open()
        let (changed, next) = try store.completeEntries(try ids.map(store.entryRef))
        for entry in changed {
            print("\(entry.before == entry.after ? "Already done" : "Done"): \(entry.after.shownText)")
        }
        for entry in next {
            print(
                "Next: \(Output.short(entry.id))  \(entry.shownText)\(entry.due == .unknown ? "" : ", due \(DateInput.show(entry.due))")"
            )
        }
    }
}

struct Reopen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reopen",
        abstract: "Mark done todos open again, and finished tasks unfinished.",
        discussion: """
            A reopened task is in progress again if time was recorded on it, else unfinished.

            Example: docket reopen 3f2a
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todos' or tasks' ids or unique prefixes.", completion: Completions.doneItems) var ids: [String]

    func validate() throws { if ids.isEmpty { throw ValidationError("give at least one todo or task id") } }

    func run() throws {
        let store = try store.open()
        let changed = try store.changeEntries(
            try ids.map(store.entryRef), todo: { $0.alter(.completed(false)) },
            task: { task in
                guard task.state == .finished else { return task }
                return task.alter(by: .setting(.state(to: task.timeSlips.isEmpty ? .unfinished : .inProgress)))
            })
        for entry in changed {
            print("\(entry.before == entry.after ? "Already open" : "Reopened"): \(entry.after.shownText)")
            // Completing a repeating item made its next instance; reopening it leaves that one, which is said.
            guard entry.before != entry.after, let next = entry.after.recurrence?.nextID else { continue }
            let instance: Entry? =
                switch entry.after {
                case .todo: (try? store.todo(next)).map(Entry.todo)
                case let .task(_, project):
                    (try? store.project(project.id)).flatMap { holder in
                        holder.task(id: next).map { Entry.task($0, project: holder) }
                    }
                }
            if let instance, !instance.isDone {
                print(
                    "  Its next instance stays open: \(Output.short(next))  \(instance.shownText) "
                        + "('docket rm \(Output.short(next))' removes it)")
            }
        }
    }
}
