import DocketGit
import DocketMerge
import DocketModel
import Foundation

/// A value a merge discarded, put back; or a file a pull set aside, settled.
public struct RestoredValue: Sendable {
    /// What was restored (for a file set aside, nil).
    public let lost: LostValue!
    /// The file a pull set aside that was settled, when it was one.
    public let setAside: SetAsideFile?
    /// Whether the set-aside file was put back (it decodes now); else this machine's version stands.
    public let putBack: Bool
    /// The item as it is now.
    public let label: String
    /// Whether the value was back already (restored before, say): nothing was changed.
    public let wasBack: Bool

    init(lost: LostValue?, setAside: SetAsideFile?, putBack: Bool, label: String, wasBack: Bool) {
        self.lost = lost
        self.setAside = setAside
        self.putBack = putBack
        self.label = label
        self.wasBack = wasBack
    }

    init(setAside: SetAsideFile, label: String, putBack: Bool) {
        self.init(lost: nil, setAside: setAside, putBack: putBack, label: label, wasBack: false)
    }
}

extension Store {
    /// Puts back the value numbered `number` that the merge `commit` (an id or
    /// a prefix) discarded, as a new edit: the field gets the losing side's
    /// value, the item a removal won over comes back, or the item an edit kept over a removal goes again. It commits
    /// and syncs like any edit.
    /// A value that is back already (restored before) is left as it is: nothing changes (`wasBack`).
    @discardableResult
    public func restoreLost(merge commit: String, number: Int, scanning: Int = 10_000) throws -> RestoredValue {
        // The losing value is read from a side's commit, which a partial clone may lack.
        try refusePartialClone()
        let typed = commit.lowercased()
        let candidates =
            try git.head().map { head in
                try git.log(from: head, limit: .max, scanning: scanning) {
                    MergeHistory.isRecord($0) && $0.id.description.hasPrefix(typed)
                }
            } ?? []
        guard typed.count >= 4, candidates.count == 1, let mergeCommit = candidates.first else {
            throw StoreError.input(
                candidates.count > 1
                    ? .ambiguousMerge(
                        prefix: commit, candidates: candidates.map { String($0.id.description.prefix(12)) })
                    : .unknownMerge(commit))
        }
        let record = try self.record(mergeCommit)
        if !record.setAside.isEmpty { return try restoreSetAside(record, number: number) }
        let values = record.report.lostValues
        guard number >= 1, number <= values.count else {
            throw StoreError.input(
                .noLostValue(merge: String(record.commit.prefix(7)), number: number, count: values.count))
        }
        let lost = values[number - 1]
        if lost.field == nil, lost.item.removal?.outcome == .editWon { return try restoreRemoval(lost) }
        // The losing value is in the losing side's commit: the first parent is the machine that merged.
        let side = lost.field.map { $0.from.other } ?? lost.item.removal!.removedOn.other
        // A replay Docket finished names its sides in its message.
        let sides = MergeHistory.sides(in: mergeCommit.message).map { [$0.ours, $0.theirs] } ?? mergeCommit.parents
        let parent = sides[side == .ours ? 0 : 1]
        var reader = StoreReader(try CommitSource(git: git, commit: parent))
        let item = lost.item
        var wasBack = false
        switch item.kind {
        case .todo:
            guard let old = reader.todo(item.id) else {
                throw StoreError.input(.notFound(kind: .todo, id: item.id.uuidString))
            }
            try edit(todos: [item.id], tombstones: [item.id]) { state in
                guard let field = lost.field else {
                    if state.todo(id: item.id) != nil {
                        wasBack = true
                        return state
                    }
                    let removed = state.tombstone(id: item.id)?.removedDate
                    return state.alter(
                        by: .adding(.todo(old.redated(after: [old.alterDate, removed].compactMap { $0 }.max()))))
                }
                guard let current = state.todo(id: item.id) else {
                    throw StoreError.input(.notFound(kind: .todo, id: item.id.uuidString))
                }
                let restored = try Self.restoring(field.field, from: old, into: current)
                if TodoItem.sameFields(restored, current) {
                    wasBack = true
                    return state
                }
                return state.alter(by: .updating(.todo(restored.redated(after: current.alterDate))))
            }
        case .project:
            guard let old = try reader.project(item.id) else {
                throw StoreError.input(.notFound(kind: .project, id: item.id.uuidString))
            }
            try edit(projects: [item.id], tombstones: [item.id]) { state in
                guard let field = lost.field else {
                    if state.project(id: item.id) != nil {
                        wasBack = true
                        return state
                    }
                    let removed = state.tombstone(id: item.id)?.removedDate
                    return state.alter(
                        by: .adding(
                            .project(old.redated(after: [old.latestAlterDate, removed].compactMap { $0 }.max()))))
                }
                guard let current = state.project(id: item.id) else {
                    throw StoreError.input(.notFound(kind: .project, id: item.id.uuidString))
                }
                let restored = try Self.restoring(field.field, from: old, into: current)
                if Project.sameFields(restored, current) {
                    wasBack = true
                    return state
                }
                return state.alter(by: .updating(.project(restored.redated(after: current.latestAlterDate))))
            }
        case .task:
            guard let projectID = item.projectID, let old = try reader.project(projectID)?.task(id: item.id) else {
                throw StoreError.input(.notFound(kind: .task, id: item.id.uuidString))
            }
            // NB: the task's tombstone is read too, so a task put back loses it.
            try edit(projects: [projectID], tombstones: [item.id]) { state in
                guard let project = state.project(id: projectID) else {
                    throw StoreError.input(.notFound(kind: .project, id: projectID.uuidString))
                }
                guard let field = lost.field else {
                    if project.task(id: item.id) != nil {
                        wasBack = true
                        return state
                    }
                    let task = old.redated(after: max(old.alterDate ?? .distantPast, project.alterDate ?? .distantPast))
                    return state.alter(by: .updating(.project(project.alter(by: .adding(.task(task))))))
                }
                guard let current = project.task(id: item.id) else {
                    throw StoreError.input(.notFound(kind: .task, id: item.id.uuidString))
                }
                let restored = try Self.restoring(field.field, from: old, into: current)
                if ProjectTask.sameFields(restored, current) {
                    wasBack = true
                    return state
                }
                let task = restored.redated(after: current.alterDate)
                return state.alter(by: .updating(.project(project.alter(by: .updating(.task(task))))))
            }
        }
        return RestoredValue(lost: lost, setAside: nil, putBack: false, label: item.label, wasBack: wasBack)
    }

    /// Puts back a removal an edit won over (a cancellation on a phone, a removal on another machine): the item is
    /// removed again, as a new edit. One gone already is left as it is (`wasBack`).
    private func restoreRemoval(_ lost: LostValue) throws -> RestoredValue {
        let item = lost.item
        var wasBack = false
        switch item.kind {
        case .todo:
            try edit(todos: [item.id], tombstones: [item.id]) { state in
                guard let current = state.todo(id: item.id) else {
                    wasBack = true
                    return state
                }
                return state.alter(by: .removing(.todo(current)))
            }
        case .project:
            try edit(projects: [item.id], tombstones: [item.id]) { state in
                guard let current = state.project(id: item.id) else {
                    wasBack = true
                    return state
                }
                return state.alter(by: .removing(.project(current)))
            }
        case .task:
            guard let projectID = item.projectID else {
                throw StoreError.input(.notFound(kind: .task, id: item.id.uuidString))
            }
            try edit(projects: [projectID], tombstones: [item.id]) { state in
                guard let project = state.project(id: projectID), let task = project.task(id: item.id) else {
                    wasBack = true
                    return state
                }
                return state.alter(by: .updating(.project(project.alter(by: .removing(.task(task))))))
            }
        }
        return RestoredValue(lost: lost, setAside: nil, putBack: false, label: item.label, wasBack: wasBack)
    }

    /// Settles the file numbered `number` that the commit `record` set aside: where the file decodes now (read by a
    /// newer docket, say) it is put back as a new edit; otherwise this machine's version stands, and the record goes.
    private func restoreSetAside(_ record: MergeRecord, number: Int) throws -> RestoredValue {
        guard number >= 1, number <= record.setAside.count else {
            throw StoreError.input(
                .noLostValue(merge: String(record.commit.prefix(7)), number: number, count: record.setAside.count))
        }
        let file = record.setAside[number - 1]
        defer { settleSetAside(path: file.path) }
        let layout = StoreLayout.item(at: file.path)
        guard let commit = ObjectID(hex: file.commit), file.object != nil else {
            return RestoredValue(setAside: file, label: file.path, putBack: false)
        }
        var reader = StoreReader(try CommitSource(git: git, commit: commit))
        let item = reader.item(at: file.path)
        guard reader.problems.isEmpty, let item else {
            return RestoredValue(setAside: file, label: file.path, putBack: false)
        }
        switch (layout, item) {
        case let (.todo(id), .todo(todo)) where todo.id == id:
            try edit(todos: [id], tombstones: [id]) { state in
                let after = [state.todo(id: id)?.alterDate, todo.alterDate].compactMap { $0 }.max()
                return state.todo(id: id) == nil
                    ? state.alter(by: .adding(.todo(todo.redated(after: after))))
                    : state.alter(by: .updating(.todo(todo.redated(after: after))))
            }
            return RestoredValue(setAside: file, label: todo.text, putBack: true)
        case let (.project(id), .project(project, _)) where project.id == id:
            try edit(projects: [id], tombstones: [id]) { state in
                let after = [state.project(id: id)?.latestAlterDate, project.latestAlterDate].compactMap { $0 }.max()
                return state.project(id: id) == nil
                    ? state.alter(by: .adding(.project(project.redated(after: after))))
                    : state.alter(by: .updating(.project(project.redated(after: after))))
            }
            return RestoredValue(setAside: file, label: project.title, putBack: true)
        default:
            return RestoredValue(setAside: file, label: file.path, putBack: false)
        }
    }

    /// `current` with the value at `path` (a field, a note, a slip's stop) set as it is in `old`.
    private static func restoring<Item: FieldCoded>(_ path: FieldPath, from old: Item, into current: Item) throws
        -> Item
    {
        func field(_ matches: (ItemField<Item>) -> Bool) throws -> ItemField<Item> {
            guard let field = Item.fields.first(where: matches) else {
                throw StoreError.input(.cannotRestore(field: path.description))
            }
            return field
        }
        func values<Value>(_ field: ItemField<Item>, _ type: Value.Type) throws -> (old: Value, current: Value) {
            guard let oldValue = field.value(of: old) as? Value, let currentValue = field.value(of: current) as? Value
            else { throw StoreError.input(.cannotRestore(field: path.description)) }
            return (oldValue, currentValue)
        }
        switch path {
        case let .field(key):
            return try field { $0.key == key }.copy(from: old, into: current)
        case let .note(id):
            let notesField = try field { $0.rule == .notes }
            let (oldNotes, notes) = try values(notesField, [Note].self)
            let restored =
                oldNotes.first { $0.id == id }.map { notes.applying(.add($0)) } ?? notes.applying(.remove(id))
            return notesField.setting(restored, in: current)
        case let .slipStop(id):
            let slipsField = try field { $0.rule == .timeSlips }
            let (oldSlips, slips) = try values(slipsField, [TimeSlip].self)
            guard let stop = oldSlips.first(where: { $0.id == id })?.stop else { return current }
            return slipsField.setting(
                slips.map { $0.id == id ? TimeSlip(id: id, start: $0.start, stop: stop) : $0 }, in: current)
        case .item:
            throw StoreError.input(.cannotRestore(field: path.description))
        }
    }
}
