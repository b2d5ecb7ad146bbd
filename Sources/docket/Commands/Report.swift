import ArgumentParser
import Docket
import Foundation

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Show the time recorded per task and project; running slips are marked.",
        discussion: """
            --json prints {"projects": [{"id", "title", "seconds", "tasks": [{"id", "title", "seconds", "running", "finished"}]}], "seconds"}; \
            a running slip counts up to now; "finished" is the task's completion date, or null.

            Example: docket report --project 7c1e
            """)

    @OptionGroup var store: StoreOptions
    @Option(help: "Only this project (its id or a unique prefix).") var project: String?
    @Flag(help: "Print JSON for scripts.") var json = false

    func run() throws {
        let store = try self.store.open()
        let projects = try project.map { [try store.project(try store.projectID($0))] } ?? loadWarning(try store.load()).projects
        let report = TimeReport(projects, now: Date())
        if json { return try Output.json(report) }
        if report.projects.isEmpty { return print("No projects.") }
        for project in report.projects {
            print("\(Output.safe(project.title))  \(duration(TimeInterval(project.seconds)))")
            for task in project.tasks where task.seconds > 0 || task.running || task.finished != nil {
                print("  \(duration(TimeInterval(task.seconds)).padding(toLength: 8, withPad: " ", startingAt: 0))  \(Output.safe(task.title))\(task.running ? "  " + Output.green("(running)") : "")"
                      + (task.finished.map { "  " + Output.dim("finished \(DateInput.show($0))") } ?? ""))
            }
        }
        print("Total  \(duration(TimeInterval(report.seconds)))")
    }
}
