import DocketModel
import DocketSystem
import Foundation

/// A store's state as read from its files, with the order keys the files
/// carry and the files that could not be read.
public struct StoreSnapshot: Sendable {
    /// Every item that read well.
    public let state: AppState
    /// The order keys of the projects and tasks read.
    public let order: Order
    /// The files that were skipped, each with the reason.
    public let problems: [StoreProblem]
}

/// The one reader of store files, from the working tree or a commit: each file
/// is read through the source's guards, decoded, and checked to hold the item
/// its path names. What does not read is collected in `problems`; a missing file is no problem.
struct StoreReader {
    let source: ItemSource
    private(set) var problems: [StoreProblem] = []
    private(set) var order = Order()

    init(_ source: ItemSource) {
        self.source = source
    }

    /// The item at a store path; nil when it is missing or does not read (then a problem says why).
    mutating func item(at path: String, _ known: StoreLayout.Item? = nil) -> StoredItem? {
        let item = known ?? StoreLayout.item(at: path)
        do {
            let stored = try source.decoded(path, as: item)
            switch stored {
            case let .project(project, position): order.positions[project.id] = position ?? 0
            case let .task(task, _, position): order.positions[task.id] = position ?? 0
            default: break
            }
            return stored
        } catch FileProblem.missing {
            return nil
        } catch let problem as FileProblem {
            problems.append(StoreProblem(path: path, reason: problem.description))
        } catch let unreadable as StoredItem.Unreadable {
            problems.append(StoreProblem(path: path, reason: unreadable.reason))
        } catch {
            problems.append(StoreProblem(path: path, reason: "\(error)"))
        }
        return nil
    }

    /// The items at these working-tree paths, read and decoded on all cores,
    /// in order (nil where a file is missing or does not read), and the
    /// problems found, as `item(at:)` finds them one by one.
    static func items(at paths: [String], in root: Folder) -> (items: [StoredItem?], problems: [StoreProblem]) {
        let parts = min(paths.count, Parallel.parts)
        guard parts > 0 else { return ([], []) }
        let size = (paths.count + parts - 1) / parts
        let read = Parallel.map(parts) { part -> UncheckedSendable<([StoredItem?], [StoreProblem])> in
            var reader = StoreReader(WorkingTreeSource(root: root))
            let range = min(paths.count, part * size)..<min(paths.count, (part + 1) * size)
            return UncheckedSendable((range.map { reader.item(at: paths[$0]) }, reader.problems))
        }
        return (read.flatMap(\.value.0), read.flatMap(\.value.1))
    }

    /// The todo of this id, if its file reads.
    mutating func todo(_ id: UUID) -> TodoItem? {
        todo(at: StoreLayout.todo(id))
    }

    /// The todo in the file at this store path, if it reads and holds one.
    mutating func todo(at path: String) -> TodoItem? {
        guard case let .todo(todo)? = item(at: path) else { return nil }
        return todo
    }

    /// The tombstone of this id, if its file reads.
    mutating func tombstone(_ id: UUID) -> Tombstone? {
        guard case let .tombstone(tombstone)? = item(at: StoreLayout.tombstone(id)) else { return nil }
        return tombstone
    }

    /// The project of this id with its tasks in order, if its file reads
    /// (`header` is its own file when already read).
    mutating func project(_ id: UUID, header known: Project? = nil) throws -> Project? {
        guard
            let header = known
                ?? { if case let .project(header, _)? = item(at: StoreLayout.project(id)) { header } else { nil } }()
        else { return nil }
        let tasks = try source.files(under: StoreLayout.tasksFolder(of: id)).compactMap { path -> ProjectTask? in
            let kind = StoreLayout.item(at: path)
            guard case .task = kind, case let .task(task, _, _)? = item(at: path, kind) else { return nil }
            return task
        }
        return Project(
            id: header.id, title: header.title, tasks: ordered(tasks, by: order), alterDate: header.alterDate)
    }

    /// Every item of the store; every other file in its folders is a problem.
    mutating func everything() throws -> AppState {
        var todos: [TodoItem] = []
        for path in try source.files(under: StoreLayout.todos) {
            let kind = StoreLayout.item(at: path)
            if case .todo = kind {
                if case let .todo(todo)? = item(at: path, kind) { todos.append(todo) }
            } else {
                stray(path)
            }
        }
        let projects = try projectHeaders().compactMap { try project($0.key, header: $0.value) }
        return AppState(todos: todos, projects: ordered(projects, by: order), removed: try tombstones())
    }

    /// Every tombstone; every other file in Docket's own folder but the format's is a problem.
    mutating func tombstones() throws -> [Tombstone] {
        var removed: [Tombstone] = []
        for path in try source.files(under: StoreLayout.docket) {
            switch StoreLayout.item(at: path) {
            case .tombstone: if case let .tombstone(tombstone)? = item(at: path) { removed.append(tombstone) }
            case .format: continue
            default: stray(path)
            }
        }
        return removed
    }

    /// Records a file in the store's folders that names no item: a link, or a file under another name.
    mutating func stray(_ path: String) {
        guard StoreLayout.isStray(path) else { return }
        do {
            _ = try source.read(path)
            problems.append(StoreProblem(path: path, reason: StoreReader.strayReason))
        } catch let problem as FileProblem where problem != .missing {
            problems.append(
                StoreProblem(path: path, reason: problem == .notRegular ? StoreReader.strayReason : problem.description)
            )
        } catch {
            problems.append(StoreProblem(path: path, reason: StoreReader.strayReason))
        }
    }

    /// Why a file under a name Docket does not give is refused.
    static let strayReason =
        "is not a Docket item: items are todos/<AB>/<ID>.json, projects/<ID>/project.json, "
        + "projects/<ID>/tasks/<ID>.json and .docket/removed/<AB>/<ID>.json, with the id in capitals and <AB> its first two characters; "
        + "move the file out of the store's folders"

    /// The items a change touches: these todos, tombstones and projects (with
    /// their tasks); with `allProjectHeaders`, every other project's own file
    /// too (without its tasks), for the order of projects.
    mutating func items(
        todos: some Sequence<UUID>, projects touched: Set<UUID>, tombstones: some Sequence<UUID>,
        allProjectHeaders: Bool
    ) throws -> AppState {
        let todoItems = todos.compactMap { todo($0) }
        var projects: [Project] = []
        if allProjectHeaders {
            for (id, header) in try projectHeaders() {
                projects.append(touched.contains(id) ? try project(id, header: header) ?? header : header)
            }
        } else {
            for id in touched { if let project = try project(id) { projects.append(project) } }
        }
        let removed = tombstones.compactMap { tombstone($0) }
        return AppState(todos: todoItems, projects: ordered(projects, by: order), removed: removed)
    }

    /// Every project's own file (without its tasks), by id; a file under
    /// `projects/` that is neither a project's nor a task's is a problem.
    mutating func projectHeaders() throws -> [UUID: Project] {
        var headers: [UUID: Project] = [:]
        var tasks: [(path: String, project: UUID)] = []
        var unread = Set<UUID>()
        for path in try source.files(under: StoreLayout.projects) {
            let kind = StoreLayout.item(at: path)
            switch kind {
            case let .project(id):
                if case let .project(header, _)? = item(at: path, kind) {
                    headers[id] = header
                } else {
                    unread.insert(id)
                }
            case let .task(_, project): tasks.append((path, project))
            default: stray(path)
            }
        }
        for task in tasks where headers[task.project] == nil && !unread.contains(task.project) {
            problems.append(
                StoreProblem(
                    path: task.path,
                    reason:
                        "belongs to no project: \(StoreLayout.project(task.project)) is missing; restore it or remove the task's file"
                ))
        }
        return headers
    }
}
