import DocketModel
import DocketSystem
import Foundation

/// Writes items into the working tree through its guarded folder: each file
/// atomically (all of one change flushed to disk together), keeping the keys
/// of the file it replaces that Docket does not know.
struct StoreWriter {
    let root: Folder
    private let batch: WriteBatch
    private let existing: WorkingTreeSource
    private var removals: [(folder: String, name: String, tree: Bool)] = []

    init(root: Folder) {
        self.root = root
        batch = WriteBatch(root: root)
        existing = WorkingTreeSource(root: root)
    }

    /// Writes an item's file, unless it already holds exactly that text.
    mutating func write(_ item: StoredItem) throws {
        let old = try? existing.read(item.path)
        let data = try item.text(keeping: old)
        if data == old { return }
        try batch.add(data, at: item.path)
    }

    /// Removes a file, or with `tree` a folder and all in it, once the writes are in place.
    mutating func remove(_ path: String, tree: Bool = false) {
        let (folder, name) = split(path)
        removals.append((folder, name, tree))
    }

    /// Puts every written file in place, then makes the removals; an emptied
    /// shard folder (`todos/<AB>`) goes too, as git would leave it.
    func commit() throws {
        try batch.commit()
        for removal in removals {
            guard let folder = try root.folder(removal.folder) else { continue }
            if removal.tree { try folder.removeTree(removal.name) } else { try folder.remove(removal.name) }
            if removal.folder.split(separator: "/").count > 1 {
                let (parent, name) = split(removal.folder)
                try root.folder(parent)?.removeIfEmpty(name)
            }
        }
    }
}

extension Store {
    /// Writes what changed from `old` to `new`, and only that: a file per
    /// changed item (keeping keys it does not know), a removed item's file
    /// deleted and its tombstone written; returns the new state with its order keys.
    @discardableResult
    public func write(from old: StoreSnapshot, to new: AppState) throws -> StoreSnapshot {
        try raiseFormat()
        return try StoreError.gate(writing: true) {
            var writer = StoreWriter(root: try tree)
            let order = try write(from: old, to: new, into: &writer)
            try writer.commit()
            if !hooks.isEmpty { noteForHooks(Store.itemChanges(from: old.state, to: new), origin: .edit) }
            let written = StoreSnapshot(state: new, order: order, problems: [])
            writeLog?.entries.append(WriteLog.Entry(before: old, after: written))
            return written
        }
    }

    /// Writes what changed from `old` to `new`, reading the order keys of
    /// `old`'s projects and tasks from their files first.
    public func write(from old: AppState, to new: AppState) throws {
        let known = try snapshot(projects: old.projects.map(\.id))
        try write(from: StoreSnapshot(state: old, order: known.order, problems: []), to: new)
    }

    /// Reads the given todos, projects (with their tasks) and tombstones into a
    /// partial state, applies `change` to it, and writes what changed, holding
    /// the lock; the change is kept for `undo` first.
    /// Commands that touch a few items use this, so the cost follows the change.
    @discardableResult
    public func edit(
        todos: [UUID] = [], projects: [UUID] = [], tombstones: [UUID] = [],
        _ change: (AppState) throws -> AppState
    ) throws -> AppState {
        try withLockFinishingUpdate {
            let before = try snapshot(todos: todos, projects: projects, tombstones: tombstones)
            let after = try change(before.state)
            // NB: kept for undo before the files are written: undoing a change a
            // killed docket never wrote finds nothing of it and changes nothing.
            let recorded = recordForUndo(action: action, before: before.state, after: after)
            Fault.point("after-undo-record")
            do {
                try write(from: before, to: after)
                if let recorded { writeLog?.noteUndoPage(recorded) }
            } catch {
                if let recorded { dropUndoEntry(recorded) }
                throw error
            }
            return after
        }
    }

    private func write(from old: StoreSnapshot, to new: AppState, into writer: inout StoreWriter) throws -> Order {
        // Todos
        let oldTodos = Dictionary(old.state.todos.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var kept = Set<UUID>()
        for todo in new.todos {
            kept.insert(todo.id)
            if oldTodos[todo.id] != todo { try writer.write(.todo(todo)) }
        }
        for todo in old.state.todos where !kept.contains(todo.id) { writer.remove(StoreLayout.todo(todo.id)) }

        // Projects and tasks, with their order keys
        var order = old.order
        var known = old.order
        var projectKeys = known.assign(new.projects.map(\.id))
        if projectKeys.contains(where: { known[$0.key] != $0.value }) {
            // A new or moved project goes past every project, read or not.
            var floor = try largestProjectKey()
            if floor > Int.max / 2 {
                // NB: keys near the largest number (from a hand edit or a remote) would overflow:
                // every project is numbered afresh, in its order, first.
                let renumbered = try renumberProjects(into: &writer)
                known = known.merging(renumbered)
                order = order.merging(renumbered)
                floor = renumbered.positions.values.max() ?? -1
            }
            projectKeys = known.assign(new.projects.map(\.id), floor: floor)
        }
        let oldProjects = Dictionary(old.state.projects.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for project in new.projects {
            let previous = oldProjects[project.id]
            let key = projectKeys[project.id]!
            if previous.map(ProjectHeader.init) != ProjectHeader(project: project) || known[project.id] != key {
                try writer.write(.header(project, position: key))
            }
            order.positions[project.id] = key
            let oldTasks = Dictionary((previous?.tasks ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let taskKeys = old.order.assign(project.tasks.map(\.id))
            for task in project.tasks {
                let key = taskKeys[task.id]!
                if oldTasks[task.id] != task || old.order[task.id] != key {
                    try writer.write(.task(task, project: project.id, position: key))
                }
                order.positions[task.id] = key
            }
            let taskIDs = Set(project.tasks.map(\.id))
            for task in previous?.tasks ?? [] where !taskIDs.contains(task.id) {
                writer.remove(StoreLayout.task(task.id, in: project.id))
            }
        }
        let projectIDs = Set(new.projects.map(\.id))
        for project in old.state.projects where !projectIDs.contains(project.id) {
            writer.remove(StoreLayout.projectFolder(project.id), tree: true)
        }

        // Tombstones
        let oldTombstones = Dictionary(old.state.removed.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let newTombstones = Set(new.removed.map(\.id))
        for tombstone in new.removed where oldTombstones[tombstone.id] != tombstone {
            try writer.write(.tombstone(tombstone))
        }
        for tombstone in old.state.removed where !newTombstones.contains(tombstone.id) {
            writer.remove(StoreLayout.tombstone(tombstone.id))
        }
        return order
    }

    /// Numbers every project 0, 1, 2… in its present order, writing the files whose key changes.
    private func renumberProjects(into writer: inout StoreWriter) throws -> Order {
        var reader = StoreReader(try workingTree)
        let headers = try reader.projectHeaders()
        if let problem = reader.problems.first { throw StoreError.state(.unreadable(problem)) }
        var keys = Order()
        for (index, project) in ordered(Array(headers.values), by: reader.order).enumerated() {
            keys.positions[project.id] = index
            if reader.order[project.id] != index { try writer.write(.header(project, position: index)) }
        }
        return keys
    }
}
