import DocketGit
import DocketSystem
import Foundation

extension Store {
    /// Fetches the remote, then fast-forwards or merges with Docket's merge.
    /// Refuses when the store has uncommitted changes.
    public func pull(remote: String? = nil, options: TransferOptions = .fromEnvironment()) throws -> Pulled {
        let name = try remoteName(remote)
        return Pulled(remote: name, outcome: try withLock { try pullHoldingLock(remote: name, options: options) })
    }

    /// Sends the branch to the remote, and returns the remote's name; a rejected push says to pull or sync.
    @discardableResult
    public func push(remote: String? = nil, options: TransferOptions = .fromEnvironment()) throws -> String {
        let name = try remoteName(remote)
        return try withLock {
            clearAbandonedGitLocks()
            guard let branch = try git.headBranch() else { throw StoreError.state(.detachedHead) }
            try checkOutgoing(remote: name, branch: branch)
            try retryingAbandonedLock { try git.push(remote: name, reference: branch, options: options) }
            return name
        }
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
                    guard let branch = try git.headBranch() else { throw StoreError.state(.detachedHead) }
                    let remoteHead = try git.reference("refs/remotes/\(name)/\(branch.dropFirst("refs/heads/".count))")
                    if remoteHead == (try git.head()) { return SyncOutcome(remote: name, committed: committed, pulls: pulls, pushed: false) }
                    try checkOutgoing(remote: name, branch: branch)
                    try retryingAbandonedLock { try git.push(remote: name, reference: branch, options: options) }
                    return SyncOutcome(remote: name, committed: committed, pulls: pulls, pushed: true)
                } catch StoreError.transfer(.rejected) where attempt < attempts {
                    continue
                }
            }
            return SyncOutcome(remote: name, committed: committed, pulls: pulls, pushed: false)
        }
    }

    /// Pulls while holding the lock; `knownClean` skips the scan for uncommitted
    /// changes when the caller has just committed them (a status costs 0.5 s at 100,000 items).
    func pullHoldingLock(remote: String, options: TransferOptions, knownClean: Bool = false) throws -> PullOutcome {
        clearAbandonedGitLocks()
        try finishInterruptedUpdate()
        if !knownClean, !(try git.status(under: StoreLayout.folders).filter { StoreLayout.item(at: $0.path) != .other }.isEmpty) {
            throw StoreError.state(.uncommittedChanges)
        }
        try retryingAbandonedLock { try git.fetch(remote: remote, options: options) }
        Fault.point("after-fetch")
        guard let branch = try git.headBranch() else { throw StoreError.state(.detachedHead) }
        let short = String(branch.dropFirst("refs/heads/".count))
        guard let theirs = try git.reference("refs/remotes/\(remote)/\(short)") else { return .remoteEmpty }
        let intake = IntakeCheck(git: try git)
        try refuseNewerFormat(in: theirs)
        guard let ours = try git.head() else {
            let contents = try intake.check(theirs, since: nil)
            try moveBranch(to: theirs, from: nil, message: "docket: pull (fast-forward)", contents: contents)
            return .fastForwarded(to: theirs.description)
        }
        if ours == theirs { return .upToDate }
        let base = try git.mergeBase(ours, theirs)
        if base == theirs { return .upToDate }
        let contents = try intake.check(theirs, since: base)
        if base == ours {
            try moveBranch(to: theirs, from: ours, message: "docket: pull (fast-forward)", contents: contents)
            return .fastForwarded(to: theirs.description)
        }
        let (commit, report) = try git.writingObjectsTogether {
            try MergeCommitBuilder(git: git, base: base, ours: ours, theirs: theirs).build(remoteBranch: "\(remote)/\(short)")
        }
        Fault.point("after-merge-commit")
        try moveBranch(to: commit, from: ours, message: "docket: pull (merge)", contents: contents)
        return .merged(commit: commit.description, report: report)
    }

    /// Refuses to send commits whose store files Docket would not take in:
    /// a broken file committed with git here is never passed on.
    func checkOutgoing(remote: String, branch: String) throws {
        guard let head = try git.head() else { return }
        let remoteHead = try git.reference("refs/remotes/\(remote)/\(branch.dropFirst("refs/heads/".count))")
        if remoteHead == head { return }
        try IntakeCheck(git: try git).check(head, since: try remoteHead.flatMap { try git.mergeBase(head, $0) })
    }

    /// Refuses a commit whose store format is newer than this docket's.
    func refuseNewerFormat(in commit: ObjectID) throws {
        let source = try CommitSource(git: git, commit: commit)
        guard let data = try? source.read(StoreLayout.format) else { return }
        let format: FormatFile
        do {
            format = try DocketJSON.decode(FormatFile.self, from: data)
        } catch {
            throw StoreError.state(.refusedInCommit(path: StoreLayout.format, commit: commit.short, reason: "does not decode (\(decodingReason(error)))"))
        }
        if format.format > Store.format { throw StoreError.state(.newerFormatInCommit(commit: commit.short, found: format.format)) }
    }
}
