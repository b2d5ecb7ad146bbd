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

            --since and --until count only the time between them (a day without a time: from its start, until its end). \
            --csv prints a row per slip in that time: project,task,start,stop,seconds (dates in UTC, ISO 8601; a running slip's stop is empty).

            Examples:
              docket report --project 7c1e
              docket report --since 2026-11-01 --until 2026-11-30 --csv > november.csv
            """)

    @OptionGroup var store: StoreOptions
    @Option(help: "Only this project (its id, a unique prefix of it, or its title).") var project: String?
    @Option(help: ArgumentHelp("Count time from this date: \(DateInput.forms).", valueName: "date")) var since: String?
    @Option(help: ArgumentHelp("Count time until this date (a day counts whole).", valueName: "date")) var until:
        String?
    @Flag(help: "Print JSON for scripts.") var json = false
    @Flag(help: "Print a CSV row per slip: project,task,start,stop,seconds.") var csv = false

    func validate() throws {
        if json && csv { throw ValidationError("choose one of --json and --csv") }
        if let (from, to) = try range(), let from, let to, to <= from {
            throw ValidationError("--until is not after --since; give an end after the start")
        }
    }

    /// The dates of --since and --until: the start of a day, the end of a day.
    func range() throws -> (Date?, Date?)? {
        let from = try since.map(DateInput.parseSince)
        let to = try until.map(DateInput.parseUntil)
        return (from, to)
    }

    func run() throws {
        let store = try self.store.open()
        let projects =
            try project.map { [try store.project(try store.projectID(idOrTitle: $0))] }
            ?? loadWarning(try store.load()).projects
        let (from, to) = try range() ?? (nil, nil)
        let now = DocketClock.now
        if csv { return Output.export(Report.csv(projects, now: now, since: from, until: to)) }
        let report = TimeReport(projects, now: now, since: from, until: to)
        if json { return try Output.json(report) }
        if report.projects.isEmpty { return print("No projects.") }
        for project in report.projects {
            print("\(Output.safe(project.title))  \(duration(TimeInterval(project.seconds)))")
            for task in project.tasks where task.seconds > 0 || task.running || task.finished != nil {
                print(
                    "  \(duration(TimeInterval(task.seconds)).padding(toLength: 8, withPad: " ", startingAt: 0))  \(Output.safe(task.title))\(task.running ? "  " + Output.green("(running)") : "")"
                        + (task.finished.map { "  " + Output.dim("finished \(DateInput.show($0))") } ?? ""))
            }
        }
        print("Total  \(duration(TimeInterval(report.seconds)))")
    }

    /// A row per slip (clipped to the range): project,task,start,stop,seconds, quoted where a field needs it.
    static func csv(_ projects: [Project], now: Date, since: Date?, until: Date?) -> String {
        func field(_ text: String) -> String {
            // NB: a leading =, +, -, @, tab or CR would start a formula in a spreadsheet (OWASP's list).
            var text = text
            if let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { text = "'" + text }
            // NB: by scalar: "\r\n" is one Character, equal to neither "\r" nor "\n".
            let quoted = text.unicodeScalars.contains {
                ",\"\n\r".unicodeScalars.contains($0) || $0.properties.generalCategory == .control
                    || $0.value == 0x2028 || $0.value == 0x2029
            }
            return quoted ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        }
        var rows = ["project,task,start,stop,seconds"]
        for project in projects {
            for task in project.tasks.map(\.asReported) {
                for slip in task.timeSlips {
                    let (start, stop) = slip.clipped(now: now, since: since, before: until)
                    guard stop > start || (slip.isRunning && stop >= start && until == nil) else { continue }
                    let shownStop =
                        slip.isRunning && (until == nil || until! > now) ? "" : DocketJSON.string(from: stop)
                    rows.append(
                        [
                            field(project.title), field(task.title), DocketJSON.string(from: start), shownStop,
                            String(Int(stop.timeIntervalSince(start))),
                        ].joined(separator: ","))
                }
            }
        }
        return rows.map { $0 + "\n" }.joined()
    }
}
