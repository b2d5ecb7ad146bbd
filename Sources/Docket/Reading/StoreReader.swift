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
            let stored = try StoredItem.decode(try source.read(path), at: item)
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

    /// The todo of this id, if its file reads.
    mutating func todo(_ id: UUID) -> TodoItem? {
        guard case let .todo(todo)? = item(at: StoreLayout.todo(id)) else { return nil }
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
        guard let header = known ?? { if case let .project(header, _)? = item(at: StoreLayout.project(id)) { header } else { nil } }()
        else { return nil }
        let tasks = try source.files(under: StoreLayout.tasksFolder(of: id)).compactMap { path -> ProjectTask? in
            let kind = StoreLayout.item(at: path)
            guard case .task = kind, case let .task(task, _, _)? = item(at: path, kind) else { return nil }
            return task
        }
        return Project(id: header.id, title: header.title, tasks: ordered(tasks, by: order), alterDate: header.alterDate)
    }

    /// Every item of the store.
    mutating func everything() throws -> AppState {
        var todos: [TodoItem] = []
        for path in try source.files(under: StoreLayout.todos) {
            let kind = StoreLayout.item(at: path)
            if case .todo = kind, case let .todo(todo)? = item(at: path, kind) { todos.append(todo) }
        }
        let projects = try projectHeaders().compactMap { try project($0.key, header: $0.value) }
        var removed: [Tombstone] = []
        for path in try source.files(under: StoreLayout.removed) {
            let kind = StoreLayout.item(at: path)
            if case .tombstone = kind, case let .tombstone(tombstone)? = item(at: path, kind) { removed.append(tombstone) }
        }
        return AppState(todos: todos, projects: ordered(projects, by: order), removed: removed)
    }

    /// The items a change touches: these todos, tombstones and projects (with
    /// their tasks); with `allProjectHeaders`, every other project's own file
    /// too (without its tasks), for the order of projects.
    mutating func items(todos: some Sequence<UUID>, projects touched: Set<UUID>, tombstones: some Sequence<UUID>,
                        allProjectHeaders: Bool) throws -> AppState {
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

    /// Every project's own file (without its tasks), by id.
    mutating func projectHeaders() throws -> [UUID: Project] {
        var headers: [UUID: Project] = [:]
        for path in try source.files(under: StoreLayout.projects) {
            let kind = StoreLayout.item(at: path)
            guard case let .project(id) = kind, case let .project(header, _)? = item(at: path, kind) else { continue }
            headers[id] = header
        }
        return headers
    }
}
