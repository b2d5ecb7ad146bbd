import ArgumentParser
import Docket
import Foundation

struct ProjectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "project",
        abstract: "Add, list, show, rename and remove projects.",
        discussion: "Example: docket project add \"Party\"",
        subcommands: [AddProject.self, ListProjects.self, ShowProject.self, RenameProject.self, RemoveProject.self])

    struct AddProject: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a project and print its short id.",
            discussion: "Example: docket project add \"Party\"")
        @OptionGroup var store: StoreOptions
        @Argument(
            parsing: .allUnrecognized, help: ArgumentHelp("The project's title (quotes optional).", valueName: "title"))
        var words: [String] = []

        var title: String { get throws { try TextWords.join(words, what: "a project's title") } }

        func validate() throws { _ = try title }

        func run() throws {
            let project = Project(title: try title)
            try store.open().addProject(project)
            print(Output.short(project.id))
        }
    }

    struct ListProjects: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the projects with their tasks' progress.",
            discussion:
                "--json prints an array of projects, each with id, title, alterDate and its tasks (as in their files).\n\nExample: docket project list"
        )
        @OptionGroup var store: StoreOptions
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() throws {
            let state = loadWarning(try store.open().load())
            if json { return try Output.json(state.projects) }
            if state.projects.isEmpty { return print("No projects.") }
            for project in state.projects {
                let finished = project.tasks.filter { $0.state == .finished }.count
                print(
                    "\(Output.dim(Output.short(project.id)))  \(project.shownTitle)  \(Output.dim("\(finished)/\(project.tasks.count) tasks finished"))"
                )
            }
        }
    }

    struct ShowProject: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show a project and its tasks.",
            discussion: "--json prints the project with its tasks and time slips.\n\nExample: docket project show 7c1e")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The project's id, a unique prefix of it, or its title.", completion: Completions.projects)
        var id: String
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() throws {
            let store = try self.store.open()
            let project = try store.project(try store.projectID(idOrTitle: id))
            if json { return try Output.json(project) }
            print("\(project.shownTitle)  \(Output.dim(project.id.uuidString.lowercased()))")
            if project.tasks.isEmpty { print("  no tasks") }
            let now = DocketClock.now
            // NB: as list shows a task (priority, tags, repeat, due date, what it waits on and what blocks it), with
            // the time recorded.
            let blocking = Blocking(
                todos: try store.loadTodos(openOnly: true).todos, projects: try store.loadProjects().projects)
            var relative = RelativeDays(now: now)
            for task in project.tasks {
                var text =
                    "  "
                    + line(
                        .task(task, project: project), now: now, relative: &relative, showProject: false,
                        blocking: blocking)
                let seconds = task.recorded(until: now)
                if seconds > 0 { text += "  " + Output.dim(duration(seconds)) }
                if task.runningSlip != nil { text += "  " + Output.green("(recording)") }
                print(text)
            }
        }
    }

    struct RenameProject: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename", abstract: "Rename a project.",
            discussion: """
                The project is named by its id, a unique prefix of it, or its title (quoted when it is more than one \
                word), as 'project show' and 'task add' take it.

                Examples:
                  docket project rename 7c1e "Garden party"
                  docket project rename Party Garden party
                """)
        @OptionGroup var store: StoreOptions
        @Argument(help: "The project's id, a unique prefix of it, or its title.", completion: Completions.projects)
        var id: String
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The new title (quotes optional).", valueName: "title"))
        var words: [String] = []

        var title: String { get throws { try TextWords.join(words, what: "a project's title") } }

        func validate() throws { _ = try title }

        func run() throws {
            let store = try self.store.open()
            let title = try self.title
            try store.updateProject(try store.projectID(idOrTitle: id)) { $0.alter(by: .setting(.title(to: title))) }
            print("Renamed project: \(Output.safe(title))")
        }
    }

    struct RemoveProject: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove a project with its tasks.",
            discussion: "Example: docket project rm 7c1e")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The project's id, a unique prefix of it, or its title.", completion: Completions.projects)
        var id: String

        func run() throws {
            let store = try self.store.open()
            print("Removed project: \(try store.removeProject(try store.projectID(idOrTitle: id)).shownTitle)")
        }
    }
}

func mark(_ state: TaskState) -> String {
    switch state {
    case .unfinished: "[ ]"
    case .inProgress: Output.yellow("[~]")
    case .finished: Output.green("[x]")
    }
}

/// "1h 05m", "12m", "40s".
func duration(_ seconds: TimeInterval) -> String {
    let total = Int(seconds)
    if total >= 3600 { return String(format: "%dh %02dm", total / 3600, (total % 3600) / 60) }
    if total >= 60 { return "\(total / 60)m" }
    return "\(total)s"
}
