import Foundation

/// A dependency that blocks nothing: `item` depends on `dependency`, but that closes a circle of dependencies among open
/// items, which no command makes (`docket depend` refuses one) and a merge can: one machine made A depend on B while
/// another made B depend on A. Kept in the item's file; blocking nothing.
public struct CircleDependency: Codable, Hashable, Sendable, Comparable {
    /// The item that depends.
    public let item: UUID
    /// The item it depends on.
    public let dependency: UUID

    /// A dependency so ignored.
    public init(item: UUID, dependency: UUID) {
        (self.item, self.dependency) = (item, dependency)
    }

    public static func < (a: CircleDependency, b: CircleDependency) -> Bool {
        (a.item.uuidString, a.dependency.uuidString) < (b.item.uuidString, b.dependency.uuidString)
    }
}

/// Circles of dependencies, found and broken the same way on every machine, from the items alone.
public enum DependencyCircles {
    /// An open item that depends on others: its id, when it was last altered, and its dependencies.
    public struct Node: Sendable {
        let id: UUID
        let alterDate: Int64
        let dependencies: [UUID]

        /// A node.
        public init(id: UUID, alterDate: Date?, dependencies: [UUID]) {
            (self.id, self.alterDate, self.dependencies) = (id, alterDate?.docketMilliseconds ?? .min, dependencies)
        }
    }

    /// The dependencies to ignore so that no circle remains among `nodes` (a dependency on an id that is not a
    /// node, or on the item itself, is no part of one), sorted.
    ///
    /// Each group of items that all reach each other (a strongly connected component, found by Tarjan's walk) is
    /// walked against the arrows from its newest item (the latest alterDate, then the greatest id), newest first; an
    /// arrow that leads back to an item on the walk's path is ignored. In a plain circle that is the newest item's
    /// own dependency: the edge added last, as a rule, since adding it is an edit. What is ignored depends on the
    /// items alone, not on their order nor on which machine merged, and the walks take time linear in the items and
    /// dependencies, so a planted circle of any size costs no more than reading it.
    public static func ignored(_ nodes: [Node]) -> [CircleDependency] {
        var index: [UUID: Int] = [:]
        index.reserveCapacity(nodes.count)
        for (i, node) in nodes.enumerated() where index[node.id] == nil { index[node.id] = i }
        let count = nodes.count
        let edges: [[Int]] = nodes.enumerated().map { i, node in
            index[node.id] == i ? node.dependencies.compactMap { index[$0] }.filter { $0 != i } : []
        }
        guard edges.contains(where: { !$0.isEmpty }) else { return [] }
        let component = components(edges)
        // Against the arrows, within each component: who depends on each item.
        var dependents = [[Int]](repeating: [], count: count)
        var inCircle = Set<Int>()
        for v in 0..<count {
            for w in edges[v] where component[w] == component[v] {
                dependents[w].append(v)
                inCircle.insert(v)
            }
        }
        guard !inCircle.isEmpty else { return [] }
        // Newest first: the latest alterDate, then the greatest id; each node's rank computed once.
        let byAge = inCircle.map { ($0, nodes[$0].alterDate, nodes[$0].id.uuidString) }.sorted {
            ($0.1, $0.2) > ($1.1, $1.2)
        }
        var rank = [Int](repeating: 0, count: count)
        for (position, entry) in byAge.enumerated() { rank[entry.0] = position }
        func newer(_ a: Int, _ b: Int) -> Bool { rank[a] < rank[b] }
        for v in inCircle { dependents[v].sort(by: newer) }
        // 0: not reached, 1: on the walk's path, 2: done.
        var mark = [UInt8](repeating: 0, count: count)
        var found: [CircleDependency] = []
        var path: [(node: Int, next: Int)] = []
        for (root, _, _) in byAge where mark[root] == 0 {
            mark[root] = 1
            path.append((root, 0))
            while let (v, i) = path.last {
                guard i < dependents[v].count else {
                    mark[v] = 2
                    path.removeLast()
                    continue
                }
                path[path.count - 1].next += 1
                let u = dependents[v][i]
                switch mark[u] {
                case 0:
                    mark[u] = 1
                    path.append((u, 0))
                case 1: found.append(CircleDependency(item: nodes[u].id, dependency: nodes[v].id))
                default: break
                }
            }
        }
        return found.sorted()
    }

    /// Each node's strongly connected component, by Tarjan's algorithm, walked without recursion.
    private static func components(_ edges: [[Int]]) -> [Int] {
        let count = edges.count
        var order = [Int](repeating: -1, count: count)
        var low = [Int](repeating: 0, count: count)
        var onStack = [Bool](repeating: false, count: count)
        var component = [Int](repeating: -1, count: count)
        var stack: [Int] = []
        var calls: [(node: Int, next: Int)] = []
        var counter = 0
        var components = 0
        func visit(_ v: Int) {
            order[v] = counter
            low[v] = counter
            counter += 1
            stack.append(v)
            onStack[v] = true
            calls.append((v, 0))
        }
        for root in 0..<count where order[root] < 0 {
            visit(root)
            while let (v, i) = calls.last {
                if i < edges[v].count {
                    calls[calls.count - 1].next += 1
                    let w = edges[v][i]
                    if order[w] < 0 {
                        visit(w)
                    } else if onStack[w] {
                        low[v] = min(low[v], order[w])
                    }
                    continue
                }
                calls.removeLast()
                if let parent = calls.last?.node { low[parent] = min(low[parent], low[v]) }
                guard low[v] == order[v] else { continue }
                while let w = stack.popLast() {
                    onStack[w] = false
                    component[w] = components
                    if w == v { break }
                }
                components += 1
            }
        }
        return component
    }
}

extension DependencyCircles {
    /// The nodes of the open todos and tasks among these: the items a dependency can block.
    public static func openNodes(todos: [TodoItem], projects: [Project]) -> [Node] {
        var nodes: [Node] = []
        for todo in todos where !todo.completed && !todo.dependencies.isEmpty {
            nodes.append(Node(id: todo.id, alterDate: todo.alterDate, dependencies: todo.dependencies))
        }
        for project in projects {
            for task in project.tasks where task.state != .finished && !task.dependencies.isEmpty {
                nodes.append(Node(id: task.id, alterDate: task.alterDate, dependencies: task.dependencies))
            }
        }
        return nodes
    }
}
