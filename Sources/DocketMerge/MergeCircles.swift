import DocketModel
import Foundation

/// A dependency the merged state ignores (`DependencyCircles`): it closes a circle of dependencies among open
/// items that neither side had, each having made a part of it. Kept in the item's file; it blocks nothing.
public struct CircleDecision: Codable, Hashable, Sendable {
    /// The item that depends, as "todo 'Buy milk'".
    public let item: String
    /// Its id.
    public let itemID: UUID
    /// The item it depends on, as "task 'Book hall'".
    public let dependency: String
    /// Its id.
    public let dependencyID: UUID

    /// A decision as recorded.
    public init(item: String, itemID: UUID, dependency: String, dependencyID: UUID) {
        (self.item, self.itemID, self.dependency, self.dependencyID) = (item, itemID, dependency, dependencyID)
    }

    /// The line for people: "todo 'Paint' depends on todo 'Buy paint', which closes a circle of dependencies made on
    /// two machines: that dependency blocks nothing (docket depend 1a2b3c4d -5e6f7a8b removes it)".
    public var line: String {
        "\(item) depends on \(dependency), which closes a circle of dependencies made on two machines: that "
            + "dependency blocks nothing (docket depend \(Self.short(itemID)) -\(Self.short(dependencyID)) removes it)"
    }

    private static func short(_ id: UUID) -> String { String(id.uuidString.lowercased().prefix(8)) }
}

extension MergeReport {
    /// The dependencies `merged` ignores that neither `ours` nor `theirs` did: circles the merge closed.
    public static func circlesClosed(ours: AppState, theirs: AppState, merged: AppState) -> [CircleDecision] {
        func ignored(_ state: AppState) -> [CircleDependency] {
            DependencyCircles.ignored(DependencyCircles.openNodes(todos: state.todos, projects: state.projects))
        }
        let closed = ignored(merged)
        guard !closed.isEmpty else { return [] }
        let before = Set(ignored(ours)).union(ignored(theirs))
        var labels: [UUID: String] = [:]
        for todo in merged.todos { labels[todo.id] = "todo '\(todo.text)'" }
        for project in merged.projects {
            for task in project.tasks { labels[task.id] = "task '\(task.title)'" }
        }
        return closed.filter { !before.contains($0) }.map {
            CircleDecision(
                item: labels[$0.item] ?? "item", itemID: $0.item, dependency: labels[$0.dependency] ?? "item",
                dependencyID: $0.dependency)
        }
    }
}
