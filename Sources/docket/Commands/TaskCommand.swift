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

    /// The state as the command takes it: "unfinished", "in-progress", "finished".
    var typed: String { self == .inProgress ? "in-progress" : rawValue }
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
            discussion: """
                Quotes are optional, and a word that starts with + is a tag, as for 'docket add'. \
                --every makes it repeat: finishing it makes the next one in the project. \
                --wait, --scheduled and --depends are as for 'docket add'.

                Examples:
                  docket task add 7c1e "Buy Beer" --due saturday
                  docket task add 7c1e Mow +garden --priority low --every week --due saturday
                  docket task add 7c1e Paint shed --wait next week --depends 9c1e
                """)
        @OptionGroup var store: StoreOptions
        @Argument(help: "The project's id, a unique prefix of it, or its title.", completion: Completions.projects)
        var project: String
        @Argument(
            parsing: .allUnrecognized,
            help: ArgumentHelp(
                "The task's title (quotes optional); words starting with + are tags.", valueName: "title"))
        var words: [String] = []
        @OptionGroup var options: NewItemOptions

        var parts: (text: String, tags: [String]) {
            get throws { try TagWords.split(words, what: "a task's title", command: Self.self) }
        }

        func validate() throws { _ = try parts }

        func run() throws {
            let store = try self.store.open()
            let (title, tags) = try parts
            let projectID = try store.projectID(idOrTitle: project)
            var task = ProjectTask(title: title)
            task = task.alter(by: try options.changes(for: task.id, tags: tags, store: store).map(\.task))
            try store.addTask(task, to: projectID)
            print(Output.short(task.id))
        }
    }

    struct SetState: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "state", abstract: "Set a task's state.",
            discussion: "Example: docket task state 5d2f in-progress")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The task's id or a unique prefix.", completion: Completions.tasks) var task: String
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
        @Argument(help: "The task's id or a unique prefix.", completion: Completions.tasks) var task: String
        @OptionGroup var due: DateArgument

        func run() throws {
            let due = try due.date
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
        @Argument(help: "The task's id or a unique prefix.", completion: Completions.tasks) var task: String
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
        @Argument(help: "The task's id or a unique prefix.", completion: Completions.tasks) var task: String

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
        @Argument(help: "The task's id or a unique prefix.", completion: Completions.openTasks) var task: String

        func run() throws {
            try record(
                .start, task, store: try store.open(), done: "recording time", unchanged: "is already recording time")
        }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stop", abstract: "Stop recording time on a task.",
            discussion: "Example: docket task stop 5d2f")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The task's id or a unique prefix.", completion: Completions.openTasks) var task: String

        func run() throws {
            try record(
                .stop, task, store: try store.open(), done: "stopped recording", unchanged: "was not recording time")
        }
    }
}

/// Starts or stops recording time on the task a typed id names (any id the day's view shows: a todo's is refused,
/// saying why), and says what happened.
func record(_ record: ProjectTask.Change.Record, _ typed: String, store: Store, done: String, unchanged: String) throws
{
    let ref = try store.entryRef(typed)
    guard case let .task(taskID, projectID) = ref else {
        throw notFor(
            try store.entry(ref), "only a project's tasks record time ('docket task add <project> <title>' adds one)")
    }
    if record == .start, case let .task(task, _) = try store.entry(ref), task.state == .finished {
        throw ShownError(
            message:
                "task '\(task.shownTitle)' is finished, and a finished task records no time; 'docket reopen \(Output.short(task.id))' opens it again"
        )
    }
    let changed = try store.updateTask(taskID, in: projectID) { $0.alter(by: .recording(record)) }
    print("Task '\(changed.after.shownTitle)' \(changed.before == changed.after ? unchanged : done)")
}

/// Applies one change to a task and says what happened.
func changeTask(_ typed: String, store: Store, _ change: ProjectTask.Change, done: String) throws {
    let (taskID, projectID) = try store.taskID(typed)
    let changed = try store.updateTask(taskID, in: projectID) { $0.alter(by: change) }
    print("Task '\(changed.after.shownTitle)' \(done)")
}
