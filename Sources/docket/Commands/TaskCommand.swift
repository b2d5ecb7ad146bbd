import ArgumentParser
import Docket
import Foundation

extension TaskState: ExpressibleByArgument {
    /// A state as typed: unfinished (or open), in-progress (or started), finished (or done).
    public init?(argument: String) {
        switch argument.lowercased() {
        case "unfinished", "open": self = .unfinished
        case "in-progress", "inprogress", "started": self = .inProgress
        case "finished", "done": self = .finished
        default: return nil
        }
    }

    /// The states as help lists them.
    public static var allValueStrings: [String] { ["unfinished", "in-progress", "finished"] }
}

struct TaskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "task",
        abstract: "Add, change and remove a project's tasks, and record time on them.",
        discussion: "Example: docket task add 7c1e \"Buy Beer\" --due saturday",
        subcommands: [
            AddTask.self, SetState.self, SetDue.self, RenameTask.self, RemoveTask.self, Start.self, Stop.self,
        ])

    struct AddTask: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a task to a project and print its short id.",
            discussion: "Example: docket task add 7c1e \"Buy Beer\" --due saturday")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The project's id or a unique prefix.") var project: String
        @Argument(
            parsing: .allUnrecognized, help: ArgumentHelp("The task's title (quotes optional).", valueName: "title"))
        var words: [String] = []
        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "When it is due: \(DateInput.forms); several words need no quotes; none for no date.",
                valueName: "date"),
            transform: DueInput.parse)
        var due: DueInput?

        var title: String { get throws { try TextWords.join(words, what: "a task's title", command: Self.self) } }

        func validate() throws { _ = try title }

        func run() throws {
            let store = try self.store.open()
            var task = ProjectTask(title: try title)
            if let due = due?.due { task = task.alter(by: .setting(.dueDate(to: due))) }
            try store.addTask(task, to: try store.projectID(project))
            print(Output.short(task.id))
        }
    }

    struct SetState: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "state", abstract: "Set a task's state.",
            discussion: "Example: docket task state 5d2f in-progress")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The task's id or a unique prefix.") var task: String
        @Argument(help: "unfinished, in-progress or finished.") var state: TaskState

        func run() throws {
            try changeTask(
                task, store: try store.open(), .setting(.state(to: state)),
                done: "is now \(state == .inProgress ? "in progress" : state.rawValue)")
        }
    }

    struct SetDue: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "due", abstract: "Set or clear a task's due date.",
            discussion: "Dates: \(DateInput.forms); 'none' clears it.\n\nExample: docket task due 5d2f +3d")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The task's id or a unique prefix.") var task: String
        @OptionGroup var due: DueWords

        func run() throws {
            let due = try due.due
            try changeTask(
                task, store: try store.open(), .setting(.dueDate(to: due)),
                done: due == .unknown ? "has no due date" : DateInput.relative(due))
        }
    }

    struct RenameTask: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename", abstract: "Rename a task.",
            discussion: "Example: docket task rename 5d2f \"Buy more beer\"")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The task's id or a unique prefix.") var task: String
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The new title (quotes optional).", valueName: "title"))
        var words: [String] = []

        var title: String { get throws { try TextWords.join(words, what: "a task's title") } }

        func validate() throws { _ = try title }

        func run() throws {
            try changeTask(task, store: try store.open(), .setting(.title(to: try title)), done: "renamed")
        }
    }

    struct RemoveTask: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove a task from its project.",
            discussion: "Example: docket task rm 5d2f")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The task's id or a unique prefix.") var task: String

        func run() throws {
            let store = try self.store.open()
            let (taskID, projectID) = try store.taskID(task)
            print("Removed task: \(try store.removeTask(taskID, in: projectID).shownTitle)")
        }
    }

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "start", abstract: "Start recording time on a task.",
            discussion: "Example: docket task start 5d2f")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The task's id or a unique prefix.") var task: String

        func run() throws {
            try changeTask(
                task, store: try store.open(), .recording(.start), done: "recording time",
                unchanged: "is already recording time")
        }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stop", abstract: "Stop recording time on a task.",
            discussion: "Example: docket task stop 5d2f")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The task's id or a unique prefix.") var task: String

        func run() throws {
            try changeTask(
                task, store: try store.open(), .recording(.stop), done: "stopped recording",
                unchanged: "was not recording time")
        }
    }
}

/// Applies one change to a task and says what happened.
func changeTask(_ typed: String, store: Store, _ change: ProjectTask.Change, done: String, unchanged: String? = nil)
    throws
{
    let (taskID, projectID) = try store.taskID(typed)
    let changed = try store.updateTask(taskID, in: projectID) { $0.alter(by: change) }
    if let unchanged, changed.before == changed.after {
        print("Task '\(changed.after.shownTitle)' \(unchanged)")
    } else {
        print("Task '\(changed.after.shownTitle)' \(done)")
    }
}
