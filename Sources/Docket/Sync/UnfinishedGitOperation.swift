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
        throw StoreError.state(.unfinishedGitOperation(operation))
    }

    /// Finishes what git left, with Docket's merge: a merge becomes a merge
    /// commit with both parents and the report; a rebase is given up for a
    /// Docket merge of the two histories. Nil when git left nothing.
    func finishGitOperation() throws -> PullOutcome? {
        switch try git.unfinishedOperation {
        case nil: return nil
        case .merge: return try finishGitMerge()
        case .rebase: return try replaceGitRebase()
        case let operation?: throw StoreError.state(.unfinishedGitOperation(operation))
        }
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
        let ours = try git.head()!, theirs = try git.reference("MERGE_HEAD")!
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
        let commit = try git.commit(tree: tree, parents: [ours, theirs],
                                    message: MergeHistory.message(merged.report, remoteBranch: try name(of: theirs)))
        // git wrote its own merge of the store's files; each is rewritten as Docket merged it.
        let written = Set(replacements.keys).union(conflicted)
            .union(merged.changes?.theirs.map(\.path).filter(StoreLayout.isInStore) ?? [])
        try moveBranch(to: commit, from: ours, message: "docket: finish git's merge", contents: contents,
                       overwriting: written, othersInPlace: true)
        try git.clearOperationState()
        return .merged(commit: commit.description, report: merged.report)
    }

    private func replaceGitRebase() throws -> PullOutcome {
        let folder = [gitdir + "rebase-merge/", gitdir + "rebase-apply/"].first { FileManager.default.fileExists(atPath: $0) }
        func read(_ name: String) -> String? {
            folder.flatMap { try? Folder.readFile($0 + name, limit: 1 << 16) }.map { String(decoding: $0, as: UTF8.self) }?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let branch = read("head-name"), branch.hasPrefix("refs/heads/"),
              let original = read("orig-head").flatMap(ObjectID.init(hex:)), let onto = read("onto").flatMap(ObjectID.init(hex:))
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
            try moveBranch(to: onto, from: original, message: "docket: fast-forward instead of git's rebase", contents: contents)
            return .fastForwarded(to: onto.description)
        }
        let (commit, report) = try git.writingObjectsTogether {
            try MergeCommitBuilder(git: git, base: base, ours: original, theirs: onto).build(remoteBranch: try name(of: onto))
        }
        try moveBranch(to: commit, from: original, message: "docket: merge instead of git's rebase", contents: contents)
        return .merged(commit: commit.description, report: report)
    }

    /// A remote branch that names the commit ("origin/main"), else its short id.
    private func name(of commit: ObjectID) throws -> String {
        let refs = try git.references(startingWith: "refs/remotes/").filter { $0.value == commit && !$0.key.hasSuffix("/HEAD") }
        return refs.keys.sorted().first.map { String($0.dropFirst("refs/remotes/".count)) } ?? commit.short
    }
}
