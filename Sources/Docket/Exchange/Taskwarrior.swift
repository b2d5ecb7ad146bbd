import DocketModel
import Foundation

/// Taskwarrior's JSON (`task export`, 2.6 and 3.x) read into Docket's items and written back for `task import`.
///
/// A task without a project is a todo; a task with one is a task of the Docket
/// project of that title (made when there is none). uuid is the id, entry the
/// creation date, modified the alter date, end the completion date; tags,
/// priority (H, M, L), due, wait, scheduled, depends (the uuids of the tasks it
/// depends on, which are those items' ids) and annotations (as notes) carry
/// over. A deleted task removes its item; a waiting one is open; a recurring task's instance
/// repeats in a series named by its template. Every other key of a task (`until`,
/// UDAs) is kept in the item's file
/// (`TodoItem.kept`), and a template's keys with each of its instances, so the
/// export hands them back: `task import` replaces a task whole.
public enum Taskwarrior {
    /// The namespace of the ids of projects and notes an import makes.
    static let namespace = UUID(uuidString: "6F1D3C52-8A0B-4E07-9A3E-2C5B7D11A0F4")!

    /// The keys Docket reads into its own fields (or that Taskwarrior works out afresh: `id`, `urgency`); every other
    /// is kept.
    static let readKeys: Set<String> = [
        "uuid", "description", "status", "entry", "modified", "due", "end", "project", "priority", "tags",
        "annotations", "id", "urgency", "wait", "scheduled", "depends", "until", seriesKey, undatedSeriesKey,
    ]
    /// The keys of a todo's recurrence, read into it.
    static let recurrenceKeys: Set<String> = ["recur", "parent", "imask", "rtype", "mask"]
    /// The key naming a series begun in Docket, on its template and instances: Docket's series id.
    static let seriesKey = "docketseries"
    /// The key holding how a todo or task without a due date repeats (its `Recurrence` as JSON): Taskwarrior repeats
    /// only a task with a due date, and keeps a key it does not know.
    static let undatedSeriesKey = "docketrecurrence"
    /// The kept key holding an instance's template's own keys.
    static let templateKey = "template"

    /// One task of an export, every field as text so each can be checked and named.
    struct Task: Decodable {
        var uuid: String?
        var description: String?
        var status: String?
        var entry: String?
        var modified: String?
        var due: String?
        var end: String?
        var start: String?
        var project: String?
        var priority: String?
        var recur: String?
        var parent: String?
        var imask: Double?
        var wait: String?
        var scheduled: String?
        var depends: Depends?
        var tags: [String]?
        var annotations: [Annotation]?
        var docketseries: String?
        var until: String?
        var mask: String?
        var docketrecurrence: String?
    }

    /// `depends` as Taskwarrior writes it: a list of uuids (2.6 and later), or one string of them, comma-separated.
    struct Depends: Decodable {
        let uuids: [String]
        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let list = try? c.decode([String].self) {
                uuids = list
            } else {
                uuids = try c.decode(String.self).split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }.filter { !$0.isEmpty }
            }
        }
    }

    struct Annotation: Codable {
        var entry: String?
        var description: String?
    }

    /// A task, or why it did not decode.
    private struct Lenient: Decodable {
        let task: Task?
        let problem: String?
        /// Every key of the task, as written.
        let raw: [String: JSONValue]
        init(from decoder: Decoder) throws {
            raw = (try? [String: JSONValue](from: decoder)) ?? [:]
            do {
                task = try Task(from: decoder)
                problem = nil
            } catch let DecodingError.typeMismatch(_, context), let DecodingError.dataCorrupted(context) {
                task = nil
                problem = "\(context.codingPath.map(\.stringValue).last ?? "it") is not what Taskwarrior writes"
            } catch {
                task = nil
                problem = "it is not a task"
            }
        }
    }

    /// Reads an export. `projects` gives the ids of the store's projects by title;
    /// a project not among them gets an id made from its title, the same on every machine.
    public static func read(_ data: Data, file: String, projects: [String: UUID]) -> ExchangeBatch {
        var batch = ExchangeBatch()
        batch.clockAsStart = true
        batch.completesUndatedSeries = true
        guard let text = String(validating: data, as: UTF8.self) else {
            batch.problems.append(
                ExchangeProblem(file: file, reason: "it is not UTF-8 text", skipped: "the whole file"))
            return batch
        }
        let entries: [Lenient]
        if let all = try? JSONDecoder().decode([Lenient].self, from: data) {
            entries = all
        } else if !text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("[") {
            // Taskwarrior before 2.6 wrote one task per line.
            var lines: [Lenient] = []
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                guard let entry = try? JSONDecoder().decode(Lenient.self, from: Data(line.utf8)) else {
                    batch.problems.append(
                        ExchangeProblem(
                            file: file, reason: "it is not Taskwarrior's JSON (a task per line, or a list of tasks)",
                            skipped: "the whole file"))
                    return batch
                }
                lines.append(entry)
            }
            entries = lines
        } else {
            batch.problems.append(
                ExchangeProblem(
                    file: file, reason: "it is not complete JSON (cut short?); 'task export > file' writes a whole one",
                    skipped: "the whole file"))
            return batch
        }

        // A template's own keys (its `until`, its UDAs…) go with each of its instances, for the export to hand back.
        var templates: [String: [String: JSONValue]] = [:]
        for entry in entries {
            guard let task = entry.task, task.status == "recurring", task.docketseries == nil,
                let uuid = task.uuid?.lowercased()
            else { continue }
            templates[uuid] = entry.raw.filter {
                !["uuid", "id", "urgency", "status", "modified", "mask"].contains($0.key)
            }
        }
        // A series whose template is deleted has ended: Taskwarrior makes no more of its instances, and keeps `recur`
        // on those left, which it will not take off. Such an instance is an item that does not repeat.
        let ended = Set(
            entries.compactMap { entry -> String? in
                guard let task = entry.task, task.status == "deleted", task.recur != nil, task.parent == nil else {
                    return nil
                }
                return task.uuid?.lowercased()
            })
        var todos: [TodoItem] = []
        var tasksByProject: [String: [ProjectTask]] = [:]
        var projectOrder: [String] = []
        var removed: [Tombstone] = []
        var keptCounts: [String: Int] = [:]
        // The task each id was first read in: an id listed twice would be two items with one file.
        var first: [UUID: Int] = [:]
        for (index, entry) in entries.enumerated() {
            let place = "task \(index + 1)"
            guard var task = entry.task else {
                batch.problems.append(
                    ExchangeProblem(
                        file: file, place: place, reason: entry.problem ?? "it is not a task", skipped: "that task"))
                continue
            }
            if let parent = task.parent?.lowercased(), ended.contains(parent) {
                (task.recur, task.parent, task.imask, task.docketseries, task.until) = (nil, nil, nil, nil, nil)
            }
            do {
                let isTodo = (task.project ?? "").isEmpty
                var kept = entry.raw.filter { !readKeys.contains($0.key) }
                kept = kept.filter { !recurrenceKeys.contains($0.key) }
                if !isTodo { kept["start"] = nil }
                if let parent = task.parent?.lowercased(), let template = templates[parent] {
                    kept[templateKey] = .object(template)
                }
                let read = try item(task, kept: KeptKeys(kept.isEmpty ? [:] : ["taskwarrior": kept]))
                if let id = read.id {
                    if let earlier = first[id] {
                        throw Unreadable(
                            reason: "its uuid is task \(earlier + 1)'s too; 'task export' lists each task once")
                    }
                    first[id] = index
                }
                switch read {
                case .template: continue
                case let .todo(todo): todos.append(todo)
                case let .task(projectTask, title):
                    if tasksByProject[title] == nil { projectOrder.append(title) }
                    tasksByProject[title, default: []].append(projectTask)
                case let .removed(id, date, title):
                    if let title, tasksByProject[title] == nil {
                        projectOrder.append(title)
                        tasksByProject[title] = []
                    }
                    let owner = title.map { projects[$0] ?? Taskwarrior.projectID(title: $0) }
                    removed.append(
                        Tombstone(id: id, kind: owner == nil ? .todo : .task, projectID: owner, removedDate: date))
                    continue
                }
                for key in kept.keys where key != templateKey { keptCounts[key, default: 0] += 1 }
            } catch let problem as Unreadable {
                let named = task.uuid.map { "\(place) (\(String($0.prefix(8))))" } ?? place
                batch.problems.append(
                    ExchangeProblem(file: file, place: named, reason: problem.reason, skipped: "that task"))
            } catch {}
        }
        // A series with no open instance (the last deleted, or completed before Taskwarrior made the next) goes on:
        // its next instance is made as Taskwarrior would make it, unless the series ended at its `until`.
        for (index, entry) in entries.enumerated() {
            guard let template = entry.task, template.status == "recurring", let uuid = template.uuid?.lowercased(),
                !entries.contains(where: {
                    $0.task?.parent?.lowercased() == uuid && ["pending", "waiting"].contains($0.task?.status ?? "")
                })
            else { continue }
            let numbers = entries.compactMap { $0.task?.parent?.lowercased() == uuid ? $0.task?.imask : nil }
            let next = max(template.mask?.count ?? 0, numbers.map { Int($0) + 1 }.max() ?? 0) + 1
            guard let made = nextInstance(of: template, number: next, templateKeys: templates[uuid]) else {
                if let until = template.until, let end = BasicDate.date(until) {
                    batch.notes.append(
                        "Series '\(template.description ?? "")' ended at its until, \(dueDate(end, zone: DocketClock.timeZone).day.map(\.description) ?? ShownDate.string(end))."
                    )
                }
                continue
            }
            let place = "task \(index + 1) (\(String(uuid.prefix(8))))"
            guard let read = try? item(made.task, kept: made.kept), let id = read.id, first[id] == nil else { continue }
            first[id] = index
            switch read {
            case let .todo(todo): todos.append(todo)
            case let .task(projectTask, title):
                if tasksByProject[title] == nil { projectOrder.append(title) }
                tasksByProject[title, default: []].append(projectTask)
            case .template, .removed: continue
            }
            batch.notes.append(
                "Made the next instance of the series '\(made.task.description ?? "")' (\(place)), whose last was gone."
            )
        }
        let projectList = projectOrder.map { title in
            Project(
                id: projects[title] ?? projectID(title: title), title: title, tasks: tasksByProject[title]!,
                alterDate: nil)
        }
        batch.state = AppState(todos: todos, projects: projectList, removed: removed)
        if !keptCounts.isEmpty {
            let named = keptCounts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) (\($0.value))" }
            batch.notes.append(
                "Kept in the items' files for 'docket export taskwarrior', not used by Docket: "
                    + named.joined(separator: ", ") + ".")
        }
        return batch
    }

    /// The instance numbered `number` (from 1) of a template's series, open, as Taskwarrior would make it: its
    /// template's fields, due `number - 1` intervals after the template's due date; nil when the series ended
    /// before it (`until`) or cannot be read.
    private static func nextInstance(of template: Task, number: Int, templateKeys: [String: JSONValue]?) -> (
        task: Task, kept: KeptKeys
    )? {
        guard let uuid = template.uuid, let templateID = UUID(hex: uuid), let recur = template.recur,
            let every = interval(recur), let dueText = template.due, var due = BasicDate.date(dueText),
            number <= 100_000
        else { return nil }
        let calendar = DocketClock.calendar
        for _ in 1..<number { due = every.after(due, calendar: calendar) }
        if let until = template.until.flatMap({ BasicDate.date($0) }), due > until { return nil }
        guard ISODate.holds(due) else { return nil }
        let series = template.docketseries.flatMap { UUID(hex: $0) } ?? templateID
        var task = template
        task.uuid = NameBasedID.make(namespace: series, name: "occurrence \(number)").uuidString.lowercased()
        task.status = "pending"
        task.parent = uuid
        task.imask = Double(number - 1)
        task.due = BasicDate.string(due)
        task.entry = template.modified ?? template.entry
        task.modified = nil
        task.end = nil
        task.start = nil
        task.mask = nil
        var kept = (templateKeys ?? [:]).filter { !readKeys.contains($0.key) && !recurrenceKeys.contains($0.key) }
        if let templateKeys, template.docketseries == nil { kept[templateKey] = .object(templateKeys) }
        return (task, KeptKeys(kept.isEmpty ? [:] : ["taskwarrior": kept]))
    }

    /// `batch` with each instance of a series that the store made itself (with the id `done` or an import gives the
    /// next, made from its series and number) and that Taskwarrior, not knowing it, made too under an id of its own,
    /// taken as Taskwarrior's: the store's goes (removed just after its last change), and a completion made in Docket
    /// goes to Taskwarrior's, so the two are one instance, here and, by the next export, in Taskwarrior.
    public static func joiningInstances(_ batch: ExchangeBatch, store: AppState) -> ExchangeBatch {
        var batch = batch
        let incoming = Set(batch.state.todos.map(\.id) + batch.state.removed.map(\.id))
        var todos = batch.state.todos
        var removed = batch.state.removed
        for (index, todo) in todos.enumerated() {
            guard let recurrence = todo.recurrence, recurrence.occurrence > 1 else { continue }
            let made = NameBasedID.make(namespace: recurrence.series, name: "occurrence \(recurrence.occurrence)")
            guard made != todo.id, !incoming.contains(made), let ours = store.todo(id: made),
                ours.recurrence?.series == recurrence.series
            else { continue }
            let changed = ours.alterDate ?? ours.creationDate
            if ours.completed, !todo.completed, (todo.alterDate ?? .distantPast) <= changed {
                todos[index] = todo.replacing(
                    completed: true, alterDate: .some(changed), completedDate: .some(ours.completedDate ?? changed))
            }
            removed.append(
                Tombstone(id: made, kind: .todo, removedDate: Date(docketMilliseconds: changed.docketMilliseconds + 1)))
            batch.notes.append(
                "Took Taskwarrior's instance \(recurrence.occurrence) of '\(todo.text)' for the one Docket made "
                    + "(\(String(made.uuidString.lowercased().prefix(8)))), which goes.")
        }
        batch.state = AppState(todos: todos, projects: batch.state.projects, removed: removed)
        return batch
    }

    /// The id of the running slip an import makes for a task Taskwarrior started at `start`.
    static func startSlipID(task: UUID, start: Date) -> UUID {
        NameBasedID.make(namespace: task, name: "start " + BasicDate.string(start))
    }

    /// The id an import gives a new project of this title.
    static func projectID(title: String) -> UUID { NameBasedID.make(namespace: namespace, name: "project " + title) }

    private struct Unreadable: Error { let reason: String }

    private enum Read {
        /// The id of the item read, if any.
        var id: UUID? {
            switch self {
            case .template: nil
            case let .todo(todo): todo.id
            case let .task(task, _): task.id
            case let .removed(id, _, _): id
            }
        }

        case template
        case todo(TodoItem)
        case task(ProjectTask, project: String)
        case removed(UUID, Date, project: String?)
    }

    private static func item(_ task: Task, kept: KeptKeys) throws -> Read {
        guard let uuidText = task.uuid, let id = UUID(hex: uuidText) else {
            throw Unreadable(reason: "its uuid is missing or not a uuid")
        }
        func date(_ field: String, _ text: String?) throws -> Date? {
            guard let text else { return nil }
            guard let date = BasicDate.date(text) ?? ISODate.date(from: text) else {
                throw Unreadable(reason: "\(field) \"\(text.prefix(40))\" is not a date")
            }
            return date
        }
        let status = task.status ?? "pending"
        guard ["pending", "completed", "deleted", "waiting", "recurring"].contains(status) else {
            throw Unreadable(
                reason: "status \"\(status.prefix(20))\" is not pending, completed, deleted, waiting or recurring")
        }
        if status == "recurring" { return .template }
        let description = task.description ?? ""
        guard !description.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw Unreadable(reason: "it has no description")
        }
        guard let entry = try date("entry", task.entry) else { throw Unreadable(reason: "it has no entry date") }
        let modified = try date("modified", task.modified)
        let due = try date("due", task.due).map { dueDate($0, zone: DocketClock.timeZone) } ?? .unknown
        let end = try date("end", task.end)
        let start = try date("start", task.start)
        let wait = try date("wait", task.wait).map { dueDate($0, zone: DocketClock.timeZone) } ?? .unknown
        let scheduled =
            try date("scheduled", task.scheduled).map { dueDate($0, zone: DocketClock.timeZone) } ?? .unknown
        var dependencies: [UUID] = []
        for uuid in task.depends?.uuids ?? [] {
            guard let dependency = UUID(hex: uuid) else {
                throw Unreadable(reason: "depends \"\(uuid.prefix(40))\" is not a uuid")
            }
            dependencies.append(dependency)
        }
        let project = task.project.flatMap { $0.isEmpty ? nil : $0 }
        if status == "deleted" { return .removed(id, end ?? modified ?? entry, project: project) }

        let priority: Priority?
        switch task.priority?.uppercased() {
        case nil, "": priority = nil
        case "H": priority = .high
        case "M": priority = .medium
        case "L": priority = .low
        case let other?: throw Unreadable(reason: "priority \"\(other.prefix(10))\" is not H, M or L")
        }
        var tags: [String] = []
        for tag in task.tags ?? [] {
            if let problem = Tags.problem(with: tag) {
                throw Unreadable(reason: "tag \"\(tag.prefix(30))\": \(problem)")
            }
            tags.append(tag)
        }
        var notes: [Note] = []
        for annotation in task.annotations ?? [] {
            guard let text = annotation.description, let written = try date("annotation entry", annotation.entry) else {
                throw Unreadable(reason: "an annotation has no entry date or description")
            }
            notes.append(
                Note(
                    id: NameBasedID.make(namespace: id, name: "annotation \(BasicDate.string(written)) \(text)"),
                    date: written, text: text))
        }
        let completed = status == "completed"
        let completedDate = completed ? end ?? modified ?? entry : nil
        var recurrence: Recurrence?
        if let recur = task.recur {
            guard let every = interval(recur) else {
                throw Unreadable(
                    reason:
                        "recur \"\(recur.prefix(20))\" is not an interval Docket keeps (daily, weekdays, weekly, 2w, monthly, yearly…)"
                )
            }
            let series = task.docketseries.flatMap { UUID(hex: $0) } ?? task.parent.flatMap { UUID(hex: $0) } ?? id
            recurrence = Recurrence(
                every: every, from: .due, series: series, occurrence: Int(task.imask ?? 0) + 1,
                until: try date("until", task.until))
        } else if let undated = task.docketrecurrence {
            guard let read = try? JSONDecoder().decode(Recurrence.self, from: Data(undated.utf8)) else {
                throw Unreadable(reason: "\(undatedSeriesKey) \"\(undated.prefix(40))\" is not how a todo repeats")
            }
            recurrence = read
        }
        if let project {
            let state: TaskState = completed ? .finished : start != nil ? .inProgress : .unfinished
            // A started task's clock runs from its `start`, under an id made from the two, so a second import adds no
            // slip.
            let slips = (completed ? nil : start).map { start in
                [TimeSlip(id: startSlipID(task: id, start: start), start: start, stop: nil)]
            }
            return .task(
                ProjectTask(
                    id: id, title: description, dueDate: due, state: state, timeSlips: slips ?? [], alterDate: modified,
                    tags: Tags.normalized(tags), priority: priority, notes: Note.inOrder(notes),
                    completedDate: completedDate,
                    creationDate: entry, recurrence: recurrence, kept: kept, waitDate: wait, scheduledDate: scheduled,
                    dependencies: Dependencies.normalized(dependencies)),
                project: project)
        }
        return .todo(
            TodoItem(
                id: id, text: description, creationDate: entry, completed: completed, due: due, alterDate: modified,
                tags: Tags.normalized(tags), priority: priority, notes: Note.inOrder(notes),
                completedDate: completedDate,
                recurrence: recurrence, kept: kept, waitDate: wait, scheduledDate: scheduled,
                dependencies: Dependencies.normalized(dependencies)))
    }

    /// Taskwarrior's `due` (or `wait`, `scheduled`), a moment, as a due date: the first moment of a day in `zone` (what
    /// Taskwarrior's `due:friday` or `due:2026-12-03` sets) is that day, without a time; any other moment keeps its
    /// time.
    static func dueDate(_ moment: Date, zone: TimeZone) -> DueDate {
        let day = CalendarDay(moment, in: zone)
        return day.start(in: zone).docketMilliseconds == moment.docketMilliseconds ? .day(day) : .date(moment)
    }

    /// A due date (or a wait or scheduled date) as Taskwarrior's `due`: a day is its first moment in `zone`, as
    /// Taskwarrior keeps a date without a time; nil when there is none.
    static func dueMoment(_ due: DueDate, zone: TimeZone) -> Date? {
        switch due {
        case .unknown: nil
        case let .date(date): date
        case let .day(day): day.start(in: zone)
        }
    }

    /// A Taskwarrior recurrence ("weekly", "2w", "3days", "P1W", "biweekly") as Docket's interval; nil for one Docket
    /// cannot keep.
    static func interval(_ text: String) -> Recurrence.Interval? {
        let lower = text.lowercased()
        switch lower {
        case "daily", "day": return .init(.day)
        case "weekdays": return .init(.weekday)
        case "weekly", "week": return .init(.week)
        case "biweekly", "fortnight": return .init(.week, count: 2)
        case "monthly", "month": return .init(.month)
        case "bimonthly": return .init(.month, count: 2)
        case "quarterly": return .init(.month, count: 3)
        case "semiannual": return .init(.month, count: 6)
        case "yearly", "annual", "year": return .init(.year)
        case "biannual", "biyearly": return .init(.year, count: 2)
        default: break
        }
        var body = Substring(lower)
        if body.hasPrefix("p") { body = body.dropFirst() } // ISO 8601: P1W, P2D, P1M, P1Y
        let digits = body.prefix { $0.isNumber }
        let count = digits.isEmpty ? 1 : Int(digits) ?? 0
        guard (1...1000).contains(count) else { return nil }
        switch body.dropFirst(digits.count) {
        case "d", "day", "days": return .init(.day, count: count)
        case "w", "wk", "wks", "week", "weeks": return .init(.week, count: count)
        case "mo", "mth", "mths", "month", "months", "m": return .init(.month, count: count)
        case "y", "yr", "yrs", "year", "years": return .init(.year, count: count)
        default: return nil
        }
    }

    /// The recurrence Taskwarrior writes for an interval: "daily", "weekdays", "2weeks"…
    static func recur(_ every: Recurrence.Interval) -> String {
        switch (every.unit, every.count) {
        case (.day, 1): "daily"
        case (.weekday, _): "weekdays"
        case (.week, 1): "weekly"
        case (.month, 1): "monthly"
        case (.year, 1): "yearly"
        case let (unit, count):
            "\(count)\(unit == .day ? "days" : unit == .week ? "weeks" : unit == .month ? "months" : "years")"
        }
    }
}
