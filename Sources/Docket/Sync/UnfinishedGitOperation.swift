import DocketGit
import DocketSystem
import Foundation

// What plain git left unfinished in a store: a merge or a rebase that stopped
// on a conflict. `docket sync` finishes it with Docket's rules; every other
// command that would commit says what is unfinished and the ways out.
extension Store {
    /// The operation git left unfinished in this store, if any.
    public var unfinishedGitOperation: GitOperation? { (try? git)?.unfinishedOperation }

    /// Refuses to commit, pull or push while git has an operation unfinished
    /// (after clearing a merge's state that the branch already holds).
    func refuseUnfinishedGitOperation() throws {
        guard let operation = try git.unfinishedOperation else { return }
        if operation == .merge, try mergeStateIsStale() { return try git.clearOperationState() }
        try refuseRebaseUnderWay()
        throw StoreError.state(.unfinishedGitOperation(operation))
    }

    /// Finishes what git left, with Docket's merge: a merge becomes a merge
    /// commit with both parents and the report; a rebase is given up for a
    /// Docket merge of the two histories. Nil when git left nothing.
    func finishGitOperation() throws -> PullOutcome? {
        switch try git.unfinishedOperation {
        case nil: return nil
        case .merge: return try finishGitMerge()
        case .rebase:
            try refuseRebaseUnderWay()
            return try replaceGitRebase()
        case .cherryPick: return try finishReplay(.cherryPick)
        case .revert: return try finishReplay(.revert)
        case let operation?: throw StoreError.state(.unfinishedGitOperation(operation))
        }
    }

    /// Refuses to touch a rebase that is not stopped on a conflict: one running a command (`git rebase -x 'docket
    /// sync'`), or stopped at an `edit` or `break`, is git's to finish; only one stopped on a conflict is Docket's
    /// to replace with its merge.
    func refuseRebaseUnderWay() throws {
        guard try git.unfinishedOperation == .rebase, try git.conflictedPaths().isEmpty else { return }
        let done = (try? Folder.readFile(gitdir + "rebase-merge/done", limit: 1 << 20)).map {
            String(decoding: $0, as: UTF8.self)
        }
        let step = done?.split(separator: "\n").last { !$0.isEmpty && !$0.hasPrefix("#") }.map(String.init)
        throw StoreError.state(.rebaseUnderWay(step: step))
    }

    /// Finishes a cherry-pick or revert git stopped on a store file (the
    /// merge driver stops it where a value would be discarded without a
    /// record): each conflicted file is merged with Docket's rules, the
    /// report goes into the commit's message, and git goes on with the
    /// rest of its sequence; again for each commit that stops.
    private func finishReplay(_ operation: GitOperation) throws -> PullOutcome {
        var reports: [MergeReport] = []
        for _ in 0..<1000 {
            guard let current = try git.unfinishedOperation else { break }
            guard current == operation else { throw StoreError.state(.unfinishedGitOperation(current)) }
            let head = "\(operation == .cherryPick ? "CHERRY_PICK_HEAD" : "REVERT_HEAD")"
            guard let ours = try git.head(), let picked = try git.reference(head) else { break }
            // The side a discarded value comes from: the picked commit, or the reverted one's parent.
            let theirs = operation == .cherryPick ? picked : try git.parents(of: picked).first ?? picked
            // NB: the record goes into git's MERGE_MSG before any file is resolved: a sync killed in between finds
            // nothing conflicted next time, and git's --continue then commits that message, record and all.
            let report = try resolveConflictsWithDocketMerge { report in
                guard !report.isEmpty else { return }
                try keepReachable(theirs)
                let message =
                    (try? Folder.readFile(gitdir + "MERGE_MSG", limit: 1 << 20)).map {
                        String(decoding: $0, as: UTF8.self)
                    } ?? ""
                let trailers = MergeHistory.replayTrailers(report, ours: ours, theirs: theirs)
                try StoreError.gate(writing: true) {
                    try AtomicFile.write(
                        Data((message.trimmingCharacters(in: .newlines) + "\n\n" + trailers).utf8),
                        to: gitdir + "MERGE_MSG")
                }
            }
            // A sync killed after writing the record: git's message holds it, and is committed as it stands.
            let message =
                (try? Folder.readFile(gitdir + "MERGE_MSG", limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) }
                ?? ""
            let recorded = MergeHistory.sides(in: message) != nil ? MergeHistory.report(in: message) ?? report : report
            if !recorded.isEmpty { reports.append(recorded) }
            let verb = operation == .cherryPick ? "cherry-pick" : "revert"
            func run(_ arguments: [String]) throws -> Spawn.Outcome {
                try StoreError.gate(writing: true) {
                    try Spawn.run(
                        ["git"] + arguments, environment: ["GIT_EDITOR": "true", "GIT_DIR": nil, "GIT_WORK_TREE": nil],
                        captureErrors: true, folder: rootPath)
                }
            }
            // The commit as git would make it (the picked commit's author, git's hooks), kept even when Docket's merge
            // left nothing to change, for its record; then the rest of git's sequence, if any.
            let commit =
                ["commit", "-q", "--allow-empty", "-F", gitdir + "MERGE_MSG"]
                + (verifiesWithGitHooks ? [] : ["--no-verify"])
            var outcome = try run(recorded.isEmpty ? [verb, "--continue"] : commit)
            if outcome.status == 0, !recorded.isEmpty, try git.unfinishedOperation == operation {
                outcome = try run([verb, "--continue"])
            }
            if outcome.status != 0, try git.unfinishedOperation == nil || git.conflictedPaths().isEmpty {
                throw StoreError.state(
                    .replayFailed(command: "git \(verb) --continue", detail: outcome.errorText + outcome.text))
            }
        }
        let report = MergeReport(items: reports.flatMap(\.items), farAhead: reports.flatMap(\.farAhead))
        try git.noteIndexHolds(try git.tree(ofCommit: try git.head()!))
        return .finishedReplay(operation, commit: try git.head()!.description, report: report)
    }

    /// Merges each store file git left conflicted with Docket's rules, from
    /// the stages git left, into the working tree and the index (resolved);
    /// the decisions taken. Refuses conflicts outside the store and files that
    /// are not items. `recording` hears the decisions before any file is written.
    func resolveConflictsWithDocketMerge(stagingResult: Bool = true, recording: (MergeReport) throws -> Void) throws
        -> MergeReport
    {
        let conflicted = try git.conflictedPaths()
        let outside = conflicted.filter { !StoreLayout.isInStore($0) }
        if !outside.isEmpty { throw StoreError.state(.unresolvedOutside(paths: outside)) }
        var items: [ItemDecision] = []
        var farAhead: [FarAheadDate] = []
        var replacements: [String: ObjectID?] = [:]
        var texts: [String: Data] = [:]
        for path in conflicted {
            let stages = try git.conflictStages(at: path)
            // A file removed on one side and changed on the other keeps the change: nothing is lost.
            guard let oursID = stages.ours ?? stages.theirs, let theirsID = stages.theirs ?? stages.ours else {
                continue
            }
            // Each side read as a store file is: at most the size Docket takes in.
            func read(_ id: ObjectID) throws -> Data {
                guard try git.blobSize(id) <= Store.maximumFileSize else {
                    throw StoreError.state(
                        .unresolvedOutside(paths: [path + " (over \(Store.maximumFileSize >> 10) KiB)"]))
                }
                return try git.blob(id)
            }
            switch FileMerge.merge(
                path: path, base: try stages.base.map(read), ours: try read(oursID), theirs: try read(theirsID))
            {
            case let .merged(data, report):
                items += report.items
                farAhead += report.farAhead
                texts[path] = data
                replacements[path] = .some(try git.writeBlob(data))
            case let .notItems(reason):
                throw StoreError.state(.unresolvedOutside(paths: [path + " (\(reason))"]))
            }
        }
        let report = MergeReport(items: items, farAhead: farAhead)
        try recording(report)
        Fault.point("after-settle-record")
        let root = try tree
        try StoreError.gate(writing: true) {
            let batch = WriteBatch(root: root)
            for (path, data) in texts { try batch.add(data, at: path) }
            try batch.commit()
        }
        if stagingResult {
            _ = try git.resolveIndex(replacing: replacements)
        } else {
            // As `git stash apply` leaves what it applied: in the working tree, the index as HEAD has it.
            let head = try git.head().map { try git.tree(ofCommit: $0) }
            var original: [String: ObjectID?] = [:]
            for path in replacements.keys {
                original[path] = .some(try head.flatMap { try git.blobID(inTree: $0, at: path) })
            }
            _ = try git.resolveIndex(replacing: original)
        }
        Fault.point("after-settle")
        return report
    }

    /// Merges the store files git left conflicted with no operation under way
    /// (`git stash pop` and `apply`, `git checkout -m`) with Docket's rules,
    /// into the working tree, as git leaves what it applied; the report and
    /// its sides (HEAD, and the stash the other values come from), or nil when
    /// nothing is conflicted. git keeps a stash it could not apply whole.
    ///
    /// NB: the record is written (`.git/docket/settled-record`) before any
    /// file: a sync killed before its commit finds it there next time
    /// (`pendingSettledRecord`), and commits it.
    func settleLeftConflicts() throws -> SettledRecord? {
        // NB: an index Docket noted holds no conflict (git writing one changes it); only another is read (50 ms at
        // 100,000 items).
        guard !Repository.indexIsNoted(gitdir: gitdir), try git.unfinishedOperation == nil,
            !(try git.conflictedPaths().isEmpty),
            let head = try git.head()
        else { return pendingSettledRecord() }
        let theirs = try git.reference("refs/stash") ?? head
        var settled: SettledRecord?
        _ = try resolveConflictsWithDocketMerge(stagingResult: false) { report in
            try keepReachable(theirs)
            settled = SettledRecord(report: report, ours: head, theirs: theirs)
            try StoreError.gate(writing: true) {
                try AtomicFile.write(try JSONEncoder().encode(settled), to: settledRecordFile)
            }
        }
        return settled
    }

    /// Where a settled record waits for its commit.
    var settledRecordFile: String { gitdir + "docket/settled-record" }

    /// The record of conflicts settled by a sync killed before it committed them, if any.
    func pendingSettledRecord() -> SettledRecord? {
        guard let data = try? Folder.readFile(settledRecordFile, limit: 1 << 24) else { return nil }
        return try? JSONDecoder().decode(SettledRecord.self, from: data)
    }

    /// Forgets a settled record once a commit carries it.
    func clearSettledRecord() { try? FileManager.default.removeItem(atPath: settledRecordFile) }

    /// A commit of HEAD's tree carrying the record of conflicts Docket settled
    /// where its merge changed nothing on this side.
    func commitRecord(_ settled: SettledRecord) throws -> CommitOutcome {
        guard let branch = try git.headBranch() else { throw StoreError.state(.detachedHead) }
        let summary = "Record the values Docket's merge discarded: \(settled.report.summary)"
        let message =
            summary + "\n\n" + MergeHistory.replayTrailers(settled.report, ours: settled.ours, theirs: settled.theirs)
        let id = try git.writingObjectsTogether {
            try git.commit(tree: try git.tree(ofCommit: settled.ours), parents: [settled.ours], message: message)
        }
        try moveBranchReference(branch, to: id, message: "commit: " + summary)
        return .committed(id: id.description, message: summary)
    }

    /// Keeps the commit a replay's discarded values come from reachable (`refs/docket/sides/`), for `docket merges
    /// restore`.
    func keepReachable(_ commit: ObjectID) throws {
        try git.setReference(
            "refs/docket/sides/\(commit)", to: commit, message: "docket: the side of a recorded replay")
    }

    /// Whether MERGE_HEAD is already in the branch (a finish that was killed after moving the branch).
    private func mergeStateIsStale() throws -> Bool {
        guard let ours = try git.head(), let theirs = try git.reference("MERGE_HEAD") else { return true }
        return try ours == theirs || git.mergeBase(ours, theirs) == theirs
    }

    private func finishGitMerge() throws -> PullOutcome {
        if try mergeStateIsStale() {
            try git.clearOperationState()
            return .upToDate
        }
        let ours = try git.head()!
        let theirs = try git.reference("MERGE_HEAD")!
        let base = try git.mergeBase(ours, theirs)
        let contents = try IntakeCheck(git: git).check(theirs, since: base)
        let merged = try MergeCommitBuilder(git: git, base: base, ours: ours, theirs: theirs).mergeStore()
        let conflicted = try git.conflictedPaths()
        let outside = conflicted.filter { !StoreLayout.isInStore($0) }
        if !outside.isEmpty { throw StoreError.state(.unresolvedOutside(paths: outside)) }
        var replacements = merged.replacements
        for path in conflicted where replacements[path] == nil {
            replacements[path] = .some(try git.blobID(inTree: merged.trees.ours, at: path))
        }
        // The tree: what git merged outside the store, Docket's merge inside it.
        let tree = try git.resolveIndex(replacing: replacements)
        let commit = try git.commit(
            tree: tree, parents: [ours, theirs],
            message: MergeHistory.message(merged.report, remoteBranch: try name(of: theirs)))
        // git wrote its own merge of the store's files; each is rewritten as Docket merged it.
        let written = Set(replacements.keys).union(conflicted)
            .union(merged.changes?.theirs.map(\.path).filter(StoreLayout.isInStore) ?? [])
        try moveBranch(
            to: commit, from: ours, message: "docket: finish git's merge", contents: contents,
            overwriting: written, othersInPlace: true)
        try git.clearOperationState()
        return .merged(commit: commit.description, report: merged.report)
    }

    private func replaceGitRebase() throws -> PullOutcome {
        let folder = [gitdir + "rebase-merge/", gitdir + "rebase-apply/"].first {
            FileManager.default.fileExists(atPath: $0)
        }
        func read(_ name: String) -> String? {
            folder.flatMap { try? Folder.readFile($0 + name, limit: 1 << 16) }.map {
                String(decoding: $0, as: UTF8.self)
            }?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let branch = read("head-name"), branch.hasPrefix("refs/heads/"),
            let original = read("orig-head").flatMap(ObjectID.init(hex:)),
            let onto = read("onto").flatMap(ObjectID.init(hex:))
        else { throw StoreError.state(.unfinishedGitOperation(.rebase)) }
        // Give the rebase up: the branch, the index and the working tree as they were before it.
        try git.setReference(branch, to: original, message: "docket: give up git's rebase for a Docket merge")
        try git.attachHead(to: branch)
        try git.checkout(original, force: true)
        try git.clearOperationState()
        for leftover in ["REBASE_HEAD", "AUTO_MERGE"] { try? FileManager.default.removeItem(atPath: gitdir + leftover) }
        try git.noteIndexHolds(try git.tree(ofCommit: original))
        // Then bring the other history in, as a pull would.
        let base = try git.mergeBase(original, onto)
        if base == onto { return .upToDate }
        let contents = try IntakeCheck(git: git).check(onto, since: base)
        if base == original {
            try moveBranch(
                to: onto, from: original, message: "docket: fast-forward instead of git's rebase", contents: contents)
            return .fastForwarded(to: onto.description)
        }
        let (commit, report) = try git.writingObjectsTogether {
            try MergeCommitBuilder(git: git, base: base, ours: original, theirs: onto).build(
                remoteBranch: try name(of: onto))
        }
        try moveBranch(to: commit, from: original, message: "docket: merge instead of git's rebase", contents: contents)
        return .merged(commit: commit.description, report: report)
    }

    /// A remote branch that names the commit ("origin/main"), else its short id.
    private func name(of commit: ObjectID) throws -> String {
        let refs = try git.references(startingWith: "refs/remotes/").filter {
            $0.value == commit && !$0.key.hasSuffix("/HEAD")
        }
        return refs.keys.sorted().first.map { String($0.dropFirst("refs/remotes/".count)) } ?? commit.short
    }
}

/// Conflicts Docket settled with no git operation under way: what its merge decided, and the two sides.
struct SettledRecord: Codable {
    let report: MergeReport
    /// HEAD when they were settled.
    let ours: ObjectID
    /// The commit the other values come from (the stash).
    let theirs: ObjectID
}
