import Foundation

/// Where each item lives in a store (format 1).
///
///     .docket/format.json                  {"format": 1}
///     todos/<AB>/<UUID>.json               one TodoItem; <AB> = the id's first two hex digits
///     projects/<UUID>/project.json         one Project, without its tasks
///     projects/<UUID>/tasks/<UUID>.json    one ProjectTask, with its time slips
///     .docket/removed/<AB>/<UUID>.json     a tombstone
public enum StoreLayout {
    /// The folders that hold the store's files.
    public static let folders = ["todos", "projects", ".docket"]

    /// The file of a todo.
    public static func todo(_ id: UUID) -> String {
        let name = id.uuidString
        return "todos/\(name.prefix(2))/\(name).json"
    }

    /// The folder of a project and its tasks.
    public static func projectFolder(_ id: UUID) -> String { "projects/\(id.uuidString)" }
    /// The file of a project, without its tasks.
    public static func project(_ id: UUID) -> String { "projects/\(id.uuidString)/project.json" }
    /// The file of a project's task.
    public static func task(_ id: UUID, in project: UUID) -> String { "projects/\(project.uuidString)/tasks/\(id.uuidString).json" }

    /// The file of a removed item's tombstone.
    public static func tombstone(_ id: UUID) -> String {
        let name = id.uuidString
        return ".docket/removed/\(name.prefix(2))/\(name).json"
    }

    /// The file that names the store's format.
    public static let format = ".docket/format.json"

    /// What a store path holds.
    public enum Item: Equatable {
        case todo(UUID), project(UUID), task(UUID, project: UUID), tombstone(UUID), format, other
    }

    /// What the file at a store path holds.
    public static func item(at path: String) -> Item {
        let parts = path.split(separator: "/").map(String.init)
        func id(_ file: String) -> UUID? {
            guard file.hasSuffix(".json") else { return nil }
            return UUID(uuidString: String(file.dropLast(5)))
        }
        switch parts.count {
        case 3 where parts[0] == "todos": return id(parts[2]).map(Item.todo) ?? .other
        case 3 where parts[0] == "projects" && parts[2] == "project.json": return UUID(uuidString: parts[1]).map(Item.project) ?? .other
        case 4 where parts[0] == "projects" && parts[2] == "tasks":
            guard let project = UUID(uuidString: parts[1]), let task = id(parts[3]) else { return .other }
            return .task(task, project: project)
        case 4 where parts[0] == ".docket" && parts[1] == "removed": return id(parts[3]).map(Item.tombstone) ?? .other
        case 2 where path == format: return .format
        default: return .other
        }
    }
}
