import DocketGit
import DocketMerge
import DocketModel
import Foundation

/// Builds the merge commit of two commits with Docket's merge, reading only
/// the store files that differ between them and their base: the inputs are
/// the three sides' items as read from their trees, the outputs the files
/// the merged tree needs replaced and the merge's report.
struct MergeCommitBuilder {
    let git: StoreGit
    let base: ObjectID?
    let ours: ObjectID
    let theirs: ObjectID

    /// The items of one side, as read from its commit, by id, with the blob of each file read.
    struct Side {
        let state: AppState
        let order: Order
        let blobs: [String: ObjectID]
        let todos: [UUID: TodoItem]
        let projects: [UUID: Project]
        let tombstones: [UUID: Tombstone]
        /// Paths whose items were given a date here (hand edits): their blobs are not reused.
        var stamped = Set<String>()

        init(state: AppState, order: Order, blobs: [String: ObjectID], stamped: Set<String> = []) {
            (self.state, self.order, self.blobs, self.stamped) = (state, order, blobs, stamped)
            todos = Dictionary(state.todos.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            projects = Dictionary(state.projects.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            tombstones = Dictionary(state.removed.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        }
    }

    /// What merging the store's files gave: the files to put in place of ours' (nil removes), and the report.
    struct StoreMerge {
        let replacements: [String: ObjectID?]
        let report: MergeReport
        let trees: (base: ObjectID?, ours: ObjectID, theirs: ObjectID)
        let changes: (ours: [ChangedPath], theirs: [ChangedPath])?
    }

    /// Merges, writes the merged tree and a merge commit (on no branch yet)
    /// whose message carries the report; returns the commit and the report.
    func build(remoteBranch: String) throws -> (ObjectID, MergeReport) {
        let merged = try mergeStore()
        let tree = try git.mergeTrees(
            base: merged.trees.base, ours: merged.trees.ours, theirs: merged.trees.theirs,
            replacing: merged.replacements, changes: merged.changes)
        let commit = try git.commit(
            tree: tree, parents: [ours, theirs],
            message: MergeHistory.message(merged.report, remoteBranch: remoteBranch))
        return (commit, merged.report)
    }

    /// Merges the store's files of the three sides with Docket's merge; with
    /// `writingBlobs` false, only the report is wanted and no object is written.
    func mergeStore(writingBlobs: Bool = true) throws -> StoreMerge {
        let trees = (
            base: try base.map { try git.tree(ofCommit: $0) }, ours: try git.tree(ofCommit: ours),
            theirs: try git.tree(ofCommit: theirs)
        )
        // Every changed path, not only the store's: the tree merge needs the others too.
        var changes: (ours: [ChangedPath], theirs: [ChangedPath])?
        var paths = Set<String>()
        if let baseTree = trees.base {
            changes = (
                try git.changedPaths(from: baseTree, to: trees.ours),
                try git.changedPaths(from: baseTree, to: trees.theirs)
            )
            for change in changes!.ours + changes!.theirs where StoreLayout.isInStore(change.path) {
                paths.insert(change.path)
            }
        } else {
            for tree in [trees.ours, trees.theirs] {
                paths.formUnion(try git.entries(inTree: tree, under: StoreLayout.folders).keys)
            }
        }
        let touched = Touched(paths)
        // NB: a base may hold a file a pull set aside (two machines each set aside the same bad file on top of it):
        // there the item is taken as not in the base, as if both sides added it.
        let sides = try [base, ours, theirs].enumerated().map { index, commit in
            try commit.map { try read($0, touched, droppingUnreadable: index == 0) }
        }
        let b = sides[0]
        let (o, t) = (
            try stampingHandEdits(sides[1]!, against: b, commit: ours),
            try stampingHandEdits(sides[2]!, against: b, commit: theirs)
        )
        let result = merge(base: b?.state, ours: o.state, theirs: t.state)
        var report = result.report.noting(
            try farAhead(in: o, carriedBy: ours, other: t) + farAhead(in: t, carriedBy: theirs, other: o))
        // NB: the merge saw only the items that changed; a circle needs a dependency added on each side.
        let circles =
            addsDependencies(o, since: b) && addsDependencies(t, since: b)
            ? try circlesClosed(o, t, merged: result.state, touched: touched, trees) : []
        report = report.noting(circles: circles)

        var files = MergedFiles(git: git, ours: o, theirs: t, writesBlobs: writingBlobs)
        for todo in result.state.todos {
            try files.place(
                .todo(todo), ours: o.todos[todo.id].map(StoredItem.todo), theirs: t.todos[todo.id].map(StoredItem.todo))
        }
        // NB: order keys continue ours' numbering, as a local edit would.
        let projectKeys = o.order.assign(result.state.projects.map(\.id))
        for project in result.state.projects {
            try files.place(
                .header(project, position: projectKeys[project.id]),
                ours: o.projects[project.id].map { .header($0, position: o.order[$0.id]) },
                theirs: t.projects[project.id].map { .header($0, position: t.order[$0.id]) })
            guard touched.projects.contains(project.id) else { continue }
            let taskKeys = o.order.assign(project.tasks.map(\.id))
            for task in project.tasks {
                try files.place(
                    .task(task, project: project.id, position: taskKeys[task.id]),
                    ours: o.projects[project.id]?.task(id: task.id).map {
                        .task($0, project: project.id, position: o.order[$0.id])
                    },
                    theirs: t.projects[project.id]?.task(id: task.id).map {
                        .task($0, project: project.id, position: t.order[$0.id])
                    })
            }
        }
        for tombstone in result.state.removed {
            try files.place(
                .tombstone(tombstone), ours: o.tombstones[tombstone.id].map(StoredItem.tombstone),
                theirs: t.tombstones[tombstone.id].map(StoredItem.tombstone))
        }
        // Every store file either side holds for the items read, or that changed, and the merge did not keep, goes.
        for side in [o, t] {
            for path in side.blobs.keys where !files.wanted.contains(path) {
                if case let .task(_, project) = StoreLayout.item(at: path), !touched.projects.contains(project) {
                    continue
                }
                files.remove(path)
            }
        }
        for path in paths where !files.wanted.contains(path) {
            let item = StoreLayout.item(at: path)
            if item != .other && item != .format { files.remove(path) }
        }

        return StoreMerge(replacements: files.replacements, report: report, trees: trees, changes: changes)
    }

    /// A side whose items changed since the base without a later alterDate (an
    /// edit by hand or another tool, committed with git) dated as made when its
    /// commit was: `max(commit date, previous alterDate + 1 ms)`, so the edit
    /// weighs in the merge, and is not called the earlier edit when it was not.
    func stampingHandEdits(_ side: Side, against base: Side?, commit: ObjectID) throws -> Side {
        guard let base else { return side }
        let date = try git.date(of: commit)
        var stamped = side.stamped
        func stamp(_ previous: Date?) -> Date { DocketClock.alterDate(after: previous, now: date) }
        func unmoved(_ now: Date?, _ before: Date?) -> Bool { DocketClock.isUnmoved(now, since: before, at: date) }
        let todos = side.state.todos.map { todo -> TodoItem in
            guard let old = base.todos[todo.id], old != todo, unmoved(todo.alterDate, old.alterDate) else {
                return todo
            }
            stamped.insert(StoreLayout.todo(todo.id))
            return todo.dated(stamp(old.alterDate ?? old.creationDate))
        }
        let projects = side.state.projects.map { project -> Project in
            let old = base.projects[project.id]
            let tasks = project.tasks.map { task -> ProjectTask in
                guard let oldTask = old?.task(id: task.id), oldTask != task, unmoved(task.alterDate, oldTask.alterDate)
                else { return task }
                stamped.insert(StoreLayout.task(task.id, in: project.id))
                return task.dated(stamp(oldTask.alterDate))
            }
            var header = Project(id: project.id, title: project.title, tasks: tasks, alterDate: project.alterDate)
            if let old, old.title != project.title, unmoved(project.alterDate, old.alterDate) {
                stamped.insert(StoreLayout.project(project.id))
                header = header.dated(stamp(old.alterDate))
            }
            return header
        }
        guard stamped != side.stamped else { return side }
        return Side(
            state: AppState(todos: todos, projects: projects, removed: side.state.removed), order: side.order,
            blobs: side.blobs, stamped: stamped)
    }

    /// Whether a side's items depend on an item they did not depend on in the base.
    func addsDependencies(_ side: Side, since base: Side?) -> Bool {
        func adds(_ now: [UUID], _ before: [UUID]?) -> Bool { !Set(now).subtracting(before ?? []).isEmpty }
        for todo in side.state.todos where adds(todo.dependencies, base?.todos[todo.id]?.dependencies) { return true }
        for project in side.state.projects {
            for task in project.tasks
            where adds(task.dependencies, base?.projects[project.id]?.task(id: task.id)?.dependencies) {
                return true
            }
        }
        return false
    }

    /// The dependencies ignored in circles the merge closed, over the whole store: the items neither side
    /// changed read from ours' tree, the changed ones as each side and the merge have them.
    ///
    /// NB: a circle can pass through items neither side changed, which the merge itself does not read; so the
    /// whole store is read here, only when both sides added a dependency (what a new circle needs).
    func circlesClosed(
        _ o: Side, _ t: Side, merged: AppState, touched: Touched,
        _ trees: (base: ObjectID?, ours: ObjectID, theirs: ObjectID)
    ) throws -> [CircleDecision] {
        let paths = Set(try git.entries(inTree: trees.ours, under: StoreLayout.folders).keys)
        let whole = try read(ours, Touched(paths)).state
        func with(_ changed: AppState) -> AppState {
            let todos = whole.todos.filter { !touched.todos.contains($0.id) } + changed.todos
            // NB: a side holds every project's header, but the tasks of only the projects that changed.
            let projects =
                whole.projects.filter { !touched.projects.contains($0.id) }
                + changed.projects.filter { touched.projects.contains($0.id) }
            return AppState(todos: todos, projects: projects, removed: [])
        }
        return MergeReport.circlesClosed(ours: with(o.state), theirs: with(t.state), merged: with(merged))
    }

    /// The far-ahead dates a fast-forward from `base` to `theirs` brings in: those of the items its changes touch.
    func farAheadInFastForward() throws -> [FarAheadDate] {
        let changes = try git.changedPaths(
            from: try base.map { try git.tree(ofCommit: $0) }, to: try git.tree(ofCommit: theirs))
        let paths = Set(changes.map(\.path).filter { StoreLayout.isInStore($0) })
        guard !paths.isEmpty else { return [] }
        let side = try read(theirs, Touched(paths))
        return try farAhead(in: side, carriedBy: theirs, other: side)
    }

    /// The dates of a side's items that lie more than a day ahead of the
    /// commit that carries them (projects only when their files changed).
    func farAhead(in side: Side, carriedBy commit: ObjectID, other: Side) throws -> [FarAheadDate] {
        let commitDate = try git.date(of: commit)
        let horizon = commitDate.addingTimeInterval(86_400)
        var found: [FarAheadDate] = []
        func note(_ kind: ItemDecision.Kind, _ id: UUID, _ label: String, _ field: String, _ date: Date?) {
            if let date, date > horizon {
                found.append(
                    FarAheadDate(kind: kind, id: id, label: label, field: field, date: date, commitDate: commitDate))
            }
        }
        for todo in side.state.todos { note(.todo, todo.id, todo.text, "alterDate", todo.alterDate) }
        for project in side.state.projects
        where !project.tasks.isEmpty || side.blobs[StoreLayout.project(project.id)] != nil {
            note(.project, project.id, project.title, "alterDate", project.alterDate)
            for task in project.tasks { note(.task, task.id, task.title, "alterDate", task.alterDate) }
        }
        for tombstone in side.state.removed {
            let kind: ItemDecision.Kind =
                switch tombstone.kind {
                case .todo: .todo
                case .project: .project
                case .task: .task
                }
            let label =
                other.todos[tombstone.id]?.text ?? other.projects[tombstone.id]?.title
                ?? other.state.projects.lazy.compactMap { $0.task(id: tombstone.id)?.title }.first ?? "removed item"
            note(kind, tombstone.id, label, "removedDate", tombstone.removedDate)
        }
        return found
    }

    /// The items of a commit that the merge needs: every project's own file
    /// (for the order of projects), the touched projects' tasks, the touched
    /// todos and tombstones. A file that does not read stops the merge, naming it and the commit; with
    /// `droppingUnreadable` it is left out.
    func read(_ commit: ObjectID, _ touched: Touched, droppingUnreadable: Bool = false) throws -> Side {
        let source = try CommitSource(git: git, commit: commit)
        var reader = StoreReader(source)
        let state = try reader.items(
            todos: touched.todos, projects: touched.projects, tombstones: touched.tombstones, allProjectHeaders: true)
        if !droppingUnreadable, let problem = reader.problems.first {
            throw StoreError.state(.refusedInCommit(path: problem.path, commit: commit.short, reason: problem.reason))
        }
        return Side(state: state, order: reader.order, blobs: source.blobs)
    }

    /// The items whose files changed on either side since the base.
    struct Touched {
        var todos = Set<UUID>(), projects = Set<UUID>(), tombstones = Set<UUID>()

        init(_ paths: Set<String>) {
            for path in paths {
                switch StoreLayout.item(at: path) {
                case let .todo(id):
                    todos.insert(id)
                    tombstones.insert(id)
                case let .project(id):
                    projects.insert(id)
                    tombstones.insert(id)
                // NB: a removed task's file is a changed path too, so its project is among those read.
                case let .task(id, project):
                    projects.insert(project)
                    tombstones.insert(id)
                    tombstones.insert(project)
                case let .tombstone(id):
                    tombstones.insert(id)
                    todos.insert(id)
                case .format, .other: break
                }
            }
        }
    }
}

/// The files of the merged tree that differ from ours': each merged item's
/// file (a side's own blob when the item and its order key are that side's,
/// else new JSON), and the files that go.
struct MergedFiles {
    let git: StoreGit
    let ours: MergeCommitBuilder.Side
    let theirs: MergeCommitBuilder.Side
    /// The blob for each path to replace; nil removes the path.
    private(set) var replacements: [String: ObjectID?] = [:]
    /// The paths the merged items need.
    private(set) var wanted = Set<String>()
    /// Whether new files are written as blobs (not when only the report is wanted).
    let writesBlobs: Bool

    init(git: StoreGit, ours: MergeCommitBuilder.Side, theirs: MergeCommitBuilder.Side, writesBlobs: Bool = true) {
        self.git = git
        self.ours = ours
        self.theirs = theirs
        self.writesBlobs = writesBlobs
    }

    /// Places a merged item's file, reusing a side's blob when that side holds exactly this item.
    mutating func place(_ item: StoredItem, ours oursItem: StoredItem?, theirs theirsItem: StoredItem?) throws {
        let path = item.path
        wanted.insert(path)
        if oursItem == item, !ours.stamped.contains(path), let blob = ours.blobs[path] {
            replacements[path] = blob
            return
        }
        if theirsItem == item, !theirs.stamped.contains(path), let blob = theirs.blobs[path] {
            replacements[path] = blob
            return
        }
        guard writesBlobs else { return }
        let existing = try (ours.blobs[path] ?? theirs.blobs[path]).map { try git.blob($0) }
        replacements[path] = try git.writeBlob(try item.text(keeping: existing))
    }

    /// Removes a path from the merged tree.
    mutating func remove(_ path: String) {
        replacements[path] = .some(nil)
    }
}
