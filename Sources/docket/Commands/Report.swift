import ArgumentParser
import Docket
import Foundation

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Show the time recorded per task and project; running slips are marked.",
        discussion: """
            --json prints {"projects": [{"id", "title", "seconds", "tasks": [{"id", "title", "seconds", "running"}]}], "seconds"}; \
            a running slip counts up to now.

            Example: docket report --project 7c1e
            """)

    @OptionGroup var store: StoreOptions
    @Option(help: "Only this project (its id or a unique prefix).") var project: String?
    @Flag(help: "Print JSON for scripts.") var json = false

    struct TaskTime: Encodable {
        let id: UUID, title: String, seconds: Int, running: Bool
    }
    struct ProjectTime: Encodable {
        let id: UUID, title: String, seconds: Int, tasks: [TaskTime]
    }
    struct Totals: Encodable {
        let projects: [ProjectTime], seconds: Int
    }

    func run() throws {
        let store = try self.store.open()
        let projects: [Project]
        if let project {
            projects = [try store.project(try IDs.project(project, in: store))]
        } else {
            projects = loadWarning(try store.load()).projects
        }
        let now = Date()
        let times = projects.map { project in
            let tasks = project.tasks.map { TaskTime(id: $0.id, title: $0.title, seconds: Int(recorded($0, now: now)), running: $0.runningSlip != nil) }
            return ProjectTime(id: project.id, title: project.title, seconds: tasks.reduce(0) { $0 + $1.seconds }, tasks: tasks)
        }
        let totals = Totals(projects: times, seconds: times.reduce(0) { $0 + $1.seconds })
        if json { return try Output.json(totals) }
        if times.isEmpty { return print("No projects.") }
        for project in times {
            print("\(project.title)  \(duration(TimeInterval(project.seconds)))")
            for task in project.tasks where task.seconds > 0 || task.running {
                print("  \(duration(TimeInterval(task.seconds)).padding(toLength: 8, withPad: " ", startingAt: 0))  \(task.title)\(task.running ? "  " + Output.green("(running)") : "")")
            }
        }
        print("Total  \(duration(TimeInterval(totals.seconds)))")
    }
}
