import DocketGit
import DocketModel
import Foundation

/// The items of one commit that a pull needs, read from the object database
/// (not the working tree): every project header (for order), the tasks of the
/// touched projects, the touched todos and tombstones.
struct TreeState {
    var state: AppState
    /// Order keys of the projects and tasks read.
    var positions: [UUID: Int]
    /// The blob of each store path read.
    var blobs: [String: ObjectID]

    /// Reads the items out of a commit's tree, refusing a file that does not decode (naming it and the commit).
    static func read(_ repository: Repository, commit: ObjectID, todos: Set<UUID>, projects touched: Set<UUID>,
                     tombstones: Set<UUID>) throws -> TreeState {
        let tree = try git { try repository.tree(ofCommit: commit) }
        var positions: [UUID: Int] = [:]
        var blobs: [String: ObjectID] = [:]
        func decode<T: Decodable>(_ type: T.Type, _ path: String, _ id: ObjectID) throws -> (T, Data) {
            let data = try git { try repository.blob(id) }
            do {
                return (try DocketJSON.decode(type, from: data), data)
            } catch {
                throw StoreError.corruptInCommit(path: path, commit: commit.short, reason: decodingReason(error))
            }
        }

        if let formatID = try git({ try repository.blobID(inTree: tree, at: StoreLayout.format) }) {
            let (format, _) = try decode(FormatFile.self, StoreLayout.format, formatID)
            if format.format > Store.format { throw StoreError.newerFormatInCommit(commit: commit.short, found: format.format) }
        }

        var todoItems: [TodoItem] = []
        for id in todos {
            let path = StoreLayout.todo(id)
            guard let blob = try git({ try repository.blobID(inTree: tree, at: path) }) else { continue }
            blobs[path] = blob
            todoItems.append(try decode(TodoItem.self, path, blob).0)
        }

        let projectFiles = try git { try repository.blobs(inTree: tree, under: ["projects"]) }
        var headers: [UUID: ProjectHeader] = [:]
        var tasks: [UUID: [ProjectTask]] = [:]
        for (path, blob) in projectFiles {
            switch StoreLayout.item(at: path) {
            case let .project(id):
                let (header, data) = try decode(ProjectHeader.self, path, blob)
                headers[id] = header
                positions[id] = (try? DocketJSON.decode(Position.self, from: data).position) ?? 0
                blobs[path] = blob
            case let .task(id, project) where touched.contains(project):
                let (task, data) = try decode(ProjectTask.self, path, blob)
                tasks[project, default: []].append(task)
                positions[id] = (try? DocketJSON.decode(Position.self, from: data).position) ?? 0
                blobs[path] = blob
            default: continue
            }
        }
        func ordered<Item: Identifiable<UUID>>(_ items: [Item]) -> [Item] {
            items.sorted { a, b in
                let (pa, pb) = (positions[a.id] ?? 0, positions[b.id] ?? 0)
                return pa != pb ? pa < pb : a.id.uuidString < b.id.uuidString
            }
        }
        let projects = ordered(headers.values.map { header in
            Project(id: header.id, title: header.title, tasks: ordered(tasks[header.id] ?? []), alterDate: header.alterDate)
        })

        var removed: [Tombstone] = []
        for id in tombstones {
            let path = StoreLayout.tombstone(id)
            guard let blob = try git({ try repository.blobID(inTree: tree, at: path) }) else { continue }
            blobs[path] = blob
            removed.append(try decode(Tombstone.self, path, blob).0)
        }
        return TreeState(state: AppState(todos: todoItems, projects: projects, removed: removed), positions: positions, blobs: blobs)
    }
}
