import DocketModel
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a `StoreQueue` knows its store holds, item by item: kept up to date from the writes made through the queue
/// (at the cost of what they changed) and from looks at the files (which decode only the files whose stat data
/// changed since the last look). Used only on the queue.
final class StoreModel {
    /// One item's new value, or its removal (nil); a project's header comes without its tasks, which are items too.
    enum Delta: Sendable {
        case todo(UUID, TodoItem?)
        case project(UUID, Project?, position: Int?)
        case task(UUID, project: UUID, ProjectTask?, position: Int?)
        case tombstone(UUID, Tombstone?)
    }

    private struct Task {
        let task: ProjectTask
        let project: UUID
    }

    /// A file the model has read: its stat data, when they can stand for its contents (not for a file changed in
    /// the last tick of the file system's clock, nor one shown as last committed, nor one that does not read).
    private struct Known {
        let fingerprint: TodoCache.Fingerprint?
    }

    private var todos: [UUID: TodoItem] = [:]
    private var headers: [UUID: Project] = [:]
    private var tasks: [UUID: Task] = [:]
    private var tasksOf: [UUID: Set<UUID>] = [:]
    private var tombstones: [UUID: Tombstone] = [:]
    private var order = Order()
    private var files: [String: Known] = [:]
    private var problems: [String: StoreProblem] = [:]

    /// The model of what `store` holds now, from its caches of decoded items (`Store.load()`): each file the caches
    /// vouch for is known by its stat data; any other is read again at the next look.
    convenience init(reading store: Store) throws {
        let (snapshot, known) = try store.loadKnowingFiles()
        self.init(snapshot)
        files = known.mapValues { Known(fingerprint: $0) }
        // NB: a look names only files that hold no item they can be read as; a stray file is not the model's.
        for problem in snapshot.problems {
            switch StoreLayout.item(at: problem.path) {
            case .todo, .project, .task, .tombstone:
                files[problem.path] = Known(fingerprint: nil)
                problems[problem.path] = problem
            case .format, .other: continue
            }
        }
    }

    /// The model of what `snapshot` holds (for readers: it reads no file).
    init(_ snapshot: StoreSnapshot) {
        order = snapshot.order
        for todo in snapshot.state.todos { todos[todo.id] = todo }
        for project in snapshot.state.projects {
            headers[project.id] = ProjectHeader(project: project).project
            tasksOf[project.id] = Set(project.tasks.map(\.id))
            for task in project.tasks { tasks[task.id] = Task(task: task, project: project.id) }
        }
        for tombstone in snapshot.state.removed { tombstones[tombstone.id] = tombstone }
    }

    /// The files that did not read at the last look, by path.
    var problemList: [StoreProblem] { problems.values.sorted { $0.path < $1.path } }

    // MARK: Changes

    /// What changed between two states a write went from and to (both partial: the items it read): each item whose
    /// value or order key differs, and each that is gone.
    static func deltas(from before: StoreSnapshot, to after: StoreSnapshot) -> [Delta] {
        var deltas: [Delta] = []
        let oldTodos = Dictionary(before.state.todos.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let newTodoIDs = Set(after.state.todos.map(\.id))
        for todo in after.state.todos where oldTodos[todo.id] != todo { deltas.append(.todo(todo.id, todo)) }
        for todo in before.state.todos where !newTodoIDs.contains(todo.id) { deltas.append(.todo(todo.id, nil)) }

        let oldProjects = Dictionary(before.state.projects.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for project in after.state.projects {
            let previous = oldProjects[project.id]
            if previous.map(ProjectHeader.init) != ProjectHeader(project: project)
                || before.order[project.id] != after.order[project.id]
            {
                deltas.append(
                    .project(project.id, ProjectHeader(project: project).project, position: after.order[project.id]))
            }
            let oldTasks = Dictionary((previous?.tasks ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            for task in project.tasks where oldTasks[task.id] != task || before.order[task.id] != after.order[task.id] {
                deltas.append(.task(task.id, project: project.id, task, position: after.order[task.id]))
            }
            let kept = Set(project.tasks.map(\.id))
            for task in previous?.tasks ?? [] where !kept.contains(task.id) {
                deltas.append(.task(task.id, project: project.id, nil, position: nil))
            }
        }
        let newProjectIDs = Set(after.state.projects.map(\.id))
        for project in before.state.projects where !newProjectIDs.contains(project.id) {
            deltas.append(.project(project.id, nil, position: nil))
        }

        let oldTombstones = Dictionary(before.state.removed.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let newTombstoneIDs = Set(after.state.removed.map(\.id))
        for tombstone in after.state.removed where oldTombstones[tombstone.id] != tombstone {
            deltas.append(.tombstone(tombstone.id, tombstone))
        }
        for tombstone in before.state.removed where !newTombstoneIDs.contains(tombstone.id) {
            deltas.append(.tombstone(tombstone.id, nil))
        }
        return deltas
    }

    /// Takes in `deltas`; returns what they changed for observers (an item already as a delta has it is no change).
    func apply(_ deltas: [Delta]) -> [StoreChange.ItemChange] {
        var changes: [StoreChange.ItemChange] = []
        for delta in deltas {
            switch delta {
            case let .todo(id, todo):
                let previous = todos[id]
                guard previous != todo else { continue }
                todos[id] = todo
                changes.append(StoreChange.ItemChange(id: id, existed: previous != nil, value: todo.map { .todo($0) }))
            case let .project(id, header, position):
                let previous = headers[id]
                guard let header else {
                    guard previous != nil else { continue }
                    headers[id] = nil
                    order.positions[id] = nil
                    // A project's tasks go with it.
                    for task in tasksOf[id] ?? [] {
                        tasks[task] = nil
                        order.positions[task] = nil
                        changes.append(StoreChange.ItemChange(id: task, existed: true, value: nil))
                    }
                    tasksOf[id] = nil
                    changes.append(StoreChange.ItemChange(id: id, existed: true, value: nil))
                    continue
                }
                guard previous != header || order[id] != position else { continue }
                headers[id] = header
                order.positions[id] = position
                changes.append(StoreChange.ItemChange(id: id, existed: previous != nil, value: nil, project: id))
            case let .task(id, project, task, position):
                let previous = tasks[id]
                guard let task else {
                    guard let previous else { continue }
                    tasks[id] = nil
                    tasksOf[previous.project]?.remove(id)
                    order.positions[id] = nil
                    changes.append(StoreChange.ItemChange(id: id, existed: true, value: nil))
                    continue
                }
                guard previous?.task != task || previous?.project != project || order[id] != position else { continue }
                if let previous, previous.project != project { tasksOf[previous.project]?.remove(id) }
                tasks[id] = Task(task: task, project: project)
                tasksOf[project, default: []].insert(id)
                order.positions[id] = position
                changes.append(
                    StoreChange.ItemChange(id: id, existed: previous != nil, value: .task(task, project: project)))
            case let .tombstone(id, tombstone):
                tombstones[id] = tombstone
            }
        }
        // A project's value is given with its tasks as they are once every delta is in.
        return changes.map { change in
            guard let id = change.project else { return change }
            return StoreChange.ItemChange(id: id, existed: change.existed, value: project(id).map { .project($0) })
        }
    }

    /// The project of this id with its tasks in order.
    private func project(_ id: UUID) -> Project? {
        guard let header = headers[id] else { return nil }
        let list = (tasksOf[id] ?? []).compactMap { tasks[$0]?.task }
        return Project(id: id, title: header.title, tasks: ordered(list, by: order), alterDate: header.alterDate)
    }

    /// Everything the model holds, as `Store.load()` would read it.
    var snapshot: StoreSnapshot {
        StoreSnapshot(
            state: AppState(
                todos: Array(todos.values), projects: ordered(headers.keys.compactMap(project), by: order),
                removed: Array(tombstones.values)),
            order: order, problems: problemList)
    }

    // MARK: Looking at the files

    /// What changed in the store's files since the model last looked: every file under the store's folders is
    /// listed and its stat data read, and only a file whose stat data changed is read and decoded. A file that does
    /// not read leaves its item as it was, and is named in the snapshot's problems.
    /// With `only`, only those files (store paths) are looked at: the files a watcher saw change.
    func look(at store: Store, only: Set<String>? = nil) throws -> [Delta] {
        let source = try store.workingTreeOrLastCommit
        var reader = StoreReader(source)
        var seen = Set<String>()
        var deltas: [Delta] = []
        let now = Date()
        let root = store.rootPath + "/"
        try StoreError.gate(writing: false) {
            let listed =
                try only.map(Array.init)
                ?? [StoreLayout.todos, StoreLayout.projects, StoreLayout.docket].flatMap { try source.files(under: $0) }
            for path in listed {
                let kind = StoreLayout.item(at: path)
                switch kind {
                case .todo, .project, .task, .tombstone: break
                case .format, .other: continue
                }
                var info = stat()
                let fingerprint =
                    lstat(root + path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
                    ? TodoCache.Fingerprint(info) : nil
                if let fingerprint, files[path]?.fingerprint == fingerprint {
                    seen.insert(path)
                    continue
                }
                let problemsBefore = reader.problems.count
                let committedBefore = source.shownAsCommitted.count
                guard let item = reader.item(at: path, kind) else {
                    // Gone since it was listed, or unreadable: then its item stays as it was.
                    if reader.problems.count > problemsBefore, let problem = reader.problems.last {
                        seen.insert(path)
                        files[path] = Known(fingerprint: nil)
                        problems[path] = problem
                    }
                    continue
                }
                seen.insert(path)
                problems[path] = nil
                let trusted =
                    fingerprint.map { !$0.isFresh(now: now) } == true
                    && source.shownAsCommitted.count == committedBefore
                files[path] = Known(fingerprint: trusted ? fingerprint : nil)
                switch item {
                case let .todo(todo): deltas.append(.todo(todo.id, todo))
                case let .project(header, position): deltas.append(.project(header.id, header, position: position))
                case let .task(task, project, position):
                    deltas.append(.task(task.id, project: project, task, position: position))
                case let .tombstone(tombstone): deltas.append(.tombstone(tombstone.id, tombstone))
                case .format: break
                }
            }
        }
        for path in only.map({ $0.filter { files[$0] != nil } }) ?? Array(files.keys) where !seen.contains(path) {
            files[path] = nil
            problems[path] = nil
            switch StoreLayout.item(at: path) {
            case let .todo(id): deltas.append(.todo(id, nil))
            case let .project(id): deltas.append(.project(id, nil, position: nil))
            case let .task(id, project): deltas.append(.task(id, project: project, nil, position: nil))
            case let .tombstone(id): deltas.append(.tombstone(id, nil))
            case .format, .other: break
            }
        }
        return deltas
    }
}
