import Docket
import Foundation

/// Finds the item a typed id prefix names.
enum IDs {
    static func resolve(_ prefix: String, kind: String, among candidates: () throws -> [UUID]) throws -> UUID {
        let typed = prefix.uppercased()
        if let full = UUID(uuidString: typed), try candidates().contains(full) { return full }
        guard typed.count >= 4 else { throw StoreError.idTooShort(prefix: prefix) }
        let matches = try candidates().filter { $0.uuidString.hasPrefix(typed) }
        switch matches.count {
        case 0: throw StoreError.notFound(kind: kind, id: prefix)
        case 1: return matches[0]
        default: throw StoreError.ambiguous(kind: kind, prefix: prefix, candidates: matches.map { $0.uuidString.lowercased() }.sorted())
        }
    }

    static func todo(_ prefix: String, in store: Store) throws -> UUID {
        try resolve(prefix, kind: "todo") { try store.todoIDs(startingWith: String(prefix.uppercased().prefix(2))) }
    }

    static func project(_ prefix: String, in store: Store) throws -> UUID {
        try resolve(prefix, kind: "project") { try store.projectIDs() }
    }

    static func task(_ prefix: String, in store: Store) throws -> (task: UUID, project: UUID) {
        let all = try store.taskIDs()
        let id = try resolve(prefix, kind: "task") { all.map(\.task) }
        return all.first { $0.task == id }!
    }
}
