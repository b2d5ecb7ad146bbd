import DocketGit
import DocketSystem
import Foundation

extension Store {
    /// Fetches the remote, then fast-forwards or merges with Docket's merge.
    /// Refuses when the store has uncommitted changes.
    @discardableResult
    public func pull(remote: String? = nil, options: TransferOptions = .fromEnvironment()) throws -> Pulled {
        let name = try remoteName(remote)
        return Pulled(
            remote: name,
            outcome: try withLock {
                try git.repairFromFolderRemote(remote: name, options: options)
                let (branch, writers) = try pullHoldingLock(remote: name, options: options)
                // The writers' commits the shared branch does not hold yet come too; the last of them says.
                let merged = try takeWritersHoldingLock(writers, remote: name, options: options)
                return merged.last ?? branch
            })
    }

    /// Sends the branch to its upstream on the remote (the branch of its name
    /// the first time, then remembered); a rejected push says to pull or sync.
    @discardableResult
    public func push(remote: String? = nil, options: TransferOptions = .fromEnvironment()) throws -> Pushed {
        let name = try remoteName(remote)
        return try withLock {
            clearAbandonedGitLocks()
            try refuseUnfinishedGitOperation()
            return try pushHoldingLock(remote: name, named: remote != nil, options: options)
        }
    }

    /// Pushes, holding the lock: checks what would be sent, then sends it.
    func pushHoldingLock(remote pulling: String, named: Bool = false, options: TransferOptions) throws -> Pushed {
        let (ref, _) = try localBranch()
        let (remote, target) = try pushDestination(pulling: pulling, named: named, options: options)
        try checkOutgoing(remote: remote, upstream: target)
        try runPrePush(remote: remote, local: ref, upstream: target)
        try retryingAbandonedLock {
            try git.push(remote: remote, local: ref, to: "refs/heads/\(target)", options: options)
        }
        if remote == pulling, try configuredUpstream(remote: remote) == nil {
            try rememberUpstream(remote: remote, branch: target)
        }
        let dangling = try checkRemoteHead(remote: remote, branch: target, options: options)
        return Pushed(remote: remote, branch: target, remoteHeadNamesMissing: dangling)
    }

    /// Commits local changes, pulls (with the writers' references the branch lacks) and pushes; when another machine
    /// moved the branch in between, publishes on this store's own writer reference instead (`attempts` is kept for
    /// callers written before, and not used).
    /// `onCommit` hears of the commit of local changes as soon as it is made,
    /// so a pull or push that fails afterwards cannot hide it.
    /// How it ended is noted for `lastSync()`.
    @discardableResult
    public func sync(
        remote: String? = nil, attempts: Int = 5, options: TransferOptions = .fromEnvironment(),
        onCommit: (CommitOutcome) -> Void = { _ in }, onLeftOut: ([StoreProblem]) -> Void = { _ in }
    ) throws -> SyncOutcome {
        do {
            let outcome = try syncOnce(
                remote: remote, attempts: attempts, options: options, onCommit: onCommit, onLeftOut: onLeftOut)
            noteSync(remote: outcome.remote, failure: nil)
            return outcome
        } catch {
            noteSync(remote: remote, failure: error)
            throw error
        }
    }

    private func syncOnce(
        remote: String?, attempts: Int, options: TransferOptions, onCommit: (CommitOutcome) -> Void,
        onLeftOut: ([StoreProblem]) -> Void
    ) throws -> SyncOutcome {
        let name = try remoteName(remote)
        return try withLock {
            clearAbandonedGitLocks()
            // A store an earlier copier left without some objects is mended first: a status reads HEAD's trees.
            try git.repairFromFolderRemote(remote: name, options: options)
            try finishInterruptedUpdate()
            var pulls: [PullOutcome] = try finishGitOperation().map { [$0] } ?? []
            // Conflicts git left with nothing under way (`git stash pop`): merged with Docket's rules, and recorded in
            // the commit.
            let settled = try settleLeftConflicts()
            // A file here that does not read stays uncommitted and is named; the rest of this machine's work leaves.
            var committed = try commitHoldingLock(message: nil, leavingUnreadable: true, leftOut: onLeftOut) {
                summary in
                guard let settled, !settled.report.isEmpty else { return summary }
                return summary + "\n\n"
                    + MergeHistory.replayTrailers(settled.report, ours: settled.ours, theirs: settled.theirs)
            }
            // Docket's merge kept this side whole: the record is committed alone.
            if let settled, committed == .nothingToCommit, !settled.report.isEmpty {
                committed = try commitRecord(settled)
            }
            if settled != nil { clearSettledRecord() }
            onCommit(committed)
            _ = attempts
            let (branch, writers) = try pullHoldingLock(remote: name, options: options, knownClean: true)
            pulls.append(branch)
            pulls += try takeWritersHoldingLock(writers, remote: name, options: options)
            do {
                let upstream = try configuredUpstream(remote: name)
                let remoteHead = try upstream.flatMap { try git.reference("refs/remotes/\(name)/\($0)") }
                if let upstream, remoteHead != nil, remoteHead == (try git.head()) {
                    // Nothing to push: a remote on this machine is still checked whole, and repaired from here.
                    try git.repairFolderRemote(
                        remote: name, local: try localBranch().ref, to: "refs/heads/\(upstream)", options: options)
                    retireWritersHoldingLock(remote: name, options: options)
                    return SyncOutcome(remote: name, committed: committed, pulls: pulls, pushed: nil)
                }
                let pushed = try pushHoldingLock(remote: name, named: remote != nil, options: options)
                retireWritersHoldingLock(remote: name, options: options)
                return SyncOutcome(remote: name, committed: committed, pulls: pulls, pushed: pushed)
            } catch StoreError.transfer(.rejected) {
                // NB: another machine moved the shared branch since the fetch. Pulling and trying again loses the
                // race again under many writers (a fifth of syncs gave up at 8 machines); this machine's work goes to
                // its own writer reference instead, and the next sync anywhere carries it into the branch.
                return SyncOutcome(
                    remote: name, committed: committed, pulls: pulls,
                    pushed: try pushWriterHoldingLock(remote: name, options: options))
            }
        }
    }

    /// Pulls while holding the lock; `knownClean` skips the scan for uncommitted
    /// changes when the caller has just committed them (a status costs 0.5 s at 100,000 items). Returns what the
    /// branch's pull did, and the writers' references the same fetch brought, for `takeWritersHoldingLock`.
    func pullHoldingLock(remote: String, options: TransferOptions, knownClean: Bool = false) throws -> (
        outcome: PullOutcome, writers: [String: ObjectID]
    ) {
        clearAbandonedGitLocks()
        try finishInterruptedUpdate()
        try refuseUnfinishedGitOperation()
        if !knownClean,
            !(try git.status(under: StoreLayout.folders).filter { StoreLayout.item(at: $0.path) != .other }.isEmpty)
        {
            throw StoreError.state(.uncommittedChanges)
        }
        // Only the branch the store follows, once it follows one, and the writers' references, over one
        // connection and without tags: a remote's other branches and its tags cost nothing.
        let followed = try configuredUpstream(remote: remote)
        let before = try followed.flatMap { try git.reference("refs/remotes/\(remote)/\($0)") }
        let writers = try retryingAbandonedLock {
            try git.fetch(remote: remote, branch: followed, mirror: Self.writersMirror(remote), options: options)
        }
        Fault.point("after-fetch")
        return (try takeFetched(remote: remote, before: before, options: options), writers)
    }

    /// Takes in what a fetch brought of the branch the store follows on `remote`, whose remote-tracking reference
    /// was at `before`.
    func takeFetched(remote: String, before: ObjectID?, options: TransferOptions) throws -> PullOutcome {
        guard let short = try upstream(remote: remote, options: options),
            let fetched = try git.reference("refs/remotes/\(remote)/\(short)")
        else { return .remoteEmpty }
        // A force-pushed history is never merged with the old one (which the push would then bring back).
        if let ours = try git.head(), ours != fetched,
            let rewrite = try rewrite(of: remote, branch: short, before: before, tip: fetched, ours: ours)
        {
            guard acceptsRewrittenUpstream else {
                throw StoreError.state(
                    .rewrittenUpstream(
                        remote: remote, branch: short, local: try localBranch().short,
                        known: rewrite.known.description, tip: fetched.description))
            }
            return try takeRewrite(
                rewrite, ours: ours, intake: IntakeCheck(git: try git, progress: ProgressThrottle(options.progress)))
        }
        return try integrate(fetched, from: "\(remote)/\(short)", options: options)
    }

    /// Takes `fetched` into the branch: a fast-forward, or a merge with Docket's rules, after what cannot be taken in
    /// is set aside; `remoteBranch` names it in messages and records.
    func integrate(_ fetched: ObjectID, from remoteBranch: String, options: TransferOptions) throws -> PullOutcome {
        let intake = IntakeCheck(git: try git, progress: ProgressThrottle(options.progress))
        guard let ours = try git.head() else {
            let incoming = try takingIn(fetched, onto: nil, since: nil, from: remoteBranch, intake: intake)
            try moveBranch(
                to: incoming.commit, from: nil, message: "docket: pull (fast-forward)", contents: incoming.contents)
            noteSetAside(incoming.files)
            return .fastForwarded(to: incoming.commit.description)
        }
        if ours == fetched { return .upToDate }
        let base = try withinHistory { try git.mergeBase(ours, fetched) }
        if base == fetched { return .upToDate }
        let incoming = try takingIn(fetched, onto: ours, since: base, from: remoteBranch, intake: intake)
        let (theirs, contents) = (incoming.commit, incoming.contents)
        if base == ours {
            let farAhead = try MergeCommitBuilder(git: git, base: base, ours: ours, theirs: theirs)
                .farAheadInFastForward()
            try moveBranch(to: theirs, from: ours, message: "docket: pull (fast-forward)", contents: contents)
            noteSetAside(incoming.files)
            runPostMerge()
            return .fastForwarded(to: theirs.description, farAhead: farAhead)
        }
        let (commit, report) = try git.writingObjectsTogether {
            try MergeCommitBuilder(git: git, base: base, ours: ours, theirs: theirs).build(
                remoteBranch: remoteBranch)
        }
        Fault.point("after-merge-commit")
        try moveBranch(to: commit, from: ours, message: "docket: pull (merge)", contents: contents)
        noteSetAside(incoming.files)
        recordMergeForUndo(remoteBranch, ours: ours, theirs: theirs, merged: commit, report: report)
        runPostMerge()
        return .merged(commit: commit.description, report: report)
    }

    /// What a pull takes in from `fetched` onto `ours`, checked: git's conflict markers a peer committed merged again
    /// on top, what cannot be taken in set aside on top (one writer's bad file never stops this machine's pull), a
    /// newer store format refused, and every file since `base` checked; with the files set aside and the bytes read.
    func takingIn(
        _ fetched: ObjectID, onto ours: ObjectID?, since base: ObjectID?, from remoteBranch: String,
        intake: IntakeCheck
    ) throws -> (commit: ObjectID, files: [SetAsideFile], contents: [ObjectID: Data]) {
        let resolved = try git.writingObjectsTogether { try resolvingCommittedMarkers(fetched, since: base) }
        let setAside = try git.writingObjectsTogether {
            try git.settingAside(resolved, ours: ours, since: base, remoteBranch: remoteBranch)
        }
        try refuseNewerFormat(in: setAside.commit)
        let contents = try intake.check(setAside.commit, since: base)
        return (setAside.commit, setAside.files, contents)
    }

    /// git's pre-push hook, as git runs it: the remote's name and address, and on its input the reference to send.
    func runPrePush(remote: String, local ref: String, upstream: String) throws {
        guard verifiesWithGitHooks else { return }
        let hooks = try gitClientHooks
        guard hooks.program("pre-push") != nil, let head = try git.head() else { return }
        let url = try git.remotes().first { $0.name == remote }?.url ?? remote
        let remoteHead =
            try git.reference("refs/remotes/\(remote)/\(upstream)")?.description ?? String(repeating: "0", count: 40)
        let line = "\(ref) \(head) refs/heads/\(upstream) \(remoteHead)\n"
        try hooks.require(
            "pre-push", [remote, url], input: Data(line.utf8), refusing: "the push to \(remote)", show: hookReport)
    }

    /// git's post-merge hook, after a pull moved the branch (it cannot undo it).
    func runPostMerge() {
        _ = try? gitClientHooks.run("post-merge", ["0"], show: hookReport)
    }

    /// Refuses to send commits whose store files Docket would not take in:
    /// a broken file committed with git here is never passed on.
    func checkOutgoing(remote: String, upstream: String) throws {
        guard let head = try git.head() else { return }
        let remoteHead = try git.reference("refs/remotes/\(remote)/\(upstream)")
        if remoteHead == head { return }
        try IntakeCheck(git: try git).check(head, since: try remoteHead.flatMap { try git.mergeBase(head, $0) })
    }

    /// Runs `body`, which walks history; in a shallow clone, where that history
    /// is cut off, a missing commit is reported as what it is.
    func withinHistory<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let StoreError.git(error) where error.isNotFound || error.isObjectDatabase {
            let shallow = FileManager.default.fileExists(
                atPath: ((try? git.repository.commonDir) ?? gitdir) + "shallow")
            throw shallow ? StoreError.state(.shallow) : StoreError.git(error)
        }
    }

    /// Refuses a commit whose store format is newer than this docket's.
    func refuseNewerFormat(in commit: ObjectID) throws {
        let source = try CommitSource(git: git, commit: commit)
        guard let data = try? source.read(StoreLayout.format) else { return }
        let format: FormatFile
        do {
            format = try DocketJSON.decode(FormatFile.self, from: data)
        } catch {
            throw StoreError.state(
                .refusedInCommit(
                    path: StoreLayout.format, commit: commit.short, reason: "does not decode (\(decodingReason(error)))"
                ))
        }
        if format.format > Store.format {
            throw StoreError.state(.newerFormatInCommit(commit: commit.short, found: format.format))
        }
    }
}
