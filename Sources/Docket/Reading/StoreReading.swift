import DocketModel
import Foundation

extension Store {
    /// The working tree as a source of item files.
    var workingTree: WorkingTreeSource {
        get throws { WorkingTreeSource(root: try tree) }
    }

    /// Every item of the store. A file that does not decode, is not a regular
    /// file, is larger than 1 MiB or holds another id than its name gives is
    /// skipped and reported; the rest load.
    /// A file where git left its conflict markers is read as last committed,
    /// so an unfinished git merge hides no item.
    /// Todos, projects and tasks whose files are unchanged since an earlier
    /// read come decoded from the caches in `.git/docket` (see `loadTodos`,
    /// `loadProjects`): the same items and problems as `readEveryFile()`.
    public func load() throws -> StoreSnapshot {
        try loadKnowingFiles(files: false).snapshot
    }

    /// What `load()` gives, with each file an item came from and the stat data the caches vouch for it by (nil
    /// for one they do not: changed in this load's clock tick, read from the last commit, or a tombstone).
    func loadKnowingFiles(files wanted: Bool = true) throws -> (
        snapshot: StoreSnapshot, files: [String: TodoCache.Fingerprint?]
    ) {
        let (todos, todoProblems, todoFiles) = try loadTodosKnowingFiles(openOnly: false, files: wanted)
        let (projects, order, projectProblems, files) = try loadProjectsInOrder()
        let source = try workingTreeOrLastCommit
        var reader = StoreReader(source)
        let removed = try StoreError.gate(writing: false) { try reader.tombstones() }
        let snapshot = StoreSnapshot(
            state: AppState(todos: todos, projects: projects, removed: removed), order: order,
            problems: todoProblems + projectProblems + source.problems + reader.problems)
        guard wanted else { return (snapshot, [:]) }
        var known = todoFiles
        for project in projects {
            known[StoreLayout.project(project.id)] = .some(files[StoreLayout.project(project.id)])
            for task in project.tasks {
                let path = StoreLayout.task(task.id, in: project.id)
                known[path] = .some(files[path])
            }
        }
        for tombstone in removed { known[StoreLayout.tombstone(tombstone.id)] = .some(nil) }
        return (snapshot, known)
    }

    /// Every item of the store read and decoded from its file, without a cache: what `load()` must give.
    func readEveryFile() throws -> StoreSnapshot {
        let source = try workingTreeOrLastCommit
        var reader = StoreReader(source)
        let state = try StoreError.gate(writing: false) { try reader.everything() }
        return StoreSnapshot(state: state, order: reader.order, problems: source.problems + reader.problems)
    }

    /// The working tree, with files holding git's conflict markers read as last committed.
    var workingTreeOrLastCommit: LastCommittedWhenConflicted {
        get throws {
            LastCommittedWhenConflicted(
                try workingTree, head: { try self.git.head().map { try CommitSource(git: self.git, commit: $0) } })
        }
    }

    /// Every project with its tasks, without reading any todo's file.
    /// Files unchanged since an earlier read come decoded from `.git/docket/projects.cache`.
    public func loadProjects() throws -> (projects: [Project], problems: [StoreProblem]) {
        let (projects, _, problems, _) = try loadProjectsInOrder()
        return (projects, problems)
    }

    /// Every project with its tasks, as `loadProjects` gives them, with their order keys.
    func loadProjectsInOrder() throws -> (
        projects: [Project], order: Order, problems: [StoreProblem], files: [String: TodoCache.Fingerprint]
    ) {
        let source = try workingTreeOrLastCommit
        let cache = ProjectCache(source, root: rootPath, file: projectCacheFile)
        var reader = StoreReader(cache)
        let projects = try StoreError.gate(writing: false) {
            try reader.projectHeaders().compactMap { try reader.project($0.key, header: $0.value) }
        }
        cache.save()
        return (
            ordered(projects, by: reader.order), reader.order, source.problems + reader.problems, cache.fingerprints
        )
    }

    /// One todo, read from its file.
    public func todo(_ id: UUID) throws -> TodoItem {
        var reader = StoreReader(try workingTree)
        guard let todo = reader.todo(id) else { throw missingOrUnreadable(reader, kind: .todo, id: id) }
        return todo
    }

    /// One project with its tasks, read from its files.
    public func project(_ id: UUID) throws -> Project {
        var reader = StoreReader(try workingTree)
        let project = try StoreError.gate(writing: false) { try reader.project(id) }
        if let problem = reader.problems.first { throw StoreError.state(.unreadable(problem)) }
        guard let project else { throw StoreError.input(.notFound(kind: .project, id: id.uuidString)) }
        return project
    }

    /// The todos, projects and tombstones of these ids, with their order keys:
    /// what a change of these items starts from. An item that is missing is
    /// left out; one that does not read stops it.
    func snapshot(todos: [UUID] = [], projects: [UUID] = [], tombstones: [UUID] = []) throws -> StoreSnapshot {
        var reader = StoreReader(try workingTree)
        let state = try StoreError.gate(writing: false) {
            try reader.items(todos: todos, projects: Set(projects), tombstones: tombstones, allProjectHeaders: false)
        }
        if let problem = reader.problems.first { throw StoreError.state(.unreadable(problem)) }
        return StoreSnapshot(state: state, order: reader.order, problems: [])
    }

    /// The largest order key of any project, read from every project's own file; -1 when there is none.
    func largestProjectKey() throws -> Int {
        var reader = StoreReader(try workingTree)
        _ = try StoreError.gate(writing: false) { try reader.projectHeaders() }
        return reader.order.positions.values.max() ?? -1
    }

    private func missingOrUnreadable(_ reader: StoreReader, kind: ItemDecision.Kind, id: UUID) -> StoreError {
        reader.problems.first.map { .state(.unreadable($0)) } ?? .input(.notFound(kind: kind, id: id.uuidString))
    }

    // MARK: Ids from file names alone

    /// The ids of all todos, from the file names alone (no file is read).
    public func todoIDs() throws -> [UUID] {
        try StoreError.gate(writing: false) {
            try workingTree.files(under: StoreLayout.todos).compactMap { StoreLayout.item(at: $0).todoID }
        }
    }

    /// The ids of todos whose id starts with `prefix`, from file names alone
    /// (only the one shard folder the prefix names is listed).
    public func todoIDs(startingWith prefix: String) throws -> [UUID] {
        let upper = prefix.uppercased()
        guard upper.count >= 2 else { return try todoIDs().filter { $0.uuidString.hasPrefix(upper) } }
        return try StoreError.gate(writing: false) {
            try workingTree.files(under: StoreLayout.todos + "/" + upper.prefix(2))
                .compactMap { StoreLayout.item(at: $0).todoID }.filter { $0.uuidString.hasPrefix(upper) }
        }
    }

    /// The ids of all projects, from folder names alone.
    public func projectIDs() throws -> [UUID] {
        try StoreError.gate(writing: false) {
            guard let folder = try tree.folder(StoreLayout.projects) else { return [] }
            return try folder.entries().filter(\.isFolder).compactMap { UUID(uuidString: $0.name) }
        }
    }

    /// The ids of tasks whose id starts with `prefix` (in any case), with their projects, from file names alone.
    public func taskIDs(startingWith prefix: String) throws -> [(task: UUID, project: UUID)] {
        let upper = Array(prefix.uppercased().utf8)
        return try StoreError.gate(writing: false) {
            try workingTree.files(under: StoreLayout.projects).compactMap { path in
                // NB: a task's file is named by its id in capitals, so a file whose name does not start with the
                // prefix is passed over, by its bytes, before its path is read: reading every task's path and
                // spelling every task's id was 2.7 M instructions of `docket done <id>` in a store of 200 tasks.
                let bytes = path.utf8
                let name = bytes.lastIndex(of: UInt8(ascii: "/")).map { bytes.index(after: $0) } ?? bytes.startIndex
                guard bytes[name...].starts(with: upper), case let .task(task, project) = StoreLayout.item(at: path)
                else {
                    return nil
                }
                return (task: task, project: project)
            }
        }
    }

    /// The ids of all tasks with their projects, from file names alone.
    public func taskIDs() throws -> [(task: UUID, project: UUID)] {
        try StoreError.gate(writing: false) {
            try workingTree.files(under: StoreLayout.projects).compactMap { path in
                guard case let .task(task, project) = StoreLayout.item(at: path) else { return nil }
                return (task: task, project: project)
            }
        }
    }
}

extension StoreLayout.Item {
    /// The id, when this is a todo's file.
    var todoID: UUID? {
        if case let .todo(id) = self { return id }
        return nil
    }
}
