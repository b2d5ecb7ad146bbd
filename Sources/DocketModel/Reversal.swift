import Foundation

/// A change undone as a new edit: each field the change set is put back to
/// what it was, where it still holds what the change wrote, with a new
/// alterDate, so the undo syncs and merges like any other edit. Fields
/// changed since (here or by a merge) are left as they are and named.
public struct Reversal: Sendable {
    /// The state with the change undone.
    public let state: AppState
    /// What could not be put back, for people: "todo 'Buy milk' text: changed since".
    public let skipped: [String]
}

extension AppState {
    /// This state with the change from `before` to `after` undone as a new
    /// edit (see `Reversal`). Items the change added are removed, unless
    /// `keepingAdded` (a merge's undo keeps what it brought in); items it
    /// removed come back, dated after their removal so they win over it.
    public func reversing(before: AppState, after: AppState, keepingAdded: Bool = false) -> Reversal {
        var state = self
        var skipped: [String] = []
        let todoIDs = Set(before.todos.map(\.id)).union(after.todos.map(\.id))
        for id in todoIDs.sorted(by: { $0.precedes($1) }) {
            switch (before.todo(id: id), after.todo(id: id), state.todo(id: id)) {
            case let (b?, a?, c?):
                let (item, notes) = Self.reverse(c, before: b, after: a, label: "todo '\(c.text)'")
                skipped += notes
                if item != c { state = state.alter(by: .updating(.todo(item.redated(after: c.alterDate)))) }
            case (_?, _?, nil):
                skipped.append("todo '\(after.todo(id: id)!.text)': removed since")
            case let (nil, _?, c?) where !keepingAdded:
                state = state.alter(by: .removing(.todo(c)))
            case let (b?, nil, nil):
                let removed = state.tombstone(id: id)?.removedDate ?? after.tombstone(id: id)?.removedDate
                state = state.alter(
                    by: .adding(.todo(b.redated(after: [b.alterDate, removed].compactMap { $0 }.max()))))
            default:
                continue
            }
        }
        let projectIDs = Set(before.projects.map(\.id)).union(after.projects.map(\.id))
        for id in projectIDs.sorted(by: { $0.precedes($1) }) {
            switch (before.project(id: id), after.project(id: id), state.project(id: id)) {
            case let (b?, a?, c?):
                var project = c
                let (header, notes) = Self.reverse(c, before: b, after: a, label: "project '\(c.title)'")
                skipped += notes
                if !Project.fields.filter({ $0.rule == .laterEdit }).allSatisfy({ $0.isSame(header, c) }) {
                    project = project.alter(by: .setting(.title(to: header.title)))
                }
                project = Self.reverseTasks(
                    of: project, before: b, after: a, keepingAdded: keepingAdded, skipped: &skipped)
                if project != c { state = state.alter(by: .updating(.project(project))) }
            case (_?, _?, nil):
                skipped.append("project '\(after.project(id: id)!.title)': removed since")
            case let (nil, _?, c?) where !keepingAdded:
                state = state.alter(by: .removing(.project(c)))
            case let (b?, nil, nil):
                let removed = state.tombstone(id: id)?.removedDate ?? after.tombstone(id: id)?.removedDate
                state = state.alter(
                    by: .adding(.project(b.redated(after: [b.latestAlterDate, removed].compactMap { $0 }.max()))))
            default:
                continue
            }
        }
        return Reversal(state: state, skipped: skipped)
    }

    private static func reverseTasks(
        of project: Project, before: Project, after: Project, keepingAdded: Bool,
        skipped: inout [String]
    ) -> Project {
        var project = project
        let ids = Set(before.tasks.map(\.id)).union(after.tasks.map(\.id))
        for id in ids.sorted(by: { $0.precedes($1) }) {
            switch (before.task(id: id), after.task(id: id), project.task(id: id)) {
            case let (b?, a?, c?):
                let (task, notes) = reverse(c, before: b, after: a, label: "task '\(c.title)'")
                skipped += notes
                if task != c { project = project.alter(by: .updating(.task(task.redated(after: c.alterDate)))) }
            case (_?, _?, nil):
                skipped.append("task '\(after.task(id: id)!.title)': removed since")
            case let (nil, _?, c?) where !keepingAdded:
                project = project.alter(by: .removing(.task(c)))
            case let (b?, nil, nil):
                project = project.alter(
                    by: .adding(
                        .task(b.redated(after: max(b.alterDate ?? .distantPast, project.alterDate ?? .distantPast)))))
            default:
                continue
            }
        }
        return project
    }

    /// `current` with each field the change set put back, where it still holds what the change wrote.
    private static func reverse<Item: FieldCoded>(_ current: Item, before: Item, after: Item, label: String) -> (
        Item, [String]
    ) {
        var item = current
        var skipped: [String] = []
        for field in Item.contentFields where !field.isSame(before, after) {
            if field.isSame(current, after) {
                item = field.copy(from: before, into: item)
            } else if !field.isSame(current, before) {
                skipped.append("\(label) \(field.label): changed since")
            }
        }
        return (item, skipped)
    }
}
