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
        return try changeEntry(ref, [.depending(add: add, remove: remove)])
    }

    /// Checks that the item `id` (in the store or about to be added) may depend
    /// on each of `dependencies`: none is the item itself, each is a todo or
    /// task in the store, and none depends on the item, directly or through
    /// others. Throws the first problem found.
    public func checkDependencies(of id: UUID, on dependencies: [UUID]) throws {
        if dependencies.contains(id) { throw StoreError.input(.dependsOnItself(id: Self.shown(id))) }
        let graph = try dependencyGraph()
        // NB: one walk for all of them: what a dependency reaches without meeting `id` cannot lead to it from the
        // next one either, so each item is looked at once, however many ids a file lists (a planted file of 184,000).
        var walk = DependencyWalk(graph: graph, goal: id)
        for dependency in dependencies {
            guard graph[dependency] != nil else { throw StoreError.input(.noItem(id: Self.shown(dependency))) }
            if let path = walk.path(from: dependency) {
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

    private static func shown(_ id: UUID) -> String { String(id.uuidString.lowercased().prefix(8)) }
}

/// Breadth-first walks along dependencies towards one goal, sharing what earlier walks saw: an item seen once is
/// never looked at again, so all the walks together take time linear in the graph.
struct DependencyWalk {
    let graph: [UUID: [UUID]]
    let goal: UUID
    private var seen = Set<UUID>()

    init(graph: [UUID: [UUID]], goal: UUID) {
        (self.graph, self.goal) = (graph, goal)
    }

    /// The ids from `start` to the goal along dependencies (both ends included), through none an earlier walk saw;
    /// nil when the goal cannot be reached so.
    mutating func path(from start: UUID) -> [UUID]? {
        guard seen.insert(start).inserted else { return nil }
        var cameFrom: [UUID: UUID] = [:]
        var queue = [start]
        var next = 0
        while next < queue.count {
            let current = queue[next]
            next += 1
            if current == goal {
                var path = [goal]
                while let previous = cameFrom[path[path.count - 1]] { path.append(previous) }
                return path.reversed()
            }
            for dependency in graph[current] ?? [] where seen.insert(dependency).inserted {
                cameFrom[dependency] = current
                queue.append(dependency)
            }
        }
        return nil
    }
}
