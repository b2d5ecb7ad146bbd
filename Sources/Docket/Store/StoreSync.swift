import DocketGit
import DocketMerge
import DocketModel
import Foundation

/// What a pull did.
public enum PullOutcome: Equatable, Sendable {
    /// The remote had nothing new.
    case upToDate
    /// The remote has no branch to pull yet.
    case remoteEmpty
    /// The branch moved forward to the remote's commit.
    case fastForwarded(to: String)
    /// Both had new commits: they were merged in a merge commit.
    case merged(commit: String, report: MergeReport)
}

/// What a sync did, step by step.
public struct SyncOutcome: Equatable, Sendable {
    /// The commit of local changes made first, if any.
    public let committed: CommitOutcome
    /// Each pull, in order (more than one when another machine pushed in between).
    public let pulls: [PullOutcome]
    /// Whether the push sent anything.
    public let pushed: Bool
}

/// A past merge, read back from its commit.
public struct MergeRecord: Encodable, Sendable {
    /// The merge commit's id.
    public let commit: String
    /// When it was made.
    public let date: Date
    /// The first line of its message.
    public let summary: String
    /// Everything the merge decided.
    public let report: MergeReport

    private enum CodingKeys: String, CodingKey { case commit, date, summary, report }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(commit, forKey: .commit)
        try c.encodeDate(date, forKey: .date)
        try c.encode(summary, forKey: .summary)
        try c.encode(report, forKey: .report)
    }
}

extension Store {
    /// The trailer that carries a merge's full report in its commit message.
    static let reportTrailer = "Docket-Merge-Report: "

    // MARK: Remotes

    /// The configured remotes.
    public func remotes() throws -> [RemoteInfo] { try git { try repository.remotes() } }

    /// Adds a remote.
    public func addRemote(_ name: String, url: String) throws {
        if try remotes().contains(where: { $0.name == name }) { throw StoreError.remoteExists(name) }
        try git { try repository.addRemote(name, url: url) }
    }

    /// Removes a remote.
    public func removeRemote(_ name: String) throws {
        guard try remotes().contains(where: { $0.name == name }) else { throw StoreError.unknownRemote(name) }
        try git { try repository.removeRemote(name) }
    }

    /// The remote to use: the one named, else origin, else the only one.
    public func remoteName(_ name: String?) throws -> String {
        let all = try remotes().map(\.name)
        if let name {
            guard all.contains(name) else { throw StoreError.unknownRemote(name) }
            return name
        }
        if all.contains("origin") { return "origin" }
        if all.count == 1 { return all[0] }
        throw all.isEmpty ? StoreError.noRemote : StoreError.unknownRemote("origin")
    }

    /// Clones the store at `url` into `folder`; an empty remote becomes a new store there.
    public static func clone(url: String, into folder: URL, options: TransferOptions = .fromEnvironment()) throws -> Store {
        let path = folder.standardizedFileURL.path
        if let contents = try? FileManager.default.contentsOfDirectory(atPath: path), !contents.isEmpty {
            throw StoreError.folderNotEmpty(path)
        }
        let repository: Repository
        do {
            repository = try git { try Repository.clone(url: url, to: path, options: options) }
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        if try git({ try repository.head() }) == nil {
            // NB: a bare remote made by 'git init --bare' may name a HEAD branch
            // that does not exist (master); take its main branch, or its only one.
            let branches = try git { try repository.references(startingWith: "refs/remotes/origin/") }
                .filter { $0.key != "refs/remotes/origin/HEAD" }
            let chosen = branches["refs/remotes/origin/main"].map { ("main", $0) }
                ?? (branches.count == 1 ? branches.first.map { (String($0.key.dropFirst("refs/remotes/origin/".count)), $0.value) } : nil)
            if let (name, commit) = chosen {
                try git {
                    try repository.setReference("refs/heads/\(name)", to: commit, message: "docket: clone")
                    try repository.setHead("refs/heads/\(name)")
                    try repository.checkout(commit)
                    try repository.noteIndexHolds(try repository.tree(ofCommit: commit))
                }
                return try open(at: folder)
            }
            // An empty remote: start the store here, on main, as 'docket init' would.
            try git { try repository.setHead("refs/heads/main") }
            return try create(at: folder)
        }
        // A fresh clone's index was just made from HEAD's tree.
        try git { try repository.noteIndexHolds(try repository.tree(ofCommit: try repository.head()!)) }
        return try open(at: folder)
    }

    // MARK: Pull, push, sync

    /// Fetches the remote, then fast-forwards or merges with Docket's merge.
    /// Refuses when the store has uncommitted changes.
    public func pull(remote: String? = nil, options: TransferOptions = .fromEnvironment()) throws -> PullOutcome {
        try withLock { try pullHoldingLock(remote: try remoteName(remote), options: options) }
    }

    /// Sends the branch to the remote; a rejected push says to pull or sync.
    public func push(remote: String? = nil, options: TransferOptions = .fromEnvironment()) throws {
        let name = try remoteName(remote)
        try git { try repository.push(remote: name, reference: try repository.headBranch(), options: options) }
    }

    /// Commits local changes, pulls and pushes, pulling again (up to `attempts`
    /// times) when another machine pushed in between.
    public func sync(remote: String? = nil, attempts: Int = 5, options: TransferOptions = .fromEnvironment()) throws -> SyncOutcome {
        let name = try remoteName(remote)
        return try withLock {
            let committed = try commitHoldingLock(message: nil)
            var pulls: [PullOutcome] = []
            for attempt in 1...attempts {
                pulls.append(try pullHoldingLock(remote: name, options: options, knownClean: true))
                do {
                    let branch = try git { try repository.headBranch() }
                    let remoteHead = try git { try repository.reference("refs/remotes/\(name)/\(branch.replacingOccurrences(of: "refs/heads/", with: ""))") }
                    if remoteHead == (try git { try repository.head() }) { return SyncOutcome(committed: committed, pulls: pulls, pushed: false) }
                    try git { try repository.push(remote: name, reference: branch, options: options) }
                    return SyncOutcome(committed: committed, pulls: pulls, pushed: true)
                } catch StoreError.transfer(.rejected) where attempt < attempts {
                    continue
                }
            }
            return SyncOutcome(committed: committed, pulls: pulls, pushed: false)
        }
    }

    /// The file that marks a branch update in progress: "<target commit> <previous commit or none>".
    var updateMarker: String { gitdir + "docket-update" }

    /// Moves the branch to `target` after making the working tree and index match it.
    /// NB: the working tree goes first and a marker records the move, so a
    /// process killed in between leaves a store the next command finishes,
    /// never a branch whose files are missing from the working tree.
    func moveBranch(to target: ObjectID, from previous: ObjectID?, message: String) throws {
        let branch = try git { try repository.headBranch() }
        try "\(target) \(previous?.description ?? "none")\n".write(toFile: updateMarker, atomically: true, encoding: .utf8)
        try git {
            let targetTree = try repository.tree(ofCommit: target)
            // Whether the index held HEAD's tree: then, after the checkout, it holds the target's.
            let indexHeldHead = try repository.indexHoldsHeadTree()
            // Only the paths that differ need looking at; past a few thousand, a whole checkout is as quick.
            let paths = try previous.map { try repository.changedPaths(from: try repository.tree(ofCommit: $0), to: targetTree).map(\.path) }
            try repository.checkout(target, only: (paths?.count ?? .max) <= 5_000 ? paths : nil)
            if indexHeldHead { try repository.noteIndexHolds(targetTree) }
        }
        Fault.point("after-checkout")
        try git { try repository.setReference(branch, to: target, message: message) }
        try? FileManager.default.removeItem(atPath: updateMarker)
    }

    /// Finishes a branch update a killed process left half done.
    func finishInterruptedUpdate() throws {
        guard let text = try? String(contentsOfFile: updateMarker, encoding: .utf8) else { return }
        let parts = text.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let done: () -> Void = { try? FileManager.default.removeItem(atPath: self.updateMarker) }
        guard parts.count == 2, let target = ObjectID(hex: parts[0]) else { return done() }
        let head = try git { try repository.head() }
        if head == target { return done() }
        guard head?.description ?? "none" == parts[1] else { return done() }
        // Every file that differs from HEAD must already be the target's, so
        // finishing the checkout cannot overwrite anything a person changed.
        let targetTree = try git { try repository.tree(ofCommit: target) }
        for entry in try git({ try repository.status(under: []) }) {
            let wanted = try git { try repository.blobID(inTree: targetTree, at: entry.path) }
            let actual = entry.kind == .deleted ? nil : try git { try repository.hashFile(entry.path) }
            if wanted != actual { throw StoreError.interruptedUpdate(path: entry.path, marker: updateMarker) }
        }
        let branch = try git { try repository.headBranch() }
        try git {
            try repository.checkout(target, force: true)
            try repository.setReference(branch, to: target, message: "docket: finish an interrupted pull")
        }
        done()
    }

    /// Pulls while holding the lock; `knownClean` skips the scan for uncommitted
    /// changes when the caller has just committed them (a status costs 0.5 s at 100,000 items).
    func pullHoldingLock(remote: String, options: TransferOptions, knownClean: Bool = false) throws -> PullOutcome {
        try finishInterruptedUpdate()
        if !knownClean, try !git({ try repository.status(under: StoreLayout.folders) }).filter({ StoreLayout.item(at: $0.path) != .other }).isEmpty {
            throw StoreError.uncommittedChanges
        }
        try git { try repository.fetch(remote: remote, options: options) }
        Fault.point("after-fetch")
        let branch = try git { try repository.headBranch() }
        let short = branch.replacingOccurrences(of: "refs/heads/", with: "")
        guard let theirs = try git({ try repository.reference("refs/remotes/\(remote)/\(short)") }) else { return .remoteEmpty }
        guard let ours = try git({ try repository.head() }) else {
            try moveBranch(to: theirs, from: nil, message: "docket: pull (fast-forward)")
            return .fastForwarded(to: theirs.description)
        }
        if ours == theirs { return .upToDate }
        let base = try git { try repository.mergeBase(ours, theirs) }
        if base == theirs { return .upToDate }
        if base == ours {
            try refuseNewerFormat(in: theirs)
            try moveBranch(to: theirs, from: ours, message: "docket: pull (fast-forward)")
            return .fastForwarded(to: theirs.description)
        }
        let (commit, report) = try git { try repository.writingObjectsTogether {
            try mergeCommits(base: base, ours: ours, theirs: theirs, remoteBranch: "\(remote)/\(short)")
        } }
        Fault.point("after-merge-commit")
        try moveBranch(to: commit, from: ours, message: "docket: pull (merge)")
        return .merged(commit: commit.description, report: report)
    }

    func refuseNewerFormat(in commit: ObjectID) throws {
        _ = try TreeState.read(repository, commit: commit, todos: [], projects: [], tombstones: [])
    }

    /// Merges two commits with Docket's merge, reading only the store files
    /// that differ between them and their base, and writes a merge commit
    /// (not yet on any branch) whose message carries the report.
    func mergeCommits(base: ObjectID?, ours: ObjectID, theirs: ObjectID, remoteBranch: String) throws -> (ObjectID, MergeReport) {
        let trees = try git { (base: try base.map { try repository.tree(ofCommit: $0) },
                               ours: try repository.tree(ofCommit: ours), theirs: try repository.tree(ofCommit: theirs)) }
        // What differs: the store paths either side changed since the base (every path, without a base).
        var paths = Set<String>()
        var changes: (ours: [ChangedPath], theirs: [ChangedPath])?
        if let baseTree = trees.base {
            // Every changed path, not only the store's: the tree merge needs the others too.
            changes = try git { (ours: try repository.changedPaths(from: baseTree, to: trees.ours),
                                 theirs: try repository.changedPaths(from: baseTree, to: trees.theirs)) }
            for change in changes!.ours + changes!.theirs where StoreLayout.folders.contains(where: { change.path.hasPrefix($0 + "/") }) {
                paths.insert(change.path)
            }
        } else {
            for tree in [trees.ours, trees.theirs] { paths.formUnion(try git { try repository.blobs(inTree: tree, under: StoreLayout.folders) }.keys) }
        }
        var todos = Set<UUID>(), projects = Set<UUID>(), tombstones = Set<UUID>()
        for path in paths {
            switch StoreLayout.item(at: path) {
            case let .todo(id): todos.insert(id); tombstones.insert(id)
            case let .project(id): projects.insert(id); tombstones.insert(id)
            case let .task(id, project): projects.insert(project); tombstones.insert(id); tombstones.insert(project)
            case let .tombstone(id): tombstones.insert(id); todos.insert(id)
            case .format, .other: break
            }
        }
        // NB: a removed task's file is a changed path too, so its project is among those read.
        let sides = try [base, ours, theirs].map { commit in
            try commit.map { try TreeState.read(repository, commit: $0, todos: todos, projects: projects, tombstones: tombstones) }
        }
        let (b, o, t) = (sides[0], sides[1]!, sides[2]!)
        let result = merge(base: b?.state, ours: o.state, theirs: t.state)

        // The files the merged items need: a side's own blob where the item and its order key are that side's, else new JSON.
        var replacements: [String: ObjectID?] = [:]
        var wanted = Set<String>()
        func place<Value: Encodable & Equatable>(_ path: String, _ value: Value, position: Int?,
                                                 oursValue: Value?, theirsValue: Value?) throws {
            wanted.insert(path)
            let id = idOf(path)
            if let blob = o.blobs[path], oursValue == value, position == nil || id.flatMap({ o.positions[$0] }) == position {
                replacements[path] = blob
                return
            }
            if let blob = t.blobs[path], theirsValue == value, position == nil || id.flatMap({ t.positions[$0] }) == position {
                replacements[path] = blob
                return
            }
            let existing = try (o.blobs[path] ?? t.blobs[path]).map { id in try git { try repository.blob(id) } }
            let extra: [String: JSONValue] = position.map { ["position": .int(Int64($0))] } ?? [:]
            let data = try fileText(value, extra: extra, keepingUnknownKeysOf: existing)
            replacements[path] = try git { try repository.writeBlob(data) }
        }

        for todo in result.state.todos {
            try place(StoreLayout.todo(todo.id), todo, position: nil, oursValue: o.state.todo(id: todo.id), theirsValue: t.state.todo(id: todo.id))
        }
        // NB: order keys continue ours' numbering, as a local edit would; the
        // store's remembered positions become ours' (its working tree is about to be the merge).
        positions = o.positions
        let projectPositions = assignPositions(result.state.projects.map(\.id))
        for project in result.state.projects {
            try place(StoreLayout.project(project.id), ProjectHeader(project), position: projectPositions[project.id],
                      oursValue: o.state.project(id: project.id).map(ProjectHeader.init),
                      theirsValue: t.state.project(id: project.id).map(ProjectHeader.init))
            guard projects.contains(project.id) else { continue }
            let taskPositions = assignPositions(project.tasks.map(\.id))
            for task in project.tasks {
                try place(StoreLayout.task(task.id, in: project.id), task, position: taskPositions[task.id],
                          oursValue: o.state.project(id: project.id)?.task(id: task.id),
                          theirsValue: t.state.project(id: project.id)?.task(id: task.id))
            }
        }
        for tombstone in result.state.removed {
            let path = StoreLayout.tombstone(tombstone.id)
            wanted.insert(path)
            if o.state.tombstone(id: tombstone.id) == tombstone, let blob = o.blobs[path] { replacements[path] = blob; continue }
            if t.state.tombstone(id: tombstone.id) == tombstone, let blob = t.blobs[path] { replacements[path] = blob; continue }
            let data = try fileText(tombstone, extra: ["path": .string(removedPath(tombstone))], keepingUnknownKeysOf: nil)
            replacements[path] = try git { try repository.writeBlob(data) }
        }
        // Every store path either side holds for the items read, and the merge did not keep, goes.
        for side in [o, t] {
            for path in side.blobs.keys where !wanted.contains(path) {
                if case let .task(_, project) = StoreLayout.item(at: path), !projects.contains(project) { continue }
                replacements[path] = .some(nil)
            }
        }
        for path in paths where !wanted.contains(path) && StoreLayout.item(at: path) != .other && StoreLayout.item(at: path) != .format {
            replacements[path] = .some(nil)
        }

        let tree = try git {
            try repository.mergeTrees(base: trees.base, ours: trees.ours, theirs: trees.theirs, replacing: replacements,
                                      resolvedUnder: StoreLayout.folders, changes: changes)
        }
        let message = Store.mergeMessage(result.report, remoteBranch: remoteBranch)
        let commit = try git {
            try repository.commit(tree: tree, parents: [ours, theirs], message: message, author: repository.defaultSignature(), updating: nil)
        }
        return (commit, result.report)
    }

    /// "Merge origin/main: 3 items merged; …", one line per decision, and the full report as a trailer.
    static func mergeMessage(_ report: MergeReport, remoteBranch: String) -> String {
        var lines = ["Merge \(remoteBranch): \(report.summary)", ""]
        for item in report.items {
            for field in item.fields {
                var line = "- \(item.kind) '\(item.label)' \(field.field): \(field.from)"
                if let lost = field.lost { line += " (\(field.rule == .tieBreak ? "same time, greater value" : "later edit")); lost \"\(lost)\"" }
                lines.append(line)
            }
            if let removal = item.removal {
                lines.append(removal.outcome == .removalWon
                    ? "- \(item.kind) '\(item.label)': removed on \(removal.removedOn) after the edit on \(removal.removedOn.other); the edit is in the report"
                    : "- \(item.kind) '\(item.label)': kept, edited on \(removal.removedOn.other) after its removal on \(removal.removedOn)")
            }
            for slip in item.stoppedSlips {
                lines.append("- task '\(item.label)': running slip \(slip.slipID.uuidString.prefix(8).lowercased()) stopped at \(ISODate.string(from: slip.stop))")
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(report)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        if report.items.isEmpty { lines.removeLast() }
        lines += ["", reportTrailer + json, ""]
        return lines.joined(separator: "\n")
    }

    /// The merges in the history, newest first, with what each decided.
    public func merges(limit: Int, scanning: Int = 10_000) throws -> [MergeRecord] {
        try log(limit: scanning).filter { $0.parents.count > 1 }.prefix(limit).compactMap { commit in
            guard let line = commit.message.split(separator: "\n").last(where: { $0.hasPrefix(Store.reportTrailer) }),
                  let report = try? JSONDecoder().decode(MergeReport.self, from: Data(line.dropFirst(Store.reportTrailer.count).utf8))
            else { return nil }
            return MergeRecord(commit: commit.id.description, date: commit.date, summary: commit.summary, report: report)
        }
    }
}

private func idOf(_ path: String) -> UUID? {
    switch StoreLayout.item(at: path) {
    case let .todo(id), let .project(id), let .task(id, _), let .tombstone(id): id
    default: nil
    }
}
