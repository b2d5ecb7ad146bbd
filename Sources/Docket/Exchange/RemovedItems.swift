import DocketGit
import DocketModel
import Foundation

extension Store {
    /// The todos and project tasks the store removed (each has a tombstone), as
    /// they were last committed, for an export that tells another tool they
    /// were deleted. Found by walking the history back from HEAD, at most
    /// `scanning` commits; a removed item not found there is left out, and
    /// counted in `missing` (one never committed is not: no other tool saw it).
    public func removedItems(scanning: Int = 10_000) throws -> (items: [Taskwarrior.RemovedItem], missing: Int) {
        let snapshot = try load()
        let titles = Dictionary(snapshot.state.projects.map { ($0.id, $0.title) }, uniquingKeysWith: { a, _ in a })
        var wanted: [String: Tombstone] = [:]
        for tombstone in snapshot.state.removed {
            switch tombstone.kind {
            case .todo: wanted[StoreLayout.todo(tombstone.id)] = tombstone
            case .task: if let project = tombstone.projectID { wanted[StoreLayout.task(tombstone.id, in: project)] = tombstone }
            case .project: continue
            }
        }
        guard !wanted.isEmpty, var commit = try git.head() else { return ([], 0) }
        var found: [Taskwarrior.RemovedItem] = []
        var seen = 0
        // NB: along first parents, as the branch went: a removal made on another machine arrives in a merge, whose first parent still had the item.
        while seen < scanning, !wanted.isEmpty {
            seen += 1
            let parents = try git.parents(of: commit)
            guard let parent = parents.first else { return (found, 0) }
            let changed = try git.changedPaths(from: try git.tree(ofCommit: parent), to: try git.tree(ofCommit: commit))
            for change in changed where change.kind == .deleted {
                guard let tombstone = wanted[change.path], let blob = change.oldID else { continue }
                wanted[change.path] = nil
                guard let data = try? git.blob(blob), data.count <= Store.maximumFileSize,
                      let item = try? StoredItem.decode(data, at: StoreLayout.item(at: change.path)) else { continue }
                switch item {
                case let .todo(todo): found.append(.todo(todo, removed: tombstone.removedDate))
                case let .task(task, project, _):
                    var title = titles[project]
                    if title == nil, let header = try? git.blobID(inTree: try git.tree(ofCommit: parent), at: StoreLayout.project(project)),
                       case let .project(old, _)? = try? StoredItem.decode(try git.blob(header), at: .project(project)) {
                        title = old.title
                    }
                    found.append(.task(task, project: title ?? "Removed", removed: tombstone.removedDate))
                default: continue
                }
            }
            commit = parent
        }
        return (found, wanted.count)
    }
}
