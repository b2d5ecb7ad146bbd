import DocketModel
import Foundation

/// A store's state as read from its files, with the files that could not be read.
public struct StoreSnapshot: Sendable {
    /// Every item that read well.
    public let state: AppState
    /// The files that were skipped, each with the reason.
    public let problems: [StoreProblem]
}

extension Store {
    /// Files larger than this are not read: no item is anywhere near it.
    public static let maximumFileSize = 1 << 20

    /// Reads every item file. A file that does not decode, is not a regular
    /// file, or is larger than 1 MiB is skipped and reported; the rest load.
    public func load() throws -> StoreSnapshot {
        var problems: [StoreProblem] = []
        var todos: [TodoItem] = []
        for folder in try listing("todos") where folder.count == 2 {
            for file in try listing("todos/" + folder) where isItemFile(file) {
                if let todo = read(TodoItem.self, at: "todos/\(folder)/\(file)", problems: &problems) { todos.append(todo) }
            }
        }
        var projects: [Project] = []
        for folder in try listing("projects") where UUID(uuidString: folder) != nil {
            if let project = readProject(folder: "projects/" + folder, problems: &problems) { projects.append(project) }
        }
        var removed: [Tombstone] = []
        for folder in try listing(".docket/removed") where folder.count == 2 {
            for file in try listing(".docket/removed/" + folder) where isItemFile(file) {
                if let tombstone = read(Tombstone.self, at: ".docket/removed/\(folder)/\(file)", problems: &problems) { removed.append(tombstone) }
            }
        }
        return StoreSnapshot(state: AppState(todos: todos, projects: sortedByPosition(projects), removed: removed), problems: problems)
    }

    /// The ids of all todos, from the file names alone (no file is read).
    public func todoIDs() throws -> [UUID] {
        try listing("todos").filter { $0.count == 2 }.flatMap { folder in
            try listing("todos/" + folder).compactMap(idOfItemFile)
        }
    }

    /// The ids of todos whose id starts with `prefix` (at least two hex digits), from file names alone.
    public func todoIDs(startingWith prefix: String) throws -> [UUID] {
        let upper = prefix.uppercased()
        guard upper.count >= 2 else { return try todoIDs().filter { $0.uuidString.hasPrefix(upper) } }
        return try listing("todos/" + upper.prefix(2)).compactMap(idOfItemFile).filter { $0.uuidString.hasPrefix(upper) }
    }

    /// The ids of all projects, from folder names alone.
    public func projectIDs() throws -> [UUID] {
        try listing("projects").compactMap { UUID(uuidString: $0) }
    }

    /// The ids of all tasks with their projects, from file names alone.
    public func taskIDs() throws -> [(task: UUID, project: UUID)] {
        try projectIDs().flatMap { project in
            try listing(StoreLayout.projectFolder(project) + "/tasks").compactMap(idOfItemFile).map { (task: $0, project: project) }
        }
    }

    /// One todo, read from its file.
    public func todo(_ id: UUID) throws -> TodoItem {
        var problems: [StoreProblem] = []
        guard FileManager.default.fileExists(atPath: path(StoreLayout.todo(id))) else { throw StoreError.notFound(kind: "todo", id: id.uuidString) }
        guard let todo = read(TodoItem.self, at: StoreLayout.todo(id), problems: &problems) else { throw StoreError.unreadable(problems[0]) }
        return todo
    }

    /// One project with its tasks, read from its files.
    public func project(_ id: UUID) throws -> Project {
        var problems: [StoreProblem] = []
        guard FileManager.default.fileExists(atPath: path(StoreLayout.project(id))) else { throw StoreError.notFound(kind: "project", id: id.uuidString) }
        guard let project = readProject(folder: StoreLayout.projectFolder(id), problems: &problems) else { throw StoreError.unreadable(problems[0]) }
        if let problem = problems.first { throw StoreError.unreadable(problem) }
        return project
    }

    // MARK: Files

    func readProject(folder: String, problems: inout [StoreProblem]) -> Project? {
        guard let data = readFile(at: folder + "/project.json", problems: &problems) else { return nil }
        let header: ProjectHeader
        do {
            header = try DocketJSON.decode(ProjectHeader.self, from: data)
            positions[header.id] = try DocketJSON.decode(Position.self, from: data).position ?? 0
        } catch {
            problems.append(StoreProblem(path: folder + "/project.json", reason: decodingReason(error)))
            return nil
        }
        var tasks: [ProjectTask] = []
        for file in (try? listing(folder + "/tasks")) ?? [] where isItemFile(file) {
            let taskPath = "\(folder)/tasks/\(file)"
            guard let data = readFile(at: taskPath, problems: &problems) else { continue }
            do {
                let task = try DocketJSON.decode(ProjectTask.self, from: data)
                positions[task.id] = try DocketJSON.decode(Position.self, from: data).position ?? 0
                tasks.append(task)
            } catch {
                problems.append(StoreProblem(path: taskPath, reason: decodingReason(error)))
            }
        }
        return Project(id: header.id, title: header.title, tasks: sortedByPosition(tasks), alterDate: header.alterDate)
    }

    func sortedByPosition<Item: Identifiable<UUID>>(_ items: [Item]) -> [Item] {
        items.sorted { a, b in
            let (pa, pb) = (positions[a.id] ?? 0, positions[b.id] ?? 0)
            return pa != pb ? pa < pb : a.id.uuidString < b.id.uuidString
        }
    }

    func read<T: Decodable>(_ type: T.Type, at relative: String, problems: inout [StoreProblem]) -> T? {
        guard let data = readFile(at: relative, problems: &problems) else { return nil }
        do {
            return try DocketJSON.decode(type, from: data)
        } catch {
            problems.append(StoreProblem(path: relative, reason: decodingReason(error)))
            return nil
        }
    }

    /// The bytes of a regular file of at most 1 MiB; anything else is reported, never followed.
    func readFile(at relative: String, problems: inout [StoreProblem]) -> Data? {
        var info = stat()
        guard lstat(path(relative), &info) == 0 else {
            problems.append(StoreProblem(path: relative, reason: String(cString: strerror(errno))))
            return nil
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFLNK:
            problems.append(StoreProblem(path: relative, reason: "is a symbolic link, which Docket does not follow"))
            return nil
        default:
            problems.append(StoreProblem(path: relative, reason: "is not a regular file"))
            return nil
        }
        guard Int(info.st_size) <= Store.maximumFileSize else {
            problems.append(StoreProblem(path: relative, reason: "is \(info.st_size) bytes, larger than the 1 MiB an item file may be"))
            return nil
        }
        guard let data = FileManager.default.contents(atPath: path(relative)) else {
            problems.append(StoreProblem(path: relative, reason: "cannot be read"))
            return nil
        }
        return data
    }

    /// The names in a store folder; none when it does not exist.
    func listing(_ relative: some StringProtocol) throws -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path(String(relative)))) ?? []
    }

    func isItemFile(_ name: String) -> Bool { name.hasSuffix(".json") && !name.hasPrefix(".") }

    func idOfItemFile(_ name: String) -> UUID? {
        guard isItemFile(name) else { return nil }
        return UUID(uuidString: String(name.dropLast(5)))
    }
}
