import DocketModel
import Foundation

extension Taskwarrior {
    /// An item the store removed, as it last was, for the export to say it was deleted.
    public enum RemovedItem: Sendable {
        /// A todo as last committed, and when it was removed.
        case todo(TodoItem, removed: Date)
        /// A project task as last committed, its project's title, and when it was removed.
        case task(ProjectTask, project: String, removed: Date)
    }

    /// One task as `task import` takes it: each key Docket writes, typed, over the keys the item kept from
    /// Taskwarrior (a UDA, a template's own keys), which go back as they came. `task import` replaces a task whole.
    struct ExportedTask {
        /// Taskwarrior's `status`.
        enum Status: String {
            case pending, completed, deleted, recurring
        }

        /// An annotation: a note, at the second Taskwarrior keys it by.
        struct Annotation {
            let entry: Date
            let description: String
        }

        /// The keys the item kept from Taskwarrior that Docket writes no value of its own for.
        var kept: [String: JSONValue] = [:]
        var uuid: UUID
        var status: Status
        var description: String?
        var entry: Date?
        var modified: Date?
        var due: Date?
        var wait: Date?
        var scheduled: Date?
        var until: Date?
        var end: Date?
        /// When work on it began: a running slip's start, or the one a todo kept from Taskwarrior, as written there.
        var start: JSONValue?
        var depends: [UUID] = []
        var tags: [String] = []
        var priority: Priority?
        var annotations: [Annotation] = []
        var project: String?
        /// A series: its interval, and `periodic`.
        var recur: String?
        var rtype: String?
        /// An instance: its template, and its number in the series from 0.
        var parent: UUID?
        var imask: Int?
        /// A template: each instance's state, `-` pending, `+` done, `X` deleted.
        var mask: String?
        /// The Docket series of a template or instance whose template's id is not the series' own.
        var series: UUID?
        /// How a todo or task without a due date repeats (its `Recurrence` as JSON), which Taskwarrior keeps.
        var undatedSeries: String?

        /// The task as JSON: the kept keys, and over them each key Docket writes.
        var json: [String: JSONValue] {
            var json = kept
            func put(_ key: String, _ value: JSONValue?) { if let value { json[key] = value } }
            func date(_ date: Date?) -> JSONValue? { date.map { .string(BasicDate.string($0)) } }
            func id(_ id: UUID?) -> JSONValue? { id.map { .string($0.uuidString.lowercased()) } }
            put("uuid", id(uuid))
            put("status", .string(status.rawValue))
            put("description", description.map(JSONValue.string))
            put("entry", date(entry))
            put("modified", date(modified))
            put("due", date(due))
            put("wait", date(wait))
            put("scheduled", date(scheduled))
            put("until", date(until))
            put("end", date(end))
            put("start", start)
            if !depends.isEmpty { json["depends"] = .array(depends.compactMap(id)) }
            if !tags.isEmpty { json["tags"] = .array(tags.map(JSONValue.string)) }
            put("priority", priority.map { .string($0 == .high ? "H" : $0 == .medium ? "M" : "L") })
            if !annotations.isEmpty {
                json["annotations"] = .array(
                    annotations.map {
                        .object(["entry": .string(BasicDate.string($0.entry)), "description": .string($0.description)])
                    })
            }
            put("project", project.map(JSONValue.string))
            put("recur", recur.map(JSONValue.string))
            put("rtype", rtype.map(JSONValue.string))
            put("parent", id(parent))
            put("imask", imask.map { .integer(Int64($0)) })
            put("mask", mask.map(JSONValue.string))
            put(seriesKey, id(series))
            put(undatedSeriesKey, undatedSeries.map(JSONValue.string))
            return json
        }

        /// A kept key's text, when it is one.
        func keptText(_ key: String) -> String? {
            if case let .string(text)? = kept[key] { text } else { nil }
        }
    }

    /// The keys Docket always writes itself on an item's task: a value it has not (no due date, say) is none,
    /// never the one kept from Taskwarrior. The wait and scheduled dates are not among them: an item imported
    /// before Docket had these fields keeps Taskwarrior's own, handed back while Docket has none.
    static let keysDocketOwns: Set<String> = ["due", "end", "tags", "priority", "annotations", "start", templateKey]

    /// `state` as an export to Taskwarrior writes it, after `previous` (what the last export wrote, noted by the
    /// store): an item that repeated then and repeats no more keeps the repetition Taskwarrior has, which refuses to
    /// take `recur` off an instance, and the series it stopped is named among `ended`, whose templates the export
    /// writes as deleted, so Taskwarrior makes no more instances. The store notes this state as the export's.
    public static func endingStoppedSeries(_ state: AppState, previous: AppState?) -> (
        state: AppState, ended: Set<UUID>
    ) {
        guard let previous else { return (state, []) }
        var before: [UUID: Recurrence] = [:]
        for todo in previous.todos where todo.dueDate != nil { before[todo.id] = todo.recurrence }
        for project in previous.projects {
            for task in project.tasks where task.dueDate.date != nil { before[task.id] = task.recurrence }
        }
        guard !before.isEmpty else { return (state, []) }
        var stopped: Set<UUID> = []
        var going: Set<UUID> = []
        func kept(_ item: some PlannedItem) -> Recurrence? {
            if let recurrence = item.recurrence {
                going.insert(recurrence.series)
                return nil
            }
            guard item.plannedDue.date != nil, let recurrence = before[item.id] else { return nil }
            stopped.insert(recurrence.series)
            return recurrence
        }
        let todos = state.todos.map { todo in kept(todo).map { todo.alter(.recurrence($0)) } ?? todo }
        let projects = state.projects.map { project in
            Project(
                id: project.id, title: project.title,
                tasks: project.tasks.map { task in
                    kept(task).map { task.alter(by: .setting(.recurrence(to: $0))) } ?? task
                }, alterDate: project.alterDate)
        }
        guard !stopped.isEmpty else { return (state, []) }
        return (AppState(todos: todos, projects: projects, removed: state.removed), stopped.subtracting(going))
    }

    /// JSON that `task import` accepts: every todo, and every task of every
    /// project (with the project's title), each with the keys an import kept;
    /// a repeating todo as an instance of its series' template (`parent`,
    /// `imask`), with the template itself, whose `mask` marks every instance
    /// Docket has, so Taskwarrior makes no second pending instance; and each
    /// of `removed` as a deleted task. `task import` replaces a task whole.
    public static func export(
        _ state: AppState, removed: [RemovedItem] = [], ended: Set<UUID> = [],
        calendar: Calendar = DocketClock.calendar,
        now: Date = DocketClock.now
    ) throws -> Data {
        var tasks: [ExportedTask] = []
        let zone = calendar.timeZone
        func common(_ item: some PlannedItem, done: Bool, doneDate: Date?, entry: Date, kept: KeptKeys)
            -> ExportedTask
        {
            var task = ExportedTask(
                kept: kept["taskwarrior"].filter { !keysDocketOwns.contains($0.key) }, uuid: item.id,
                status: done ? .completed : .pending)
            // NB: Taskwarrior crashes on a task without a description.
            task.description = item.plannedText.isEmpty ? "-" : item.plannedText
            task.entry = entry
            task.modified = item.alterDate ?? entry
            task.due = dueMoment(item.plannedDue, zone: zone)
            task.wait = dueMoment(item.waitDate, zone: zone)
            task.scheduled = dueMoment(item.scheduledDate, zone: zone)
            task.depends = item.dependencies
            if done { task.end = doneDate ?? item.alterDate ?? entry }
            task.tags = item.tags
            task.priority = item.priority
            // NB: Taskwarrior keys annotations by their second: one that shares it goes a second on, as Taskwarrior
            // would move it.
            var taken = Set<Int64>()
            task.annotations = item.notes.map { note in
                var second = Int64(note.date.timeIntervalSince1970.rounded(.down))
                while !taken.insert(second).inserted { second += 1 }
                return .init(entry: Date(timeIntervalSince1970: TimeInterval(second)), description: note.text)
            }
            return task
        }
        func todoTask(_ todo: TodoItem) -> ExportedTask {
            var task = common(
                todo, done: todo.completed, doneDate: todo.completedDate, entry: todo.creationDate, kept: todo.kept)
            if !todo.completed { task.start = todo.kept["taskwarrior"]["start"] }
            return task
        }
        func projectTask(_ projectTask: ProjectTask, project: String) -> ExportedTask {
            // NB: a task made before Docket kept creation dates has none; its first slip, else its alter date, stands
            // for one.
            let guess = projectTask.timeSlips.first?.start ?? projectTask.alterDate ?? Date(timeIntervalSince1970: 0)
            let entry = projectTask.creationDate ?? min(guess, projectTask.alterDate ?? guess)
            var task = common(
                projectTask, done: projectTask.state == .finished, doneDate: projectTask.completedDate, entry: entry,
                kept: projectTask.kept)
            task.project = project
            // A running slip is Taskwarrior's `start`; a task in progress without one says only that it was started
            // by its last change.
            if let running = projectTask.runningSlip, projectTask.state != .finished {
                task.start = .string(BasicDate.string(running.start))
            } else if projectTask.state == .inProgress {
                task.start = .string(BasicDate.string(projectTask.alterDate ?? entry))
            }
            return task
        }

        // Repeating todos and tasks, by series: each instance names its template, and the template is written with
        // them.
        struct Instance {
            let text: String, creation: Date, alter: Date?, due: Date, completed: Bool, tags: [String],
                priority: Priority?
            let recurrence: Recurrence, kept: KeptKeys, project: String?
        }
        var series: [UUID: [Instance]] = [:]
        var removedOccurrences: [UUID: Set<Int>] = [:]
        func collect(_ item: some PlannedItem, creation: Date?, completed: Bool, kept: KeptKeys, project: String?) {
            guard let recurrence = item.recurrence, let due = dueMoment(item.plannedDue, zone: zone) else { return }
            series[recurrence.series, default: []].append(
                Instance(
                    text: item.plannedText, creation: creation ?? due, alter: item.alterDate, due: due,
                    completed: completed, tags: item.tags, priority: item.priority, recurrence: recurrence,
                    kept: kept, project: project))
        }
        for todo in state.todos {
            collect(todo, creation: todo.creationDate, completed: todo.completed, kept: todo.kept, project: nil)
        }
        for project in state.projects {
            for task in project.tasks {
                collect(
                    task, creation: task.creationDate, completed: task.state == .finished, kept: task.kept,
                    project: project.title)
            }
        }
        for item in removed {
            if let r = item.recurrence { removedOccurrences[r.series, default: []].insert(r.occurrence) }
        }
        var templates: [UUID: UUID] = [:]
        for (id, instances) in series.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
            let newest = instances.max { $0.recurrence.occurrence < $1.recurrence.occurrence }!
            let every = newest.recurrence.every
            // A series Taskwarrior began keeps its template (its keys came with each instance); one begun in Docket
            // gets one, named from it.
            let kept = instances.lazy.compactMap { instance -> [String: JSONValue]? in
                if case let .object(template)? = instance.kept["taskwarrior"][templateKey] {
                    return template
                } else {
                    return nil
                }
            }.first
            let uuid = kept == nil ? NameBasedID.make(namespace: namespace, name: "template " + id.uuidString) : id
            templates[id] = uuid
            var template = ExportedTask(kept: kept ?? [:], uuid: uuid, status: .recurring)
            let occurrences = Dictionary(
                instances.map { ($0.recurrence.occurrence, $0) }, uniquingKeysWith: { a, _ in a })
            if kept == nil {
                let first = instances.min { $0.recurrence.occurrence < $1.recurrence.occurrence }!
                template.description = newest.text.isEmpty ? "-" : newest.text
                template.entry = instances.map(\.creation).min()!
                template.due = every.before(first.due, times: first.recurrence.occurrence - 1, calendar: calendar)
                template.until = newest.recurrence.until
                template.tags = newest.tags
                template.priority = newest.priority
                template.project = newest.project
                template.series = id
            }
            template.recur = template.keptText("recur") ?? recur(every)
            template.rtype = "periodic"
            // The mask covers every instance Taskwarrior may have made by now (each due up to now, and the next,
            // within `until`), as well as those Docket has: `task import` replaces the template whole, and a
            // Taskwarrior that ran since the last export makes again every instance past the mask it is given.
            var last = occurrences.keys.max()!
            if var due = template.due ?? template.keptText("due").flatMap({ BasicDate.date($0) }) {
                let until = template.until ?? template.keptText("until").flatMap { BasicDate.date($0) }
                var made = 1
                while made < 100_000, due <= now, until.map({ due <= $0 }) ?? true {
                    due = every.after(due, calendar: calendar)
                    if let until, due > until { break }
                    made += 1
                }
                last = max(last, made)
            }
            template.mask = (1...last).map { occurrence -> String in
                if let instance = occurrences[occurrence] { return instance.completed ? "+" : "-" }
                return removedOccurrences[id]?.contains(occurrence) == true ? "X" : "+"
            }.joined()
            template.modified = instances.compactMap(\.alter).max() ?? newest.creation
            if ended.contains(id) {
                template.status = .deleted
                template.end = template.modified
            }
            tasks.append(template)
        }
        func instance(_ task: inout ExportedTask, _ recurrence: Recurrence?) {
            guard let recurrence, let template = templates[recurrence.series] else { return }
            task.recur = recur(recurrence.every)
            task.rtype = "periodic"
            task.parent = template
            task.imask = recurrence.occurrence - 1
            task.until = recurrence.until ?? task.until
            if template != recurrence.series { task.series = recurrence.series }
        }

        // A series without a due date, which Taskwarrior cannot repeat, goes as a key Taskwarrior keeps and hands back.
        func undated(_ task: inout ExportedTask, _ recurrence: Recurrence?) {
            guard let recurrence, let data = try? JSONEncoder().encode(recurrence) else { return }
            task.undatedSeries = String(decoding: data, as: UTF8.self)
        }
        for todo in state.todos {
            var task = todoTask(todo)
            if todo.dueDate != nil { instance(&task, todo.recurrence) } else { undated(&task, todo.recurrence) }
            tasks.append(task)
        }
        for project in state.projects {
            for item in project.tasks {
                var task = projectTask(item, project: project.title)
                if item.dueDate.date != nil {
                    instance(&task, item.recurrence)
                } else {
                    undated(&task, item.recurrence)
                }
                tasks.append(task)
            }
        }
        for item in removed {
            var task: ExportedTask
            let date: Date
            switch item {
            case let .todo(todo, removed): (task, date) = (todoTask(todo), removed)
            case let .task(removedTask, project, removed):
                (task, date) = (projectTask(removedTask, project: project), removed)
            }
            task.kept = task.kept.filter { !recurrenceKeys.contains($0.key) }
            // NB: Taskwarrior refuses to take `recur` off an instance it has ("missing ']'"): a removed instance
            // keeps it, and its end, without naming its template.
            // NB: nor `recur` without a `due` (it crashes): an instance whose due date Docket took away (the first of a
            // series begun without one, given a date on another machine) keeps its end as its due.
            if let recurrence = item.recurrence {
                task.recur = recur(recurrence.every)
                task.until = recurrence.until ?? task.until
                task.due = task.due ?? date
            }
            task.status = .deleted
            task.end = date
            task.modified = max(date, task.modified ?? date)
            tasks.append(task)
        }
        return try JSONSerialization.data(
            withJSONObject: tasks.map { $0.json.mapValues(\.foundationValue) },
            options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }
}

extension Taskwarrior.RemovedItem {
    /// How the removed item repeated, if it did.
    var recurrence: Recurrence? {
        switch self {
        case let .todo(todo, _): todo.recurrence
        case let .task(task, _, _): task.recurrence
        }
    }
}
