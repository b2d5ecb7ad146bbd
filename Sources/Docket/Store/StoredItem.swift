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
        if StoredItem.hasConflictMarkers(data) { throw Unreadable(reason: StoredItem.markersReason) }
        if let key = DocketJSON.repeatedKey(in: data) {
            throw Unreadable(
                reason: "does not decode (the key \"\(key)\" is in one object twice, and readers take either value)")
        }
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
            throw Unreadable(
                reason:
                    "holds the id \(stored.id?.uuidString.lowercased() ?? "none"), not the \(id.uuidString.lowercased()) its name gives"
            )
        }
        if case let .format(number) = stored, number > Store.format {
            throw Unreadable(reason: "names store format \(number), newer than this docket")
        }
        return stored
    }

    /// The keys of a todo's or task's dates that are `DueDate`s.
    static let dueKeys = ["dueDate", "waitDate", "scheduledDate"]

    /// The file text of the item, keeping the keys of `existing` it does not know, and the due dates it holds as
    /// written before store format 3 where they still read the same.
    func text(keeping existing: Data?) throws -> Data {
        switch self {
        case let .todo(todo):
            try fileText(
                todo, owning: TodoItem.fields.map(\.key), keepingUnknownKeysOf: existing, dueKeys: Self.dueKeys)
        case let .project(project, position):
            try fileText(
                ProjectHeader(project: project), extra: position.map { ["position": .integer(Int64($0))] } ?? [:],
                keepingUnknownKeysOf: existing)
        case let .task(task, _, position):
            try fileText(
                task, extra: position.map { ["position": .integer(Int64($0))] } ?? [:],
                owning: ProjectTask.fields.map(\.key),
                keepingUnknownKeysOf: existing, dueKeys: Self.dueKeys)
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

    /// Why a file with git's conflict markers is not read.
    static let markersReason =
        "holds git's conflict markers (a git merge or rebase stopped on it); 'docket sync' finishes it with Docket's merge"

    /// Why an item is shown as last committed rather than as its file holds it.
    static let shownAsCommittedReason =
        "holds git's conflict markers, so it is shown as last committed; 'docket sync' finishes the merge"

    /// Whether the bytes hold a line git writes for a conflict ("<<<<<<< ").
    static func hasConflictMarkers(_ data: Data) -> Bool {
        let marker = Array("<<<<<<< ".utf8)
        return data.withUnsafeBytes { raw in
            var lineStart = true
            for (index, byte) in raw.enumerated() {
                if lineStart && byte == marker[0] && raw.count - index >= marker.count
                    && marker.indices.allSatisfy({ raw[index + $0] == marker[$0] })
                {
                    return true
                }
                lineStart = byte == 0x0A
            }
            return false
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

    init(project: Project) {
        self.project = Project(id: project.id, title: project.title, tasks: [], alterDate: project.alterDate)
    }

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

extension FieldCoded {
    /// This item with its `alterDate` set to `date` (an item without one is returned as it is).
    func dated(_ date: Date) -> Self {
        guard let field = Self.fields.first(where: { $0.key == "alterDate" }) else { return self }
        return field.setting(Optional(date), in: self)
    }
}

extension StoredItem {
    /// This item dated now (`max(now, previous alterDate + 1 ms)`) when its
    /// content changed since `old` but its alterDate did not move: an edit by
    /// hand or by another tool, which then weighs in merges as made when it is committed.
    func stampedIfHandEdited(since old: StoredItem, now: Date? = nil) -> StoredItem? {
        func changed<Item: FieldCoded>(_ new: Item, _ old: Item) -> Bool {
            Item.contentFields.contains { !$0.isSame(new, old) }
        }
        func unmoved(_ new: Date?, _ old: Date?) -> Bool { DocketClock.isUnmoved(new, since: old, at: now) }
        switch (self, old) {
        case let (.todo(new), .todo(old)) where changed(new, old) && unmoved(new.alterDate, old.alterDate):
            return .todo(new.dated(DocketClock.alterDate(after: old.alterDate ?? old.creationDate, now: now)))
        case let (.project(new, position), .project(old, _))
        where changed(new, old) && unmoved(new.alterDate, old.alterDate):
            return .project(new.dated(DocketClock.alterDate(after: old.alterDate, now: now)), position: position)
        case let (.task(new, project, position), .task(old, _, _))
        where changed(new, old) && unmoved(new.alterDate, old.alterDate):
            return .task(
                new.dated(DocketClock.alterDate(after: old.alterDate, now: now)), project: project, position: position)
        default:
            return nil
        }
    }
}
