import DocketMerge
import Foundation

extension Store {
    /// The todo a typed id names: the whole id, or a unique prefix of 4 or more characters, in any case.
    public func todoID(_ typed: String) throws -> UUID {
        try single(typed, kind: .todo, among: try matching(typed, kind: .todo, among: todoCandidates(typed)))
    }

    /// The project a typed id names.
    public func projectID(_ typed: String) throws -> UUID {
        try single(typed, kind: .project, among: try matching(typed, kind: .project, among: projectIDs()))
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
        let id = try single(typed, kind: .task, among: try matching(typed, kind: .task, among: all.map(\.task)))
        return all.first { $0.task == id }!
    }

    /// The todo or task a typed id names, by the same rules: todos and tasks are one space of ids, as the day's
    /// view shows them together. A prefix that starts ids of both kinds is refused, naming them.
    public func entryRef(_ typed: String) throws -> EntryRef {
        let tasks = try taskIDs(startingWith: typed)
        let todos: [UUID]
        let taskMatches: [UUID]
        do {
            todos = try matching(typed, kind: .todo, among: todoCandidates(typed))
            taskMatches = try matching(typed, kind: .task, among: tasks.map(\.task))
        } catch StoreError.input(.notFound) {
            throw StoreError.input(.noItem(id: typed))
        }
        switch (todos.count, taskMatches.count) {
        case (0, 0): throw StoreError.input(.noItem(id: typed))
        case (1, 0): return .todo(todos[0])
        case (0, 1):
            let task = tasks.first { $0.task == taskMatches[0] }!
            return .task(task.task, project: task.project)
        case (_, 0): return .todo(try single(typed, kind: .todo, among: todos))
        case (0, _): throw ambiguity(typed, kind: .task, among: taskMatches)
        default:
            throw StoreError.input(
                .todoOrTask(
                    prefix: typed, todos: todos.map(Self.shortID).sorted(),
                    tasks: taskMatches.map(Self.shortID).sorted()))
        }
    }

    /// The todos a typed id may name: those of the one shard folder its first two digits name.
    private func todoCandidates(_ typed: String) throws -> [UUID] {
        try todoIDs(startingWith: String(typed.uppercased().prefix(2)))
    }

    /// The candidates a typed id names: the one it spells whole, else those it starts (4 characters or more).
    private func matching(_ typed: String, kind: ItemDecision.Kind, among candidates: [UUID]) throws -> [UUID] {
        let upper = typed.uppercased()
        guard upper.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw StoreError.input(.notFound(kind: kind, id: typed))
        }
        if let full = UUID(uuidString: upper) { return candidates.contains(full) ? [full] : [] }
        guard upper.count >= 4 else { throw StoreError.input(.idTooShort(prefix: typed)) }
        return candidates.filter { $0.uuidString.hasPrefix(upper) }
    }

    /// The one match, else the error that says there is none or more than one.
    private func single(_ typed: String, kind: ItemDecision.Kind, among matches: [UUID]) throws -> UUID {
        switch matches.count {
        case 0: throw StoreError.input(.notFound(kind: kind, id: typed))
        case 1: return matches[0]
        default: throw ambiguity(typed, kind: kind, among: matches)
        }
    }

    private func ambiguity(_ typed: String, kind: ItemDecision.Kind, among matches: [UUID]) -> StoreError {
        StoreError.input(
            .ambiguous(kind: kind, prefix: typed, candidates: matches.map { $0.uuidString.lowercased() }.sorted()))
    }

    /// The id as lists show it: its first 8 digits, in lower case.
    static func shortID(_ id: UUID) -> String { String(id.uuidString.lowercased().prefix(8)) }
}
