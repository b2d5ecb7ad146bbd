import DocketMerge
import Foundation

extension Store {
    /// The todo a typed id names: the whole id, or a unique prefix of 4 or more characters, in any case.
    public func todoID(_ typed: String) throws -> UUID {
        try resolve(typed, kind: .todo) { try todoIDs(startingWith: String(typed.uppercased().prefix(2))) }
    }

    /// The project a typed id names.
    public func projectID(_ typed: String) throws -> UUID {
        try resolve(typed, kind: .project) { try projectIDs() }
    }

    /// The project a typed id or title names: its id or a unique prefix of it, else its whole title, in any case.
    public func projectID(idOrTitle typed: String) throws -> UUID {
        do {
            return try projectID(typed)
        } catch StoreError.input(.notFound), StoreError.input(.idTooShort) {}
        let titled = try loadProjects().projects.filter { $0.title.caseInsensitiveCompare(typed) == .orderedSame }
        switch titled.count {
        case 0: throw StoreError.input(.unknownProject(typed))
        case 1: return titled[0].id
        default:
            throw StoreError.input(
                .ambiguousProjectTitle(title: typed, candidates: titled.map { $0.id.uuidString.lowercased() }.sorted()))
        }
    }

    /// The task a typed id names, with its project.
    public func taskID(_ typed: String) throws -> (task: UUID, project: UUID) {
        let all = try taskIDs()
        let id = try resolve(typed, kind: .task) { all.map(\.task) }
        return all.first { $0.task == id }!
    }

    private func resolve(_ typed: String, kind: ItemDecision.Kind, among candidates: () throws -> [UUID]) throws -> UUID
    {
        let upper = typed.uppercased()
        guard upper.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw StoreError.input(.notFound(kind: kind, id: typed))
        }
        if let full = UUID(uuidString: upper), try candidates().contains(full) { return full }
        guard upper.count >= 4 else { throw StoreError.input(.idTooShort(prefix: typed)) }
        let matches = try candidates().filter { $0.uuidString.hasPrefix(upper) }
        switch matches.count {
        case 0: throw StoreError.input(.notFound(kind: kind, id: typed))
        case 1: return matches[0]
        default:
            throw StoreError.input(
                .ambiguous(kind: kind, prefix: typed, candidates: matches.map { $0.uuidString.lowercased() }.sorted()))
        }
    }
}
