import Foundation

/// A project: a title and an ordered list of tasks.
public struct Project: Identifiable, Sendable, FieldCoded {
    /// The identity of the project.
    public let id: UUID
    /// The project's title.
    public let title: String
    /// The tasks, in the order they were added (re-adding a task moves it to the end).
    public let tasks: [ProjectTask]
    /// When the project's title or task list last changed; nil until then.
    public let alterDate: Date?

    /// The Change DSL of a project.
    public enum Change: Hashable, Sendable {
        /// Sets a field.
        case setting(Setting)
        /// The fields a change can set.
        public enum Setting: Hashable, Sendable {
            /// Sets the title.
            case title(to: String)
        }
        /// Adds a task at the end; a task already there is replaced and moved to the end.
        case adding(Adding)
        /// What can be added.
        public enum Adding: Hashable, Sendable {
            /// A task.
            case task(ProjectTask)
        }
        /// Removes a task by its id.
        case removing(Removing)
        /// What can be removed.
        public enum Removing: Hashable, Sendable {
            /// A task.
            case task(ProjectTask)
        }
        /// Replaces a task in place, by its id; a task not in the project changes nothing.
        case updating(Updating)
        /// What can be updated.
        public enum Updating: Hashable, Sendable {
            /// A task.
            case task(ProjectTask)
        }
    }

    /// A new project with no tasks.
    public init(title: String) {
        self.init(id: DocketIDs.make(), title: title, tasks: [], alterDate: nil)
    }

    /// A project exactly as stored, for decoding and merging.
    public init(id: UUID, title: String, tasks: [ProjectTask], alterDate: Date?) {
        self.id = id
        self.title = title
        self.tasks = tasks
        self.alterDate = alterDate
    }

    /// The task with this id, if the project has it.
    public func task(id: UUID) -> ProjectTask? { tasks.first { $0.id == id } }

    /// The latest alterDate of the project and its tasks: when anything in it last changed.
    public var latestAlterDate: Date? {
        tasks.reduce(alterDate) { latest, task in
            guard let date = task.alterDate else { return latest }
            return max(latest ?? date, date)
        }
    }

    /// The project after the changes, applied in order.
    public func alter(by changes: Change...) -> Self { alter(by: changes) }

    /// The project after the changes, applied in order.
    public func alter(by changes: [Change]) -> Self { changes.reduce(self) { $0.applying($1) } }

    private func applying(_ change: Change) -> Self {
        switch change {
        case let .setting(.title(to: title)):
            guard title != self.title else { return self }
            return altered(title: title, tasks: tasks)
        case let .adding(.task(task)):
            guard tasks.last != task else { return self }
            return altered(title: title, tasks: tasks.filter { $0.id != task.id } + [task])
        case let .removing(.task(task)):
            guard tasks.contains(where: { $0.id == task.id }) else { return self }
            return altered(title: title, tasks: tasks.filter { $0.id != task.id })
        case let .updating(.task(task)):
            guard let index = tasks.firstIndex(where: { $0.id == task.id }), tasks[index] != task else { return self }
            var tasks = tasks
            tasks[index] = task
            return altered(title: title, tasks: tasks)
        }
    }

    /// The changed project, dated after everything it held before and holds now.
    private func altered(title: String, tasks: [ProjectTask]) -> Self {
        let latest = Project(id: id, title: title, tasks: self.tasks + tasks, alterDate: alterDate).latestAlterDate
        return Project(id: id, title: title, tasks: tasks, alterDate: DocketClock.alterDate(after: latest))
    }

    /// This project with some fields replaced; a nil argument keeps the field.
    private func with(id: UUID? = nil, title: String? = nil, tasks: [ProjectTask]? = nil, alterDate: Date?? = nil)
        -> Self
    {
        Project(
            id: id ?? self.id, title: title ?? self.title, tasks: tasks ?? self.tasks,
            alterDate: alterDate ?? self.alterDate)
    }

    // MARK: Fields

    /// Every field of a project; its tasks are its children, kept in files of their own by the store.
    public static let fields: [ItemField<Project>] = [
        ItemField("id", rule: .identity, get: { $0.id }, set: { $0.with(id: $1) }),
        ItemField("title", rule: .laterEdit, get: { $0.title }, set: { $0.with(title: $1) }),
        ItemField("tasks", rule: .children, default: [ProjectTask](), get: { $0.tasks }, set: { $0.with(tasks: $1) }),
        ItemField(
            "alterDate", label: "alter date", rule: .latest, get: { $0.alterDate }, set: { $0.with(alterDate: $1) }),
    ]

    public static let blank = Project(id: .zero, title: "", tasks: [], alterDate: nil)

    // Equality at the stored precision: dates to the millisecond.
    public static func == (a: Project, b: Project) -> Bool { sameFields(a, b) }
    public func hash(into hasher: inout Hasher) { hashFields(into: &hasher) }
}
