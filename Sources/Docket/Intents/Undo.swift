import DocketGit
import DocketMerge
import DocketModel
import Foundation

/// A change this machine made through Docket, kept in `.git/docket/undo/`
/// so `docket undo` can take it back: the items it touched, before and after.
public struct UndoEntry: Codable, Sendable {
    /// When the change was made.
    @MillisecondDate public var date: Date
    /// What made it, such as "docket done 3f2a" or "merge origin/main".
    public let action: String
    /// Whether it was a merge of other machines' edits: `undo` passes over it, and `undo --merge` takes it
    /// back, keeping the items it brought in.
    public let isMerge: Bool
    /// The touched items as they were.
    let before: AppState
    /// The touched items as the change left them.
    let after: AppState
    /// How many items a change too large to keep touched; nil for a kept change.
    public let tooLarge: Int?
    /// For a merge: who made the edits it brought in, as their commits name them ("Desk <desk@example.org>").
    public let by: [String]?
    /// For a merge: the other side's version of the items whose edits lost to this machine's.
    let theirs: AppState?
    /// For a merge: what the other side lost to this machine's values (the whole item for an edit a removal made
    /// here won over), written as journals always have: "<id> <field>", "<id>".
    let lost: [ItemFieldPath]?

    /// The items the change touched, for people: "todo 'Buy milk'".
    public var items: [String] {
        var seen = Set<UUID>()
        var labels: [String] = []
        for todo in after.todos + before.todos where seen.insert(todo.id).inserted {
            labels.append("todo '\(todo.text)'")
        }
        for project in after.projects + before.projects where seen.insert(project.id).inserted {
            labels.append("project '\(project.title)'")
        }
        return labels
    }

    /// For a merge: whose edits it brought in, for people ("Desk <desk@example.org>", "Desk and Anna").
    public var whose: String { LaterMerge.names(by ?? []) }

    private enum CodingKeys: String, CodingKey { case date, action, isMerge, before, after, tooLarge, by, theirs, lost }

    init(
        date: Date, action: String, isMerge: Bool, before: AppState, after: AppState, tooLarge: Int? = nil,
        by: [String]? = nil, theirs: AppState? = nil, lost: [ItemFieldPath]? = nil
    ) {
        self.date = date
        self.action = action
        self.isMerge = isMerge
        self.before = before
        self.after = after
        self.tooLarge = tooLarge
        self.by = by
        self.theirs = theirs
        self.lost = lost
    }

    /// The same change with its items left out: what stands in the journal for a change too large to keep.
    var withoutItems: UndoEntry {
        UndoEntry(
            date: date, action: action, isMerge: isMerge, before: AppState(), after: AppState(),
            tooLarge: Set(
                before.todos.map(\.id) + after.todos.map(\.id) + before.projects.map(\.id) + after.projects.map(\.id)
            ).count, by: by)
    }

    /// A merge as an undo of an earlier change weighs it.
    var laterMerge: LaterMerge {
        LaterMerge(
            name: action, by: by ?? [], before: before, after: after, theirs: theirs ?? AppState(),
            lost: Set(lost ?? []))
    }

}

/// What `undo` did with one change.
public struct UndoOutcome: Sendable {
    /// How the change was taken back.
    public enum Way: Sendable {
        /// It was not committed yet: its files were put back as they were.
        case restoredFiles
        /// It was committed (or synced): the reverse was written as a new edit, to commit and sync.
        case reversed
        /// It was too large to keep for undo: nothing changed, and it is off the list.
        case notKept
        /// Nothing was left to take back (a merge that only brought items in, which stay; fields changed since):
        /// nothing changed, and it is off the list.
        case unchanged
    }
    /// The change.
    public let entry: UndoEntry
    /// How it was taken back.
    public let way: Way
    /// What could not be put back, because it changed since (with whose edit, when a merge brought it).
    public let skipped: [String]
    /// Fields given another machine's edit, which this change had won over in a later merge, instead of
    /// their old value.
    public let others: [String]
}

extension Store {
    /// How many changes `undo` can go back.
    public static let undoDepth = 50

    /// The changes `undo` would take back, newest first.
    public func undoable() throws -> [UndoEntry] {
        let journal = try UndoJournal(self)
        try journal.takeInOlderForm(strict: true)
        return try journal.pages().reversed().map(journal.read)
    }

    /// Keeps the change from `before` to `after` (partial states of the items a command read) for undo,
    /// as the newest page of the journal; nil when there was nothing to keep. A change larger than
    /// `Store.maximumFileSize` (a merge of a whole store, say) stands in it without its items, so
    /// `undo` says it cannot take it back rather than reaching past it. A merge also keeps whose edits it
    /// brought in (`by`), and the other side's items and fields that lost to this machine's (`theirs`, `lost`).
    @discardableResult
    func recordForUndo(
        action: String, isMerge: Bool = false, before: AppState, after: AppState, by: [String]? = nil,
        theirs: AppState? = nil, lost: [ItemFieldPath]? = nil
    ) -> UndoJournal.Page? {
        let old = Dictionary(before.todos.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let new = Dictionary(after.todos.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        // NB: a merge whose other side lost values to this machine's is kept even where it changed nothing here:
        // undoing this machine's earlier change gives those values back their place.
        let todos = Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }
            .union((theirs?.todos ?? []).map(\.id))
        let oldProjects = Dictionary(before.projects.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let newProjects = Dictionary(after.projects.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let projects = Set(oldProjects.keys).union(newProjects.keys).filter { oldProjects[$0] != newProjects[$0] }
            .union((theirs?.projects ?? []).map(\.id))
        guard !todos.isEmpty || !projects.isEmpty else { return nil }
        func part(_ state: AppState) -> AppState {
            AppState(
                todos: state.todos.filter { todos.contains($0.id) },
                projects: state.projects.filter { projects.contains($0.id) },
                removed: state.removed.filter {
                    todos.contains($0.id) || projects.contains($0.id) || $0.projectID.map(projects.contains) == true
                })
        }
        let entry = UndoEntry(
            date: DocketClock.now, action: action, isMerge: isMerge, before: part(before), after: part(after), by: by,
            theirs: theirs, lost: lost)
        // NB: a journal that cannot be kept never stops the change that is being written.
        guard let journal = try? UndoJournal(self) else { return nil }
        try? journal.takeInOlderForm(strict: false)
        return try? journal.append(entry)
    }

    /// Forgets a kept change (one whose files could not be written).
    func dropUndoEntry(_ page: UndoJournal.Page) {
        try? UndoJournal(self).remove(page)
    }

    /// Takes back the last `count` changes made through Docket on this machine,
    /// newest first: the user's own, passing over the merges of other machines'
    /// edits made since (they stay, to take back with `merges: true`), which
    /// the undo leaves alone (see `AppState.reversing(before:after:keepingAdded:since:)`).
    /// With `merges`, the last `count` merges instead, keeping the items they brought in.
    /// A change not committed yet has its files put back; one committed or
    /// synced is reversed by a new edit.
    @discardableResult
    public func undo(_ count: Int = 1, merges: Bool = false) throws -> [UndoOutcome] {
        try withLockFinishingUpdate {
            let journal = try UndoJournal(self)
            try journal.takeInOlderForm(strict: true)
            let pages = try journal.pages()
            guard !pages.isEmpty else { throw StoreError.input(.nothingToUndo) }
            var outcomes: [UndoOutcome] = []
            // The merges passed over, newest first: made after the changes still to undo.
            var passed: [UndoEntry] = []
            for page in pages.reversed() where outcomes.count < count {
                let entry = try journal.read(page)
                guard entry.isMerge == merges else {
                    if entry.isMerge { passed.append(entry) }
                    continue
                }
                outcomes.append(try undo(entry, since: passed.reversed().map(\.laterMerge)))
                // NB: a docket killed before this line leaves the page; undoing it again finds its
                // fields already put back and changes nothing.
                journal.remove(page)
            }
            if outcomes.isEmpty {
                guard let last = passed.first else { throw StoreError.input(.nothingMergedToUndo) }
                throw StoreError.input(.nothingOwnToUndo(lastMerge: last.action, by: last.whose))
            }
            return outcomes
        }
    }

    private func undo(_ entry: UndoEntry, since merges: [LaterMerge]) throws -> UndoOutcome {
        if entry.tooLarge != nil { return UndoOutcome(entry: entry, way: .notKept, skipped: [], others: []) }
        let todoIDs = Set(entry.before.todos.map(\.id) + entry.after.todos.map(\.id))
        let projectIDs = Set(entry.before.projects.map(\.id) + entry.after.projects.map(\.id))
        // The tombstones of the items and of their tasks: one the change wrote goes, one it cleared comes back.
        let tombstoneIDs = Array(
            todoIDs.union(projectIDs).union((entry.before.removed + entry.after.removed).map(\.id)))
        let current = try snapshot(todos: Array(todoIDs), projects: Array(projectIDs), tombstones: tombstoneIDs)
        if !entry.isMerge, Self.same(current.state, entry.after),
            try !committed(entry.after, todos: todoIDs, projects: projectIDs)
        {
            // Not committed: the files go back to what they were, dates and all.
            let gone = Set(entry.after.removed.map(\.id)).subtracting(entry.before.removed.map(\.id))
            let restored = AppState(
                todos: current.state.todos.filter { !todoIDs.contains($0.id) } + entry.before.todos,
                projects: current.state.projects.filter { !projectIDs.contains($0.id) } + entry.before.projects,
                removed: current.state.removed.filter { !gone.contains($0.id) } + entry.before.removed)
            try write(from: current, to: restored)
            return UndoOutcome(entry: entry, way: .restoredFiles, skipped: [], others: [])
        }
        // NB: a merge made on another machine after the change is in no journal here, only in its commit's record.
        let elsewhere = entry.isMerge ? [] : mergesElsewhere(after: entry.date, todos: todoIDs, projects: projectIDs)
        let reversal = current.state.reversing(
            before: entry.before, after: entry.after, keepingAdded: entry.isMerge, since: elsewhere + merges)
        if reversal.state == current.state {
            return UndoOutcome(entry: entry, way: .unchanged, skipped: reversal.skipped, others: reversal.others)
        }
        try write(from: current, to: reversal.state)
        return UndoOutcome(entry: entry, way: .reversed, skipped: reversal.skipped, others: reversal.others)
    }

    /// The merges in the history made after `date` that set aside an edit of these items for another value, as
    /// `undo` weighs a later merge (oldest first): where the change being undone is that value, the edit set aside
    /// takes its place. A merge made on any machine is in its commit's record; one made here is in the journal too.
    /// At most `scanning` commits are read, newest first.
    func mergesElsewhere(after date: Date, todos: Set<UUID>, projects: Set<UUID>, scanning: Int = 2_000)
        -> [LaterMerge]
    {
        // NB: a commit's date is in whole seconds: a merge in the same second as the change counts as after it.
        let since = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        guard let head = try? git.head(),
            let commits = try? git.log(
                from: head, limit: 100, scanning: scanning, where: { MergeHistory.isRecord($0) && $0.date >= since })
        else { return [] }
        func state(at commit: ObjectID) -> AppState? {
            guard var reader = try? StoreReader(CommitSource(git: git, commit: commit)) else { return nil }
            return try? reader.items(
                todos: todos, projects: projects, tombstones: todos.union(projects), allProjectHeaders: false)
        }
        var found: [LaterMerge] = []
        for commit in commits {
            guard let record = try? record(commit) else { continue }
            // The values each side lost, as `LaterMerge.lost` names them.
            var lostOn: [MergeSide: Set<ItemFieldPath>] = [:]
            for value in record.report.lostValues {
                let item = value.item
                guard item.kind == .todo ? todos.contains(item.id) : projects.contains(item.projectID ?? item.id)
                else { continue }
                if let field = value.field {
                    lostOn[field.from.other, default: []].insert(ItemFieldPath(item.id, field.field))
                } else if let removal = item.removal, removal.outcome == .removalWon {
                    lostOn[removal.removedOn.other, default: []].insert(ItemFieldPath(item.id, .item))
                }
            }
            let sides = MergeHistory.sides(in: commit.message).map { [$0.ours, $0.theirs] } ?? commit.parents
            guard sides.count == 2, !lostOn.isEmpty, let before = state(at: sides[0]), let after = state(at: commit.id)
            else { continue }
            for (side, lost) in lostOn.sorted(by: { $0.key == .ours && $1.key != .ours }) {
                let parent = sides[side == .ours ? 0 : 1]
                guard let theirs = state(at: parent) else { continue }
                let by = (try? git.commitInfo(parent)).map { ["\($0.authorName) <\($0.authorEmail)>"] } ?? []
                found.append(
                    LaterMerge(
                        name: "merge \(commit.id.description.prefix(7))", by: by, before: before, after: after,
                        theirs: theirs, lost: lost))
            }
        }
        return found.reversed()
    }

    /// Whether HEAD holds the touched items as `after` has them (or the change is otherwise in a commit).
    private func committed(_ after: AppState, todos: Set<UUID>, projects: Set<UUID>) throws -> Bool {
        guard let head = try git.head() else { return false }
        var reader = StoreReader(try CommitSource(git: git, commit: head))
        let headState = try StoreError.gate(writing: false) {
            try reader.items(todos: todos, projects: projects, tombstones: [UUID](), allProjectHeaders: false)
        }
        return Self.same(headState, after)
    }

    /// Whether two partial states hold the same todos and projects, in any order.
    private static func same(_ a: AppState, _ b: AppState) -> Bool {
        Set(a.todos) == Set(b.todos) && Set(a.projects) == Set(b.projects)
    }
}

extension Store {
    /// Keeps a merge for undo: the items it changed, as this machine had them
    /// (`ours`) and as the merge left them; who made the edits it brought in
    /// (the authors of `theirs`'s commits it took in); and, from its report,
    /// the other side's edits that lost to this machine's, with those items as
    /// `theirs` had them, so undoing an earlier change of this machine's can
    /// give them back their place.
    func recordMergeForUndo(_ name: String, ours: ObjectID, theirs: ObjectID, merged: ObjectID, report: MergeReport) {
        // The other side's edits that lost to this machine's values, and their items.
        var lost: [ItemFieldPath] = []
        var (lostTodos, lostProjects) = (Set<UUID>(), Set<UUID>())
        for item in report.items {
            let losing =
                item.fields.filter { $0.from == .ours && $0.lost != nil }.map { ItemFieldPath(item.id, $0.field) }
                + (item.removal.map { $0.outcome == .removalWon && $0.removedOn == .ours } == true
                    ? [ItemFieldPath(item.id, .item)] : [])
            guard !losing.isEmpty else { continue }
            lost += losing
            switch item.kind {
            case .todo: lostTodos.insert(item.id)
            case .project: lostProjects.insert(item.id)
            case .task: if let project = item.projectID { lostProjects.insert(project) }
            }
        }
        guard
            let changed = try? git.changedPaths(from: try git.tree(ofCommit: ours), to: try git.tree(ofCommit: merged))
        else { return }
        var (todos, projects) = (lostTodos, lostProjects)
        for path in changed {
            switch StoreLayout.item(at: path.path) {
            case let .todo(id): todos.insert(id)
            case let .project(id), let .task(_, project: id): projects.insert(id)
            case let .tombstone(id):
                todos.insert(id)
                projects.insert(id)
            case .format, .other: continue
            }
        }
        func state(at commit: ObjectID, todos: Set<UUID>, projects: Set<UUID>) -> AppState? {
            guard var reader = try? StoreReader(CommitSource(git: git, commit: commit)) else { return nil }
            return try? reader.items(
                todos: todos, projects: projects, tombstones: todos.union(projects), allProjectHeaders: false)
        }
        guard let before = state(at: ours, todos: todos, projects: projects),
            let after = state(at: merged, todos: todos, projects: projects)
        else { return }
        var by: [String] = []
        // NB: at most 1,000 commits are asked who made them: a merge of a long history names its latest authors.
        for commit in (try? git.commits(from: theirs, excluding: [ours], limit: 1_000)) ?? [] {
            guard let info = try? git.commitInfo(commit) else { continue }
            let who = "\(info.authorName) <\(info.authorEmail)>"
            if !by.contains(who) { by.append(who) }
        }
        let other = lost.isEmpty ? nil : state(at: theirs, todos: lostTodos, projects: lostProjects)
        recordForUndo(
            action: "merge \(name)", isMerge: true, before: before, after: after, by: by, theirs: other,
            lost: lost.isEmpty ? nil : lost)
    }

}
