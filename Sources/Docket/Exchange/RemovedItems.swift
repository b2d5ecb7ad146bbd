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
            case .task:
                if let project = tombstone.projectID { wanted[StoreLayout.task(tombstone.id, in: project)] = tombstone }
            case .project: continue
            }
        }
        guard !wanted.isEmpty, var commit = try git.head() else { return ([], 0) }
        var found: [Taskwarrior.RemovedItem] = []
        var seen = 0
        // NB: along first parents, as the branch went: a removal made on another machine arrives in a merge, whose
        // first parent still had the item.
        while seen < scanning, !wanted.isEmpty {
            seen += 1
            let parents = try git.parents(of: commit)
            guard let parent = parents.first else { return (found, 0) }
            let changed = try git.changedPaths(from: try git.tree(ofCommit: parent), to: try git.tree(ofCommit: commit))
            // NB: read through the store's reader of a commit: a file that is not one Docket wrote is left out, as a
            // pull leaves it.
            var reader: StoreReader?
            for change in changed where change.kind == .deleted {
                guard let tombstone = wanted[change.path] else { continue }
                wanted[change.path] = nil
                if reader == nil { reader = StoreReader(try CommitSource(git: git, commit: parent)) }
                switch tombstone.kind {
                case .todo:
                    if let todo = reader?.todo(tombstone.id) {
                        found.append(.todo(todo, removed: tombstone.removedDate))
                    }
                case .task:
                    guard let projectID = tombstone.projectID, let project = try? reader?.project(projectID),
                        let task = project.task(id: tombstone.id)
                    else { continue }
                    found.append(
                        .task(task, project: titles[projectID] ?? project.title, removed: tombstone.removedDate))
                case .project:
                    continue
                }
            }
            commit = parent
        }
        return (found, wanted.count)
    }
}
