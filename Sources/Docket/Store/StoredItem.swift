import DocketModel
import Foundation

/// What one store file holds, decoded: the one description of every kind of
/// store file, used to read, write, describe, check and merge them.
enum StoredItem: Equatable {
    /// A todo.
    case todo(TodoItem)
    /// A project's own file: the project without its tasks, and its order key.
    case project(Project, position: Int?)
    /// A task of a project, and its order key.
    case task(ProjectTask, project: UUID, position: Int?)
    /// The record of a removal.
    case tombstone(Tombstone)
    /// The store's format.
    case format(Int)

    /// A project's own file: the project without its tasks, with its order key.
    static func header(_ project: Project, position: Int?) -> StoredItem {
        .project(ProjectHeader(project: project).project, position: position)
    }

    /// Where the item's file is.
    var path: String {
        switch self {
        case let .todo(todo): StoreLayout.todo(todo.id)
        case let .project(project, _): StoreLayout.project(project.id)
        case let .task(task, project, _): StoreLayout.task(task.id, in: project)
        case let .tombstone(tombstone): StoreLayout.tombstone(tombstone.id)
        case .format: StoreLayout.format
        }
    }

    /// Decodes the file at a store path, checking that it holds the item its
    /// path names; throws the reason (for a `StoreProblem`) when it does not.
    static func decode(_ data: Data, at item: StoreLayout.Item) throws -> StoredItem {
        let stored: StoredItem
        do {
            switch item {
            case .todo: stored = .todo(try DocketJSON.decode(TodoItem.self, from: data))
            case .project:
                let file = try DocketJSON.decode(Positioned<ProjectHeader>.self, from: data)
                stored = .project(file.item.project, position: file.position)
            case let .task(_, project):
                let file = try DocketJSON.decode(Positioned<ProjectTask>.self, from: data)
                stored = .task(file.item, project: project, position: file.position)
            case .tombstone: stored = .tombstone(try DocketJSON.decode(Tombstone.self, from: data))
            case .format: stored = .format(try DocketJSON.decode(FormatFile.self, from: data).format)
            case .other: throw Unreadable(reason: "is not a Docket item file")
            }
        } catch let error as Unreadable {
            throw error
        } catch {
            throw Unreadable(reason: "does not decode (\(decodingReason(error)))")
        }
        if let id = item.id, stored.id != id {
            throw Unreadable(reason: "holds the id \(stored.id?.uuidString.lowercased() ?? "none"), not the \(id.uuidString.lowercased()) its name gives")
        }
        if case let .format(number) = stored, number > Store.format {
            throw Unreadable(reason: "names store format \(number), newer than this docket")
        }
        return stored
    }

    /// The file text of the item, keeping the keys of `existing` it does not know.
    func text(keeping existing: Data?) throws -> Data {
        switch self {
        case let .todo(todo): try fileText(todo, keepingUnknownKeysOf: existing)
        case let .project(project, position):
            try fileText(ProjectHeader(project: project), extra: position.map { ["position": .int(Int64($0))] } ?? [:], keepingUnknownKeysOf: existing)
        case let .task(task, _, position):
            try fileText(task, extra: position.map { ["position": .int(Int64($0))] } ?? [:], keepingUnknownKeysOf: existing)
        case let .tombstone(tombstone):
            try fileText(tombstone, extra: ["path": .string(tombstone.removedPath)], keepingUnknownKeysOf: existing)
        case let .format(number): try fileText(FormatFile(format: number), keepingUnknownKeysOf: existing)
        }
    }

    /// The id the item has.
    var id: UUID? {
        switch self {
        case let .todo(todo): todo.id
        case let .project(project, _): project.id
        case let .task(task, _, _): task.id
        case let .tombstone(tombstone): tombstone.id
        case .format: nil
        }
    }

    /// Why a file was not taken as an item.
    struct Unreadable: Error {
        let reason: String
    }
}

/// A project's own file: the project's fields without its tasks, which have files of their own.
struct ProjectHeader: Codable, Equatable {
    let project: Project

    init(project: Project) { self.project = Project(id: project.id, title: project.title, tasks: [], alterDate: project.alterDate) }

    private static let fields = Project.fields.filter { $0.rule != .children }

    init(from decoder: Decoder) throws { project = try Project(from: decoder, fields: ProjectHeader.fields) }
    func encode(to encoder: Encoder) throws { try project.encode(to: encoder, fields: ProjectHeader.fields) }
}

/// An item decoded with the order key its file carries.
struct Positioned<Item: Decodable>: Decodable {
    let item: Item
    let position: Int?

    init(from decoder: Decoder) throws {
        item = try Item(from: decoder)
        position = try decoder.container(keyedBy: FieldKey.self).decodeIfPresent(Int.self, forKey: FieldKey("position"))
    }
}

extension Tombstone {
    /// Where the removed item lived.
    var removedPath: String {
        switch kind {
        case .todo: StoreLayout.todo(id)
        case .project: StoreLayout.projectFolder(id)
        case .task: projectID.map { StoreLayout.task(id, in: $0) } ?? StoreLayout.projects
        }
    }
}
