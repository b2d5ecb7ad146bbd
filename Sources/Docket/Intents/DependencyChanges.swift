import DocketMerge
import DocketModel
import Foundation

extension Store {
    /// Adds `add` to and removes `remove` from the dependencies of the todo or
    /// task `ref` names; returns it before and after. Refuses, changing
    /// nothing, a dependency on the item itself, on an id no todo or task in
    /// the store has, or one that closes a circle of dependencies. Removing an
    /// id the item does not depend on changes nothing.
    @discardableResult
    public func changeDependencies(of ref: EntryRef, add: [UUID], remove: [UUID]) throws -> Changed<Entry> {
        if !add.isEmpty { try checkDependencies(of: ref.id, on: add) }
        return try changeEntry(
            ref, todo: { $0.alter(.depending(add: add, remove: remove)) },
            task: { $0.alter(by: .depending(add: add, remove: remove)) })
    }

    /// Checks that the item `id` (in the store or about to be added) may depend
    /// on each of `dependencies`: none is the item itself, each is a todo or
    /// task in the store, and none depends on the item, directly or through
    /// others. Throws the first problem found.
    public func checkDependencies(of id: UUID, on dependencies: [UUID]) throws {
        if dependencies.contains(id) { throw StoreError.input(.dependsOnItself(id: Self.shown(id))) }
        let graph = try dependencyGraph()
        for dependency in dependencies {
            guard graph[dependency] != nil else { throw StoreError.input(.noItem(id: Self.shown(dependency))) }
            if let path = Self.path(from: dependency, to: id, in: graph) {
                throw StoreError.input(.dependencyCycle(path: ([id] + path.dropLast()).map(Self.shown)))
            }
        }
    }

    /// Every todo and task in the store, with the ids it depends on.
    private func dependencyGraph() throws -> [UUID: [UUID]] {
        var graph: [UUID: [UUID]] = [:]
        for todo in try loadTodos().todos { graph[todo.id] = todo.dependencies }
        for project in try loadProjects().projects {
            for task in project.tasks { graph[task.id] = task.dependencies }
        }
        return graph
    }

    /// The ids from `start` to `goal` along dependencies (both ends included); nil when `goal` cannot be reached.
    private static func path(from start: UUID, to goal: UUID, in graph: [UUID: [UUID]]) -> [UUID]? {
        var cameFrom: [UUID: UUID] = [:]
        var queue = [start]
        var seen: Set<UUID> = [start]
        while !queue.isEmpty {
            let current = queue.removeFirst()
            if current == goal {
                var path = [goal]
                while let previous = cameFrom[path[0]] { path.insert(previous, at: 0) }
                return path
            }
            for next in graph[current] ?? [] where seen.insert(next).inserted {
                cameFrom[next] = current
                queue.append(next)
            }
        }
        return nil
    }

    private static func shown(_ id: UUID) -> String { String(id.uuidString.lowercased().prefix(8)) }
}
