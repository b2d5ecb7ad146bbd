import DocketModel
import Foundation

extension Store {
    /// Writes what changed from `old` to `new`, and only that: a file per changed
    /// item (keeping keys it does not know), a removed item's file deleted and
    /// its tombstone written. Every write is atomic.
    public func write(from old: AppState, to new: AppState) throws {
        let batch = AtomicFile.Batch()
        try write(from: old, to: new, into: batch)
        try batch.commit()
    }

    private func write(from old: AppState, to new: AppState, into batch: AtomicFile.Batch) throws {
        func writeFile(_ value: some Encodable, extra: [String: JSONValue] = [:], at relative: String) throws {
            try self.writeFile(value, extra: extra, at: relative, into: batch)
        }
        // Todos
        let oldTodos = Dictionary(old.todos.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var kept = Set<UUID>()
        for todo in new.todos {
            kept.insert(todo.id)
            if oldTodos[todo.id] != todo { try writeFile(todo, at: StoreLayout.todo(todo.id)) }
        }
        for todo in old.todos where !kept.contains(todo.id) { try remove(StoreLayout.todo(todo.id)) }

        // Projects and tasks, with their order
        let oldProjects = Dictionary(old.projects.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let projectPositions = assignPositions(new.projects.map(\.id))
        for project in new.projects {
            let previous = oldProjects[project.id]
            if previous.map(ProjectHeader.init) != ProjectHeader(project) || positions[project.id] != projectPositions[project.id] {
                try writeFile(ProjectHeader(project), extra: ["position": .int(Int64(projectPositions[project.id]!))],
                              at: StoreLayout.project(project.id))
            }
            let oldTasks = Dictionary((previous?.tasks ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let taskPositions = assignPositions(project.tasks.map(\.id))
            for task in project.tasks where oldTasks[task.id] != task || positions[task.id] != taskPositions[task.id] {
                try writeFile(task, extra: ["position": .int(Int64(taskPositions[task.id]!))], at: StoreLayout.task(task.id, in: project.id))
            }
            let taskIDs = Set(project.tasks.map(\.id))
            for task in previous?.tasks ?? [] where !taskIDs.contains(task.id) {
                try remove(StoreLayout.task(task.id, in: project.id))
            }
            taskPositions.forEach { positions[$0.key] = $0.value }
        }
        projectPositions.forEach { positions[$0.key] = $0.value }
        let projectIDs = Set(new.projects.map(\.id))
        for project in old.projects where !projectIDs.contains(project.id) {
            try remove(StoreLayout.projectFolder(project.id))
        }

        // Tombstones
        let oldTombstones = Dictionary(old.removed.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let newTombstones = Set(new.removed.map(\.id))
        for tombstone in new.removed where oldTombstones[tombstone.id] != tombstone {
            try writeFile(tombstone, extra: ["path": .string(removedPath(tombstone))], at: StoreLayout.tombstone(tombstone.id))
        }
        for tombstone in old.removed where !newTombstones.contains(tombstone.id) {
            try remove(StoreLayout.tombstone(tombstone.id))
        }
    }

    /// Reads the given todos and projects (with their tasks) into a partial
    /// state, applies `change` to it, and writes what changed, holding the lock.
    /// Commands that touch a few items use this, so the cost follows the change.
    @discardableResult
    public func edit(todos: [UUID] = [], projects: [UUID] = [], _ change: (AppState) throws -> AppState) throws -> AppState {
        try withLock {
            let before = AppState(todos: try todos.map(todo), projects: sortedByPosition(try projects.map(project)), removed: [])
            let after = try change(before)
            try write(from: before, to: after)
            return after
        }
    }

    /// Where a removed item lived.
    func removedPath(_ tombstone: Tombstone) -> String {
        switch tombstone.kind {
        case .todo: StoreLayout.todo(tombstone.id)
        case .project: StoreLayout.projectFolder(tombstone.id)
        case .task: tombstone.projectID.map { StoreLayout.task(tombstone.id, in: $0) } ?? "projects"
        }
    }

    /// Order keys for a list: an item keeps its key while the keys still rise
    /// along the list, else (a new or moved item) it gets one past the largest,
    /// so appending or moving one item rewrites only that item's file.
    func assignPositions(_ order: [UUID]) -> [UUID: Int] {
        var result: [UUID: Int] = [:]
        var last = Int.min
        var next = order.compactMap { positions[$0] }.max() ?? -1
        for id in order {
            if let known = positions[id], known > last {
                result[id] = known
                last = known
            } else {
                next = max(next, last) + 1
                result[id] = next
                last = next
            }
        }
        return result
    }

    func writeFile(_ value: some Encodable, extra: [String: JSONValue] = [:], at relative: String, into batch: AtomicFile.Batch) throws {
        let existing = FileManager.default.contents(atPath: path(relative))
        let data = try fileText(value, extra: extra, keepingUnknownKeysOf: existing)
        if data == existing { return }
        try batch.add(data, at: path(relative))
    }

    func remove(_ relative: String) throws {
        let full = path(relative)
        guard FileManager.default.fileExists(atPath: full) else { return }
        do {
            try FileManager.default.removeItem(atPath: full)
        } catch {
            throw StoreError.io(path: relative, reason: error.localizedDescription)
        }
        // An emptied todos/<AB>/ folder goes too, as git would leave it.
        let folder = (full as NSString).deletingLastPathComponent
        if (try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty == true, folder != root.path {
            try? FileManager.default.removeItem(atPath: folder)
        }
    }
}
