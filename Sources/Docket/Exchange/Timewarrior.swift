import DocketModel
import Foundation

/// Timewarrior's JSON (`timew export`) read into time slips.
///
/// An interval's tags, joined by spaces, name its task: a task of that title
/// in any project receives the slip; otherwise the task is made in the
/// project "Timewarrior". An interval without tags goes to the task
/// "Untagged". An open interval is a running slip. Each slip's id is made from
/// its start, so importing the same intervals again adds nothing. An
/// interval's annotation is not carried; the import says how many it left.
public enum Timewarrior {
    static let namespace = UUID(uuidString: "0C6E2B91-5F47-4D3A-B8E2-7A19F3C0D6E5")!
    /// The project that receives tasks no project has.
    public static let projectTitle = "Timewarrior"

    struct Interval: Decodable {
        var start: String?
        var end: String?
        var tags: [String]?
        var annotation: String?
    }

    /// Reads an export against the store's projects.
    public static func read(_ data: Data, file: String, projects: [Project]) -> ExchangeBatch {
        var batch = ExchangeBatch()
        guard String(validating: data, as: UTF8.self) != nil else {
            batch.problems.append(
                ExchangeProblem(file: file, reason: "it is not UTF-8 text", skipped: "the whole file"))
            return batch
        }
        guard let intervals = try? JSONDecoder().decode([Interval].self, from: data) else {
            batch.problems.append(
                ExchangeProblem(
                    file: file,
                    reason: "it is not Timewarrior's JSON (cut short?); 'timew export > file' writes a whole one",
                    skipped: "the whole file"))
            return batch
        }
        var owners: [String: (project: Project, task: ProjectTask)] = [:]
        for project in projects {
            for task in project.tasks where owners[task.title] == nil { owners[task.title] = (project, task) }
        }
        let home =
            projects.first { $0.title == projectTitle }
            ?? Project(
                id: NameBasedID.make(namespace: namespace, name: "project " + projectTitle), title: projectTitle,
                tasks: [], alterDate: nil)
        var slips: [String: [TimeSlip]] = [:]
        var titles: [String] = []
        for (index, interval) in intervals.enumerated() {
            let place = "interval \(index + 1)"
            guard let startText = interval.start, let start = BasicDate.date(startText) else {
                batch.problems.append(
                    ExchangeProblem(
                        file: file, place: place, reason: "its start is missing or not a date", skipped: "that interval"
                    ))
                continue
            }
            var stop: Date?
            if let endText = interval.end {
                guard let end = BasicDate.date(endText), end >= start else {
                    batch.problems.append(
                        ExchangeProblem(
                            file: file, place: place,
                            reason: "its end \"\(endText.prefix(20))\" is not a date after its start",
                            skipped: "that interval"))
                    continue
                }
                stop = end
            }
            let tags = interval.tags ?? []
            let title = tags.isEmpty ? "Untagged" : tags.joined(separator: " ")
            if slips[title] == nil { titles.append(title) }
            slips[title, default: []].append(
                TimeSlip(
                    id: NameBasedID.make(namespace: namespace, name: "slip \(BasicDate.string(start))"),
                    start: start, stop: stop))
        }
        var byProject: [UUID: Project] = [:]
        var order: [UUID] = []
        for title in titles {
            let (project, task) =
                owners[title] ?? (
                    home,
                    ProjectTask(
                        id: NameBasedID.make(namespace: namespace, name: "task " + title), title: title,
                        dueDate: .unknown, state: .unfinished, timeSlips: [], alterDate: nil)
                )
            let known = Set(task.timeSlips.map(\.id))
            let added = task.timeSlips + slips[title]!.filter { !known.contains($0.id) }.sorted { $0.start < $1.start }
            let filled = task.replacing(
                timeSlips: added,
                creationDate: .some(task.creationDate ?? (owners[title] == nil ? added.first?.start : nil)))
            let holder =
                byProject[project.id]
                ?? Project(id: project.id, title: project.title, tasks: [], alterDate: project.alterDate)
            if byProject[project.id] == nil { order.append(project.id) }
            byProject[project.id] = Project(
                id: holder.id, title: holder.title, tasks: holder.tasks + [filled], alterDate: holder.alterDate)
        }
        batch.state = AppState(todos: [], projects: order.map { byProject[$0]! }, removed: [])
        let annotated = intervals.filter { !($0.annotation ?? "").isEmpty }.count
        if annotated > 0 {
            batch.notes.append(
                "Not carried: the annotation of \(annotated) \(annotated == 1 ? "interval" : "intervals") (a slip has no text of its own)."
            )
        }
        return batch
    }
}
