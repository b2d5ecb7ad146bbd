import DocketGit
import DocketModel
import DocketSystem
import Foundation

/// What `commit` did.
public enum CommitOutcome: Equatable, Sendable {
    /// A commit was written.
    case committed(id: String, message: String)
    /// Nothing in the store differed from the last commit.
    case nothingToCommit
}

extension Store {
    /// The store's uncommitted changes (made by docket or by hand), in words.
    public func status() throws -> [ItemChange] {
        try refuseUnusableRepository()
        let report = try git.statusReport(under: StoreLayout.folders)
        let entries = report.entries.filter(\.isStoreFile)
        refreshStaleStatData(report.stale)
        let head = try git.head()
        var before = try head.map { StoreReader(try CommitSource(git: git, commit: $0)) }
        var after = StoreReader(try workingTree)
        return entries.map { entry in
            if entry.kind == .conflicted { return conflicted(entry.path, before: &before) }
            let old = entry.kind == .new ? nil : before?.item(at: entry.path)
            let new = entry.kind == .deleted ? nil : after.item(at: entry.path)
            if entry.kind != .deleted, StoreLayout.isStray(entry.path) { after.stray(entry.path) }
            if entry.kind != .deleted, new == nil, let problem = after.problems.last, problem.path == entry.path {
                return ItemChange(
                    path: entry.path, kind: .unreadable(reason: problem.reason),
                    description: "\(entry.path) cannot be read: \(problem.reason)", verbs: [])
            }
            return ChangeDescription.describe(path: entry.path, before: old, after: new)
        }
    }

    /// Files the status found copied, restored or touched without a change take
    /// their stat data into the index, as `git status` refreshes it, or every
    /// status would hash them again. Only while no other process holds the
    /// store (a status never waits) and git's optional locks are not turned
    /// off (`GIT_OPTIONAL_LOCKS=0`); where the store cannot be written, nothing is.
    private func refreshStaleStatData(_ stale: [String]) {
        guard !stale.isEmpty, ProcessInfo.processInfo.environment["GIT_OPTIONAL_LOCKS"] != "0",
            let lock = try? FileLock.attempt(lockFile)
        else { return }
        defer { lock.release() }
        _ = try? git.refreshStatData(stale)
    }

    private func conflicted(_ path: String, before: inout StoreReader?) -> ItemChange {
        let kind: ItemDecision.Kind
        let label: String
        switch before?.item(at: path) {
        case let .todo(todo)?: (kind, label) = (.todo, todo.text)
        case let .project(project, _)?: (kind, label) = (.project, project.title)
        case let .task(task, _, _)?: (kind, label) = (.task, task.title)
        default:
            return ItemChange(
                path: path, kind: .unreadable(reason: "git could not merge it"),
                description: "\(path) conflicted: git could not merge it", verbs: [])
        }
        return ItemChange(
            path: path, kind: .conflicted(kind), description: "\(kind) '\(label)' conflicted: git could not merge it",
            verbs: [])
    }

    /// Commits the store's changed files (new, changed and removed, also those
    /// edited by hand), refusing when any of them does not read. Without a
    /// message, the message summarises the change: "Add 2 todos, complete 1".
    public func commit(message: String? = nil) throws -> CommitOutcome {
        try withLock { try commitHoldingLock(message: message) }
    }

    /// Commits, holding the lock; `including` names files outside the store's folders to commit with it.
    /// `composing` turns the summary of the change into the message, when `message` is nil.
    /// With `leavingUnreadable`, a file that does not read (a hand edit gone wrong, say) is left uncommitted and
    /// named to `leftOut`, and the rest is committed, as a sync must not be stopped by one file; without it, nothing
    /// is committed while one does not read.
    func commitHoldingLock(
        message: String?, including extra: [String] = [], leavingUnreadable: Bool = false,
        leftOut: ([StoreProblem]) -> Void = { _ in }, composing: (String) -> String = { $0 }
    )
        throws -> CommitOutcome
    {
        clearAbandonedGitLocks()
        try finishInterruptedUpdate()
        try refuseUnfinishedGitOperation()
        // A calendar sync's or an import's changes carry its record, also when one killed before its commit left them
        // for this one.
        var composing = composing
        let pending = message == nil ? pendingRecord() : nil
        if let pending {
            if pending.head == (try git.head())?.description {
                composing = { Store.recordMessage(pending, change: $0) }
            } else {
                clearPendingRecord()
            }
        }
        var finished = false
        // NB: kept when the commit fails (a hook refusing it, say): the next commit carries it.
        defer { if finished, pending != nil { clearPendingRecord() } }
        let report = try git.statusReport(under: StoreLayout.folders)
        let found = report.entries
        // Conflicts git left with nothing under way would be settled by taking the working tree's side, silently.
        let conflicted = found.filter { $0.kind == .conflicted }.map(\.path)
        if !conflicted.isEmpty { throw StoreError.state(.conflictsLeft(paths: conflicted)) }
        removeLeftoverTemporaryFiles(found)
        var entries = found.filter(\.isStoreFile) + extra.map { StatusEntry(path: $0, kind: .modified) }
        // NB: as git's `commit -a` and `add -A`, a removal outside the sparse checkout's definition (a file it left
        // out whose skip-worktree bit was cleared) is not committed: git shows it removed, and leaves it so.
        if let sparse = try git.sparseDefinition(), entries.contains(where: { $0.kind == .deleted }) {
            entries.removeAll { $0.kind == .deleted && !sparse.includes($0.path) }
        }
        // Files copied, restored or touched without a change: their index entries take their stat data again, as
        // git refreshes its index, or every status would hash them again.
        let stale = report.stale
        guard !entries.isEmpty else {
            // NB: a record with something to say (a lost value, an edit kept over a removal, a note) is committed
            // even where no file changed.
            if let pending, pending.head == (try git.head())?.description,
                !pending.report.lostValues.isEmpty || pending.report.items.contains(where: { $0.removal != nil })
                    || !(pending.notes ?? []).isEmpty
            {
                finished = true
                return try commitPendingRecord(pending)
            }
            if !stale.isEmpty, let head = try git.head() {
                let tree = try git.writingObjectsTogether { try git.stageAndWriteTree([], refreshing: stale) }
                if tree == (try git.tree(ofCommit: head)) { try git.noteIndexHolds(tree) }
            }
            finished = true
            return .nothingToCommit
        }

        let head = try git.head()
        let headTree = try head.map { try git.tree(ofCommit: $0) }
        let (text, unreadable) = try checkAndDescribe(
            entries, head: head, message: message, leavingUnreadable: leavingUnreadable, composing: composing)
        if !unreadable.isEmpty {
            leftOut(unreadable)
            let paths = Set(unreadable.map(\.path))
            entries.removeAll { paths.contains($0.path) }
            if entries.isEmpty {
                finished = true
                return .nothingToCommit
            }
        }
        guard let branch = try git.headBranch() else { throw StoreError.state(.detachedHead) }
        let hooks = try gitClientHooks
        var message = text + "\n"
        let (tree, id) = try git.writingObjectsTogether { () throws -> (ObjectID, ObjectID?) in
            var tree = try git.stageAndWriteTree(entries.map(\.path), refreshing: stale)
            Fault.point("after-stage")
            // git's pre-commit hook sees what is staged; one that stages more (a formatter, say) is committed with it.
            if verifiesWithGitHooks, hooks.program("pre-commit") != nil {
                let staged = try git.indexFileChecksum()
                try hooks.require("pre-commit", refusing: "the commit", show: hookReport)
                if try git.indexFileChecksum() != staged { tree = try git.writeTreeFromIndex() }
            }
            if tree == headTree { return (tree, nil) }
            message = try messageThroughGitHooks(message, hooks: hooks)
            return (tree, try git.commit(tree: tree, parents: head.map { [$0] } ?? [], message: message))
        }
        guard let id else {
            try git.noteIndexHolds(tree)
            finished = true
            return .nothingToCommit
        }
        let summary = message.split(separator: "\n").first.map(String.init) ?? text
        try moveBranchReference(branch, to: id, message: "commit: " + summary)
        try git.noteIndexHolds(tree)
        _ = try? hooks.run("post-commit", show: hookReport)
        finished = true
        return .committed(id: id.description, message: message == text + "\n" ? text : summary)
    }

    /// Reads every changed item (refusing when any does not read), dates the
    /// ones changed by hand, and returns the commit's message: `message`, or
    /// the change in words. What it read is let go before the commit is written.
    private func checkAndDescribe(
        _ entries: [StatusEntry], head: ObjectID?, message: String?, leavingUnreadable: Bool,
        composing: (String) -> String
    ) throws -> (message: String, leftOut: [StoreProblem]) {
        var after = StoreReader(try workingTree)
        let present = entries.filter { $0.kind != .deleted && StoreLayout.isInStore($0.path) }
        for entry in present where StoreLayout.isStray(entry.path) { after.stray(entry.path) }
        let items = present.filter { !StoreLayout.isStray($0.path) }.map(\.path)
        let (read, problems) = StoreReader.items(at: items, in: try tree)
        var written: [String: StoredItem] = [:]
        written.reserveCapacity(items.count)
        for (path, item) in zip(items, read) { if let item { written[path] = item } }
        let unreadable = (after.problems + problems).sorted { $0.path < $1.path }
        guard unreadable.isEmpty || leavingUnreadable else { throw StoreError.state(.undecodable(unreadable)) }
        let left = Set(unreadable.map(\.path))
        let entries = entries.filter { !left.contains($0.path) }

        var before = try head.map { StoreReader(try CommitSource(git: git, commit: $0)) }
        // An item changed by hand (its alterDate not moved) is dated now, so the edit weighs in merges.
        var stamper = StoreWriter(root: try tree)
        for entry in entries where entry.kind == .modified {
            guard let new = written[entry.path], let old = before?.item(at: entry.path),
                let stamped = new.stampedIfHandEdited(since: old)
            else { continue }
            try stamper.write(stamped)
            written[entry.path] = stamped
        }
        try StoreError.gate(writing: true) { try stamper.commit() }
        let changes = entries.map { entry in
            ChangeDescription.describe(
                path: entry.path, before: entry.kind == .new ? nil : before?.item(at: entry.path),
                after: written[entry.path])
        }
        return (message ?? composing(ChangeDescription.commitMessage(for: changes)), unreadable)
    }

    /// Removes the temporary files a killed docket left (`.docket-tmp-<pid>-…`,
    /// whose process is gone); they never held anything but a copy of an
    /// unfinished write. Files of a running docket are left alone.
    func removeLeftoverTemporaryFiles(_ changes: [StatusEntry]) {
        for change in changes where change.kind == .new {
            let (folder, name) = split(change.path)
            guard let pid = AtomicFile.writer(ofTemporary: Substring(name)), !Spawn.isAlive(pid) else { continue }
            try? (try? tree)?.folder(folder)?.remove(name)
        }
    }

    /// The store's history, newest first.
    public func log(limit: Int) throws -> [CommitInfo] {
        guard let head = try git.head() else { return [] }
        return try git.log(from: head, limit: limit)
    }
}

extension StatusEntry {
    /// Whether the entry is a file of the store's own: an item's, or a stray
    /// one in the store's folders (not one of Docket's temporary files).
    var isStoreFile: Bool { StoreLayout.item(at: path) != .other || StoreLayout.isStray(path) }
}
